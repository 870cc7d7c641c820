/**
 * Opens the store: SQLite (better-sqlite3, the embedded default; ./sqlite.ts) or PostgreSQL (pg; ./postgres.ts),
 * chosen by the URL (./target.ts), then migrates it (./migrate.ts) and starts its reader threads.
 * The store is the only place with SQL (docs/architecture.md).
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { Store } from './store.js';
import { DEFAULT_TOKEN_LIST, type TokenList } from '../domain/token-list.js';
import { ReaderPool } from './chain/readers.js';
import { StoreCache } from './cache.js';
import { parseDbTarget, redactDbLocation, type DbTarget } from './target.js';
import { openSqlite } from './sqlite.js';
import { openPostgres } from './postgres.js';
import { migrateStore } from './migrate.js';
import { pingDatabase, probeWrite } from './maintenance.js';
import type { ReportingDialect } from './outage.js';
import { LIMITS } from '../limits/index.js';

export type { DialectName } from './dialect.js';
export type { Store } from './store.js';
export { MigrationError, StoreOpenError } from './errors.js';
export { parseDbTarget, redactDbLocation, type DbTarget } from './target.js';
export { cachingStatements, lockSqliteMigrations, MIGRATION_LOCK_WAIT_MS, STATEMENT_CACHE_SIZE } from './sqlite.js';
export { pgPoolOf, poolUse } from './postgres.js';
export { migrateStore } from './migrate.js';

export interface OpenStoreOptions {
  /** Apply pending migrations (default true). */
  migrate?: boolean;
  /** PostgreSQL pool size (default 10). */
  poolSize?: number;
  /** The token list chain answers follow (default: DEFAULT_TOKEN_LIST, Tempo mainnet's listed tokens). */
  tokenList?: TokenList;
  /** Open the SQLite file read-only (reader threads; no migration, no pragmas that write). */
  readonly?: boolean;
  /**
   * Reader threads for heavy chain reads on a SQLite file (metrics, uncached counts, export steps; ./chain/readers.ts);
   * default 0: inline. Ignored for PostgreSQL and in-memory SQLite.
   */
  readers?: number;
  /** Heavy reads waiting or running at most on the reader threads before a 503 (default LIMITS.readerQueue). */
  readersMaxQueued?: number;
  /** Milliseconds a SQLite open waits for another process migrating the same file (default MIGRATION_LOCK_WAIT_MS). */
  migrationLockWaitMs?: number;
  /** Progress of a migration's batched data step (rows done, rows to do), for a progress bar on large stores. */
  onMigrationProgress?: (done: number, total: number) => void;
}

/**
 * Opens (and by default migrates) the store at `value`.
 * SQLite runs in WAL mode with a busy timeout, so one writer and many readers share the file safely,
 * and a crash of the process loses no committed transaction.
 * @throws Error with a one-line message when the database cannot be opened or reached
 */
export async function openStore(value: string, opts: OpenStoreOptions = {}): Promise<Store> {
  const t = parseDbTarget(value);
  const { db, dialect, unlockMigrations } =
    t.dialect === 'sqlite' ? await openSqlite(t.target, opts) : { ...(await openPostgres(t, opts.poolSize)), unlockMigrations: () => {} };
  const store = storeOver(db, dialect, t, opts.tokenList ?? DEFAULT_TOKEN_LIST);
  try {
    if (opts.migrate !== false && !opts.readonly) await migrateStore(store, opts.onMigrationProgress);
  } catch (e) {
    await dialect.close().catch(() => {});
    throw e;
  } finally {
    unlockMigrations();
  }
  if (opts.readers && t.dialect === 'sqlite' && t.target !== ':memory:')
    store.readers = await startReaders(store, value, opts.readers, opts.readersMaxQueued ?? LIMITS.readerQueue.value);
  return store;
}

/** Least milliseconds between two write probes of one store (Store.probeWrite): a probe is a write, kept rare. */
export const WRITE_PROBE_INTERVAL_MS = 3_000;

/** The open store over `db`, with no reader threads yet and a cache of its own. */
function storeOver(db: Kysely<Database>, dialect: ReportingDialect, t: DbTarget, tokenList: TokenList): Store {
  let lastProbe = Number.NEGATIVE_INFINITY;
  const store: Store = {
    db,
    dialect: t.dialect,
    location: redactDbLocation(t),
    tokenList,
    readers: null,
    cache: new StoreCache(),
    ping: () => pingDatabase(db),
    writeOutage: () => dialect.writeOutage(),
    probeWrite: async () => {
      if (dialect.writeOutage() === null || performance.now() - lastProbe < WRITE_PROBE_INTERVAL_MS) return;
      lastProbe = performance.now();
      await probeWrite(db, t.dialect);
      dialect.writeSucceeded();
    },
    close: async () => {
      await store.readers?.close();
      // Through the dialect, so a query after close is a StoreUnavailable (./outage.ts).
      await dialect.close();
    },
  };
  return store;
}

/** `size` reader threads over the SQLite file `value`, each opening it read-only with the store's token list. */
async function startReaders(store: Store, value: string, size: number, maxQueued: number): Promise<ReaderPool> {
  // Imported lazily: only stores that serve heavy reads need the chain queries.
  const { runReaderTask } = await import('./chain/reader-tasks.js');
  const list = store.tokenList;
  const setup = { db: value, tokenList: { name: list.name, tokens: [...list.tokens.values()] } };
  return new ReaderPool(setup, size, maxQueued, (task) => runReaderTask(store, task));
}
