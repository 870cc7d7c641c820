/**
 * Opening a SQLite store (better-sqlite3): the file in WAL mode with a busy timeout, its statements cached, and the
 * migration lock that keeps two processes from migrating one new file side by side.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  SqliteDialect,
  type SqliteDatabase as KyselySqliteDatabase,
} from 'kysely';
import type { Database } from './schema.js';
import { type ReportingDialect, reportingOutages } from './outage.js';
import { shortMessage } from '../domain/errors.js';
import { MigrationError, StoreOpenError } from './errors.js';

/**
 * Milliseconds a SQLite open waits for another process to finish migrating the same file: migrations of a new
 * store take well under a second, chain_0003 on an old store 6-10 s per million transactions (README).
 */
export const MIGRATION_LOCK_WAIT_MS = 120_000;

/**
 * Opens the SQLite file at `path` (or ':memory:'), creating its folder. Unless read-only or told not to migrate, it
 * first takes the file's migration lock, which the caller releases once migrated.
 * @returns the Kysely handle, its dialect (close the store through it: ./outage.ts) and the migration lock's release
 *   function (a no-op when none was taken)
 * @throws StoreOpenError when the file cannot be opened; MigrationError when the migration lock cannot be taken
 */
export async function openSqlite(
  path: string,
  opts: { migrate?: boolean; readonly?: boolean; migrationLockWaitMs?: number },
): Promise<{ db: Kysely<Database>; dialect: ReportingDialect; unlockMigrations: () => void }> {
  let unlockMigrations = () => {};
  if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  // Two processes opening one new file at once would otherwise run the same migrations side by side (Kysely's
  // SQLite migrator holds no lock and runs them outside one transaction); held until this open has migrated.
  if (opts.migrate !== false && !opts.readonly && path !== ':memory:')
    unlockMigrations = await lockSqliteMigrations(path, opts.migrationLockWaitMs ?? MIGRATION_LOCK_WAIT_MS);
  let sqlite: SqliteDatabase.Database;
  try {
    sqlite = new SqliteDatabase(path, { readonly: opts.readonly === true, fileMustExist: opts.readonly === true });
  } catch (e) {
    unlockMigrations();
    throw new StoreOpenError(`cannot open SQLite database ${path}: ${shortMessage(e)}`);
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
  const dialect = reportingOutages(new ImmediateSqliteDialect({ database: cachingStatements(sqlite) }));
  return { db: new Kysely<Database>({ dialect }), dialect, unlockMigrations };
}

/**
 * Kysely's SQLite dialect with every transaction begun `BEGIN IMMEDIATE` (the write lock taken at the start,
 * waiting up to busy_timeout for it) instead of a deferred `BEGIN`: a deferred transaction that reads, then
 * writes after another connection (the collector's writer thread, or the main one) committed, cannot upgrade its
 * old snapshot and fails at once with SQLITE_BUSY_SNAPSHOT, which busy_timeout does not wait out. The store's
 * transactions all write (reads run outside them), so taking the lock up front costs no concurrency.
 */
export class ImmediateSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection: DatabaseConnection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    return driver;
  }
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
        throw new MigrationError(`cannot take the migration lock ${lockPath}: ${shortMessage(e)}`);
    }
    if (Date.now() >= deadline) {
      throw new MigrationError(
        `another process has been migrating the SQLite store ${path} for over ${Math.round(waitMs / 1000)} s (lock ${lockPath}); retry once it has finished`,
      );
    }
    await new Promise((r) => setTimeout(r, 20 + Math.random() * 30));
  }
}
