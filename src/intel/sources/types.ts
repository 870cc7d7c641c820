/**
 * Shapes shared by the source collectors. A source is one configured directory (or one origin's
 * self-description); collecting it yields discovered services and its freshness.
 */
import type { DiscoveredService, RawResponse } from '../../domain/intel.js';
import type { SourceKind } from '../../domain/sources.js';
import type { SourceNote } from '../read-bounds.js';

/** Freshness of one source (feeds `service_sources` in /api/status and /api/intelligence/status). */
export interface SourceFreshness {
  name: string;
  kind: SourceKind;
  url: string;
  /** ISO 8601 of the last collection attempt, or null when never tried. */
  last_attempt_at: string | null;
  /** ISO 8601 of the last successful collection, or null when none succeeded. */
  last_success_at: string | null;
  /** Message of the last failure; null when the last attempt succeeded. */
  last_error: string | null;
  /** Services yielded by the last successful collection; null when none succeeded. */
  item_count: number | null;
}

/**
 * One answer of a source (a directory page, a catalog, an origin's document) with the services read from it: the
 * raw answer is what the offers it lists are archived with (docs/intelligence.md, "Directory evidence").
 */
export interface SourceAnswer {
  /** The answer as received (status, headers, body up to the fetch cap, final URL). */
  answer: RawResponse;
  /** ISO 8601 time the answer was received. */
  fetched_at: string;
  services: DiscoveredService[];
}

export interface CollectResult {
  /** Every service read, in answer order (the services of `answers`, flattened). */
  services: DiscoveredService[];
  /** The answers the services were read from; empty on failure. */
  answers: SourceAnswer[];
  freshness: SourceFreshness;
  /** Items skipped as unreadable, one line each (not fatal). */
  warnings: string[];
  /** Entries refused when read (../read-bounds.ts), at most notes_per_source (src/intel/limits.ts). */
  notes: SourceNote[];
}

/** Fetch options every collector accepts. */
export interface CollectOptions {
  /** Allow loopback addresses (tests and the demo only). */
  allowLoopback?: boolean;
  /** Per-request budget in ms; default 15,000. */
  timeoutMs?: number;
  /** Per-response cap in bytes; default 8 MiB (directory pages are larger than probe answers). */
  maxBytes?: number;
  /** Bazaar: items per page (default 100) and page limit (default 100). */
  pageSize?: number;
  maxPages?: number;
  /** Clock, for tests. */
  now?: () => Date;
}
