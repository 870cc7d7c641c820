/**
 * Tables of the intel area (migrations in ../migrations/intel.ts). Times are ISO 8601 UTC strings as produced by
 * Date.toISOString() (fixed width, so text order is time order); amounts are exact atomic integer strings or exact
 * decimal strings; JSON members are stored as JSON text.
 */
import type { Generated } from 'kysely';
import type { Offer } from '../../domain/intel.js';

/** A provider: an origin's domain (lower-case host; port only when not the default). */
export interface IntelProviderRow {
  domain: string;
  first_seen: string;
  last_seen: string;
}

/** A paid endpoint, with the running state of its checks (denormalised for listings). */
export interface IntelServiceRow {
  service_id: string;
  domain: string;
  method: string;
  url: string;
  tool: string | null;
  description: string | null;
  first_seen: string;
  last_seen: string;
  /** JSON array of source names that listed it. */
  sources: string;
  last_snapshot_id: string | null;
  last_checked_at: string | null;
  last_outcome: string | null;
  last_http_status: number | null;
  /** The last check whose outcome counts as good (payment_required, ok_without_payment). */
  last_good_at: string | null;
  /** The first failing check after the last good one; null while good or never checked. */
  failing_since: string | null;
  /**
   * Copies of the last check's latency, error, evidence hash and offers (JSON array of Offer), so listings need
   * no join (migration intel_0002). Null on rows written before it: readers then join the snapshot.
   */
  last_latency_ms?: number | null;
  last_error?: string | null;
  last_evidence_hash?: string | null;
  last_offers?: string | null;
}

/** Freshness of one configured source (directory). */
export interface IntelSourceRow {
  name: string;
  kind: string;
  url: string;
  last_attempt_at: string | null;
  last_success_at: string | null;
  last_error: string | null;
  item_count: number | null;
  /** JSON array of a few recent sample items ({method, url, tool}). */
  samples: string;
  /** JSON array of the last pass's notes ({kind, detail, url}: entries refused when read); '[]' when none. */
  notes: Generated<string>;
}

/** One dated endpoint check. */
export interface IntelSnapshotRow {
  snapshot_id: string;
  service_id: string;
  domain: string;
  checked_at: string;
  http_status: number | null;
  latency_ms: number | null;
  outcome: string;
  error: string | null;
  evidence_hash: string | null;
}

/** The archived raw response of a snapshot: compressed bytes and the sha256 hex of the uncompressed bytes. */
export interface IntelEvidenceRow {
  snapshot_id: string;
  sha256: string;
  /** Compression of `bytes` ("gzip"). */
  encoding: string;
  bytes: Uint8Array;
}

/**
 * One archived answer of a source (a directory page, a catalog, an origin's document; migration intel_0005): the
 * evidence of the offers listed from it, which cite its snapshot_id and evidence_hash. Its bytes are in
 * intel_evidence under the same snapshot_id, archived like a probe's answer.
 */
export interface IntelSourceAnswerRow {
  /** UUID v7, from the same generator as probe snapshot ids. */
  snapshot_id: string;
  source_name: string;
  /** The final URL of the answer (after redirects). */
  url: string;
  fetched_at: string;
  http_status: number;
  /** sha256 hex of the archived bytes (src/intel/evidence.ts). */
  evidence_hash: string;
}

/**
 * One advertised payment option, from a snapshot (snapshot_id set, source_name null) or a directory listing
 * (source_name set; snapshot_id the archived source answer it was read from, null on rows stored before
 * intel_0005): every Offer member (extra as JSON text) plus where and when it was observed.
 */
export interface IntelOfferRow extends Omit<Offer, 'extra'> {
  id: Generated<number>;
  service_id: string;
  domain: string;
  snapshot_id: string | null;
  source_name: string | null;
  observed_at: string;
  /** JSON text or null. */
  extra: string | null;
  evidence_hash: string | null;
}

/** A dated change between two snapshots (or a directory listing and a snapshot). */
export interface IntelChangeRow {
  id: Generated<number>;
  service_id: string;
  domain: string;
  kind: string;
  at: string;
  before_snapshot_id: string | null;
  after_snapshot_id: string;
  /** JSON text. */
  before: string;
  after: string;
}

/** One pass of the collection loop. */
export interface IntelCollectRunRow {
  id: Generated<number>;
  started_at: string;
  finished_at: string | null;
  services: number | null;
  snapshots: number | null;
  changes: number | null;
  error: string | null;
}

/** One pass of the archive verification job. */
export interface IntelArchiveRunRow {
  id: Generated<number>;
  started_at: string;
  finished_at: string;
  checked: number;
  verified: number;
  /** JSON array of snapshot ids whose stored bytes no longer match their evidence hash. */
  failed: string;
}

export interface IntelTables {
  intel_providers: IntelProviderRow;
  intel_services: IntelServiceRow;
  intel_sources: IntelSourceRow;
  intel_snapshots: IntelSnapshotRow;
  intel_evidence: IntelEvidenceRow;
  intel_source_answers: IntelSourceAnswerRow;
  intel_offers: IntelOfferRow;
  intel_changes: IntelChangeRow;
  intel_collect_runs: IntelCollectRunRow;
  intel_archive_runs: IntelArchiveRunRow;
}
