/**
 * One collector writes a store at a time.
 *
 * - PostgreSQL: a session advisory lock (`pg_try_advisory_lock`) taken on one pooled connection that is held
 *   for the whole run; the server releases it when that session ends, including when the process is killed.
 * - SQLite: an exclusive lock on a small side file `<store>.collector-lock` (itself an SQLite database, locked
 *   with `BEGIN EXCLUSIVE`, i.e. an OS file lock). The OS drops it when the process dies, even by SIGKILL, so it
 *   can never stay stuck. The holder writes its pid to `<store>.collector-pid` so a second collector can say
 *   who holds it.
 */
import { PaywatchError } from '../../domain/errors.js';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { parseDbTarget, type Store } from '../db.js';
import { backoffDelayMs, sleep } from '../../net/backoff.js';

/** Advisory lock key: the first 8 bytes of sha256("paywatch collector") as a signed 64-bit integer. */
export const COLLECTOR_LOCK_KEY = '8076847201698392080';

/** Another process holds the collector lock on this store. */
export class CollectorLockedError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'collector_locked' });
  }
}

/** The lock was held, its session was lost, and another collector holds it now. */
export class CollectorLockLostError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'collector_lock_lost' });
  }
}

/** A held lock. `release()` is idempotent. */
export interface CollectorLock {
  release(): Promise<void>;
  /**
   * Resolves when this collector still holds the lock. On PostgreSQL the lock lives in one database session,
   * which a server restart or a dropped connection ends silently: then the lock is taken again in a new
   * session. On SQLite the lock is this process's open file transaction, which cannot be lost while it runs.
   * @throws CollectorLockLostError when the session was lost and another collector holds the lock now
   */
  assertHeld(): Promise<void>;
}

/**
 * Takes the collector lock of the store at `dbValue` (the same `--db` value the store was opened with).
 * Returns at once, never waits for the holder.
 * @throws CollectorLockedError ("another collector (pid N) holds the store …") when someone else holds it
 */
export async function acquireCollectorLock(store: Store, dbValue: string): Promise<CollectorLock> {
  const t = parseDbTarget(dbValue);
  if (t.dialect === 'postgres') return acquirePostgres(store);
  if (t.target === ':memory:') return { release: async () => {}, assertHeld: async () => {} };
  return acquireSqlite(t.target);
}

/** Milliseconds between a standby's tries of the PostgreSQL advisory lock (a takeover comes within about this). */
export const STANDBY_POLL_MS = 1000;

/**
 * Takes the collector lock, standing by while another collector holds it: on PostgreSQL it tries the advisory
 * lock every `pollMs` until the holder's session ends (the holder stops, dies, even by SIGKILL, or loses its
 * connection), so the standby takes over within about `pollMs` of the lock being released. On SQLite it does not
 * wait (one file, one writer) and throws as acquireCollectorLock does. An unreachable server is retried with
 * backoff (1 s doubling to `pollMs` × 5) while standing by.
 * @param opts.pollMs milliseconds between tries while the lock is held (default STANDBY_POLL_MS)
 * @param opts.onStandby called once, when the first try finds the lock held, with the holder's backend pid (or null)
 * @param opts.signal aborts the wait
 * @returns the held lock, or null when `signal` aborted the wait
 * @throws CollectorLockedError on SQLite when another collector holds the store
 */
export async function acquireOrStandBy(
  store: Store,
  dbValue: string,
  opts: { pollMs?: number; onStandby?: (holderPid: number | null) => void; signal?: AbortSignal } = {},
): Promise<CollectorLock | null> {
  const pollMs = opts.pollMs ?? STANDBY_POLL_MS;
  if (parseDbTarget(dbValue).dialect !== 'postgres') return acquireCollectorLock(store, dbValue);
  let standing = false;
  let failures = 0;
  while (!opts.signal?.aborted) {
    let wait = pollMs;
    try {
      const session = await pgSession(store);
      if (session.ok) {
        if (opts.signal?.aborted) {
          await session.end();
          return null;
        }
        return heldPostgres(store, session);
      }
      failures = 0;
      if (!standing) {
        standing = true;
        opts.onStandby?.(await pgHolder(store).catch(() => null));
      }
    } catch {
      // The server is unreachable (restarting, say): keep standing by, backing off.
      wait = backoffDelayMs(++failures, 1000, pollMs * 5);
    }
    await sleep(wait, opts.signal);
  }
  return null;
}

function acquireSqlite(path: string): CollectorLock {
  const lockPath = `${path}.collector-lock`;
  const pidPath = `${path}.collector-pid`;
  const db = new SqliteDatabase(lockPath);
  db.pragma('busy_timeout = 0');
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (e) {
    db.close();
    if ((e as { code?: string }).code !== 'SQLITE_BUSY') throw e;
    let holder = 'another process';
    try {
      const pid = Number.parseInt(readFileSync(pidPath, 'utf8'), 10);
      if (Number.isSafeInteger(pid)) holder = `pid ${pid}`;
    } catch {
      /* the holder has not written its pid yet */
    }
    throw new CollectorLockedError(
      `another collector (${holder}) holds the store sqlite:${path}; stop it first, or use serve to read the store`,
    );
  }
  writeFileSync(pidPath, `${process.pid}\n`);
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    process.off('exit', releaseSync);
    rmSync(pidPath, { force: true });
    db.close(); // ends the transaction and drops the file lock
  };
  const releaseSync = () => void release();
  process.on('exit', releaseSync);
  return { release, assertHeld: async () => {} };
}

/** One PostgreSQL session holding (or refused) the advisory lock. */
interface PgSession {
  ok: boolean;
  /** The holding session's backend pid (pg_backend_pid()), when ok. */
  pid: number | null;
  /** Unlocks and returns the pinned connection to the pool; never throws (a dead session has no lock to drop). */
  end(): Promise<void>;
}

/** Pins one pooled connection and tries the advisory lock in it; the session keeps it until `end()`. */
async function pgSession(store: Store): Promise<PgSession> {
  let got!: (r: { ok: boolean; pid: number | null }) => void;
  let failed!: (e: unknown) => void;
  const outcome = new Promise<{ ok: boolean; pid: number | null }>((res, rej) => {
    got = res;
    failed = rej;
  });
  let releaseSession!: () => void;
  const sessionEnd = new Promise<void>((r) => {
    releaseSession = r;
  });
  // db.connection() pins one pooled connection for the callback: the session that holds the lock.
  const held = store.db
    .connection()
    .execute(async (conn) => {
      const r = await sql<{
        ok: boolean;
        pid: number;
      }>`select pg_try_advisory_lock(${sql.lit(COLLECTOR_LOCK_KEY)}::bigint) as ok, pg_backend_pid() as pid`.execute(conn);
      const ok = r.rows[0]?.ok === true;
      got({ ok, pid: ok ? Number(r.rows[0]!.pid) : null });
      if (!ok) return;
      await sessionEnd;
      await sql`select pg_advisory_unlock(${sql.lit(COLLECTOR_LOCK_KEY)}::bigint)`.execute(conn);
    })
    .catch((e) => failed(e));
  const { ok, pid } = await outcome;
  return {
    ok,
    pid,
    end: async () => {
      releaseSession();
      await held.catch(() => {});
    },
  };
}

/** The backend pid of the session holding the collector lock in this database, or null when nobody holds it. */
async function pgHolder(store: Store): Promise<number | null> {
  const r = await sql<{ pid: number }>`
    select l.pid from pg_locks l
    where l.locktype = 'advisory' and l.granted and l.database = (select oid from pg_database where datname = current_database())
      and ((l.classid::bigint << 32) | l.objid::bigint) = ${sql.lit(COLLECTOR_LOCK_KEY)}::bigint`.execute(store.db);
  return r.rows[0] ? Number(r.rows[0].pid) : null;
}

const lockedMessage = (store: Store, pid: number | null) =>
  `another collector (PostgreSQL session pid ${pid ?? '?'}) holds the store ${store.location}; stop it first, or use serve to read the store`;

async function acquirePostgres(store: Store): Promise<CollectorLock> {
  const session = await pgSession(store);
  if (!session.ok) throw new CollectorLockedError(lockedMessage(store, await pgHolder(store)));
  return heldPostgres(store, session);
}

/** The lock held by `first`, a session that took it. */
function heldPostgres(store: Store, first: PgSession): CollectorLock {
  let session = first;
  let released = false;
  return {
    release: async () => {
      if (released) return;
      released = true;
      await session.end();
    },
    assertHeld: async () => {
      if (released) throw new CollectorLockLostError('the collector lock was released');
      if ((await pgHolder(store)) === session.pid) return;
      // Our session is gone (server restart, pg_terminate_backend, a dropped connection): take the lock again
      // unless another collector took it meanwhile.
      await session.end();
      session = await pgSession(store);
      if (!session.ok) throw new CollectorLockLostError(`lost the collector lock: ${lockedMessage(store, await pgHolder(store))}`);
    },
  };
}
