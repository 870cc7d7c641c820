/**
 * Opens the store: SQLite (better-sqlite3, the embedded default) or PostgreSQL (pg), chosen by the URL.
 * The store is the only place with SQL (docs/architecture.md).
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type SqliteDatabase as KyselySqliteDatabase } from 'kysely';
import type { Database } from './schema.js';
import type { DialectName } from './dialect.js';
import { reportingOutages } from './outage.js';
import type { Store } from './store.js';
import { migrationProvider } from './migrations/index.js';
import { namingPool } from './prepared.js';
import { DEFAULT_TOKEN_LIST, type TokenList } from '../domain/token-list.js';
import { ReaderPool, } from './chain/readers.js';
import { StoreCache } from './cache.js';
import { PaywatchError } from '../domain/errors.js';

export type { DialectName } from './dialect.js';

export type { Store } from './store.js';

/** The store cannot be opened or reached (a SQLite file that cannot be opened, a PostgreSQL server that does not answer). */
export class StoreOpenError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'store_unavailable', retryable: true });
  }
}

/** Migrating the store failed, or another process held its migration lock too long. */
export class MigrationError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'migration' });
  }
}

/** Parsed form of a `--db` value. */
export interface DbTarget {
  dialect: DialectName;
  /** File path for SQLite (or ':memory:'), connection string for PostgreSQL. */
  target: string;
}

/**
 * Parses a `--db` / PAYWATCH_DB value: `postgres://…` or `postgresql://…` selects PostgreSQL;
 * `sqlite:PATH` or a bare path selects SQLite.
 * @throws TypeError on an empty value
 */
export function parseDbTarget(value: string): DbTarget {
  const v = value.trim();
  if (!v) throw new TypeError('database location is empty');
  if (/^postgres(ql)?:\/\//i.test(v)) return { dialect: 'postgres', target: v };
  const path = v.startsWith('sqlite:') ? v.slice('sqlite:'.length) : v;
  if (!path) throw new TypeError('sqlite: needs a path');
  return { dialect: 'sqlite', target: path };
}

/** Removes the password from a connection string for display. */
export function redactDbLocation(t: DbTarget): string {
  if (t.dialect === 'sqlite') return `sqlite:${t.target}`;
  try {
    const u = new URL(t.target);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparseable)';
  }
}

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
  /** Heavy reads waiting or running at most on the reader threads before a 503 (default 32). */
  readersMaxQueued?: number;
  /** Milliseconds a SQLite open waits for another process migrating the same file (default MIGRATION_LOCK_WAIT_MS). */
  migrationLockWaitMs?: number;
}

/**
 * Milliseconds a SQLite open waits for another process to finish migrating the same file: migrations of a new
 * store take well under a second, chain_0003 on an old store 6-10 s per million transactions (README).
 */
export const MIGRATION_LOCK_WAIT_MS = 120_000;

/**
 * Opens (and by default migrates) the store at `value`.
 * SQLite runs in WAL mode with a busy timeout, so one writer and many readers share the file safely,
 * and a crash of the process loses no committed transaction.
 * @throws Error with a one-line message when the database cannot be opened or reached
 */
export async function openStore(value: string, opts: OpenStoreOptions = {}): Promise<Store> {
  const t = parseDbTarget(value);
  let db: Kysely<Database>;
  let unlockMigrations = () => {};
  if (t.dialect === 'sqlite') {
    if (t.target !== ':memory:') mkdirSync(dirname(resolve(t.target)), { recursive: true });
    // Two processes opening one new file at once would otherwise run the same migrations side by side (Kysely's
    // SQLite migrator holds no lock and runs them outside one transaction); held until this open has migrated.
    if (opts.migrate !== false && !opts.readonly && t.target !== ':memory:')
      unlockMigrations = await lockSqliteMigrations(t.target, opts.migrationLockWaitMs ?? MIGRATION_LOCK_WAIT_MS);
    let sqlite: SqliteDatabase.Database;
    try {
      sqlite = new SqliteDatabase(t.target, { readonly: opts.readonly === true, fileMustExist: opts.readonly === true });
    } catch (e) {
      unlockMigrations();
      throw new StoreOpenError(`cannot open SQLite database ${t.target}: ${(e as Error).message}`);
    }
    // 16 KiB pages (takes effect on a new file only): an observation's detail (~3 kB of JSON) no longer fills a
    // 4 KiB page alone, so the collector writes about a third fewer bytes per transaction.
    if (!opts.readonly) {
      sqlite.pragma('page_size = 16384');
      sqlite.pragma('journal_mode = WAL');
      sqlite.pragma('synchronous = NORMAL');
    }
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    db = new Kysely<Database>({ dialect: reportingOutages(new SqliteDialect({ database: cachingStatements(sqlite) })) });
  } else {
    const pool = new pg.Pool({ connectionString: t.target, max: opts.poolSize ?? 10, connectionTimeoutMillis: 5000 });
    // A client that loses its server must not crash the process, idle (the pool's 'error') or checked out (the
    // client's own 'error', e.g. the collector lock's pinned session): the query in flight, or the next one,
    // reports it, and the pool drops the broken client when it is released.
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    try {
      const c = await pool.connect();
      c.release();
    } catch (e) {
      await pool.end().catch(() => {});
      throw new StoreOpenError(`cannot reach PostgreSQL at ${redactDbLocation(t)}: ${(e as Error).message}`);
    }
    db = new Kysely<Database>({ dialect: reportingOutages(new PostgresDialect({ pool: namingPool(pool) })) });
    pgPools.set(db, pool);
  }
  const tokenList = opts.tokenList ?? DEFAULT_TOKEN_LIST;
  const store: Store = {
    db,
    dialect: t.dialect,
    location: redactDbLocation(t),
    tokenList,
    readers: null,
    cache: new StoreCache(),
    close: async () => {
      await store.readers?.close();
      await db.destroy();
    },
  };
  try {
    if (opts.migrate !== false && !opts.readonly) await migrateStore(store);
  } catch (e) {
    await db.destroy().catch(() => {});
    throw e;
  } finally {
    unlockMigrations();
  }
  if (opts.readers && t.dialect === 'sqlite' && t.target !== ':memory:') {
    // Imported lazily: only stores that serve heavy reads need the chain queries.
    const { runReaderTask } = await import('./chain/index.js');
    const setup = { db: value, tokenList: { name: tokenList.name, tokens: [...tokenList.tokens.values()] } };
    store.readers = new ReaderPool(setup, opts.readers, opts.readersMaxQueued ?? 32, (task) => runReaderTask(store, task));
  }
  return store;
}

/** Prepared statements kept per SQLite store at most (least recently used dropped first). */
export const STATEMENT_CACHE_SIZE = 500;

/**
 * The better-sqlite3 database as Kysely's SqliteDialect sees it, with `prepare` answering from a bounded LRU
 * cache of statements keyed by SQL text: Kysely prepares on every query, and preparing (parsing and planning
 * the SQL) costs about as much as running a small statement. Safe because Kysely runs one query at a time on
 * its single SQLite connection and every run resets the statement; a cached statement that is still busy (an
 * unfinished `iterate`) is never handed out twice, a fresh one is prepared instead. SQLite re-plans cached
 * statements itself after a schema change. `close` empties the cache and closes the database (which
 * finalizes every statement).
 * @param max statements kept at most
 */
export function cachingStatements(sqlite: SqliteDatabase.Database, max = STATEMENT_CACHE_SIZE): KyselySqliteDatabase {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    prepare(sql: string) {
      const hit = cache.get(sql);
      if (hit) {
        if (hit.busy) return sqlite.prepare(sql);
        // Map order is insertion order: re-inserting marks the entry as the most recently used.
        cache.delete(sql);
        cache.set(sql, hit);
        return hit;
      }
      const stmt = sqlite.prepare(sql);
      cache.set(sql, stmt);
      if (cache.size > max) cache.delete(cache.keys().next().value!);
      return stmt;
    },
    close() {
      cache.clear();
      sqlite.close();
    },
  };
}

/** The pg pool under each PostgreSQL store's Kysely handle (pool use, the read replica's failover). */
const pgPools = new WeakMap<Kysely<Database>, pg.Pool>();

/** The pg pool under a PostgreSQL store opened by openStore, or undefined (SQLite). */
export function pgPoolOf(store: Store): pg.Pool | undefined {
  return pgPools.get(store.db);
}

/** Connections of a PostgreSQL store's pool: open, idle and requests waiting for one; null on SQLite. */
export function poolUse(store: Store): { total: number; idle: number; waiting: number } | null {
  const pool = pgPools.get(store.db);
  return pool ? { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } : null;
}

/**
 * Takes the migration lock of the SQLite file at `path`: an exclusive SQLite lock (`BEGIN EXCLUSIVE`, an OS file
 * lock the OS drops when the holder dies, even by SIGKILL) on the side file `<path>.migrate-lock`, as the collector
 * lock does (./chain/collector-lock.ts). Polls without blocking the event loop, since better-sqlite3's own busy wait
 * would stall the whole process.
 * @param waitMs how long to wait for another holder
 * @returns the release function (idempotent)
 * @throws Error (one line) when another process still holds the lock after `waitMs`, or the side file cannot be opened
 */
export async function lockSqliteMigrations(path: string, waitMs: number): Promise<() => void> {
  const lockPath = `${path}.migrate-lock`;
  const deadline = Date.now() + waitMs;
  for (;;) {
    let lock: SqliteDatabase.Database | undefined;
    try {
      lock = new SqliteDatabase(lockPath, { timeout: 0 });
      lock.exec('BEGIN EXCLUSIVE');
      const held = lock;
      return () => {
        if (held.open) held.close(); // ends the transaction and drops the file lock
      };
    } catch (e) {
      lock?.close();
      if ((e as { code?: string }).code !== 'SQLITE_BUSY')
        throw new MigrationError(`cannot take the migration lock ${lockPath}: ${(e as Error).message}`);
    }
    if (Date.now() >= deadline) {
      throw new MigrationError(
        `another process has been migrating the SQLite store ${path} for over ${Math.round(waitMs / 1000)} s (lock ${lockPath}); retry once it has finished`,
      );
    }
    await new Promise((r) => setTimeout(r, 20 + Math.random() * 30));
  }
}

/**
 * Applies every pending migration of every area. Callers on a SQLite file hold its migration lock
 * (lockSqliteMigrations; openStore does), since Kysely's SQLite migrator takes none.
 * @throws Error naming the failed migration
 */
export async function migrateStore(store: Store): Promise<void> {
  const migrator = new Migrator({ db: store.db, provider: migrationProvider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new MigrationError(`migration ${failed?.migrationName ?? '?'} failed: ${(error as Error).message ?? error}`);
  }
}
