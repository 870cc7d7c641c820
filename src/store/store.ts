/**
 * The open store's type, apart from ./db.ts (which opens one) so that modules ./db.ts loads can name it without an
 * import cycle.
 */
import type { Kysely } from 'kysely';
import type { TokenList } from '../domain/token-list.js';
import type { HeavyReads } from './chain/readers.js';
import type { StoreCache } from './cache.js';
import type { DialectName } from './dialect.js';
import type { Database } from './schema.js';

/** An open store: the Kysely handle plus what callers need to know about it. */
export interface Store {
  db: Kysely<Database>;
  dialect: DialectName;
  /** The location with any password removed, safe to log and to show in /api/status. */
  location: string;
  /** The listed tokens every chain answer read through this store follows (nominal, asset_listed, symbols). */
  tokenList: TokenList;
  /** Where heavy chain reads run off the calling thread (reader threads on a SQLite file), or null: inline. */
  readers: HeavyReads | null;
  /** This store's remembered answers, keyed by its version (./cache.ts); never shared with another store. */
  cache: StoreCache;
  /**
   * Runs a trivial query (readiness checks): resolves once the database answers.
   * @throws StoreUnavailable (./outage.ts) when it cannot answer
   */
  ping(): Promise<void>;
  /**
   * Why writes fail now (disk full, read-only, I/O error: ./outage.ts), or null. Set by a failed write, cleared by
   * the next successful one; while set, /readyz answers 503 with it.
   */
  writeOutage(): string | null;
  /**
   * While writeOutage() is set: one tiny write that is never kept (./maintenance.ts probeWrite), at most once per
   * WRITE_PROBE_INTERVAL_MS, clearing the outage when it succeeds; so readiness returns once the store can write,
   * without waiting for another write. Resolves at once when there is no outage or a probe ran recently.
   * @throws StoreUnavailable when the probe's write fails
   */
  probeWrite(): Promise<void>;
  close(): Promise<void>;
}
