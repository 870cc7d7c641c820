/** Opening a PostgreSQL store (pg): a pool whose broken clients never crash the process, its statements named. */
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from './schema.js';
import type { Store } from './store.js';
import { type ReportingDialect, reportingOutages } from './outage.js';
import { shortMessage } from '../domain/errors.js';
import { namingPool } from './prepared.js';
import { StoreOpenError } from './errors.js';
import { redactDbLocation, type DbTarget } from './target.js';

/**
 * Session option of every pool: JIT compilation off. Our statements are short reads whose estimated cost crosses
 * jit_above_cost, and compiling them costs more than their execution (docs/decisions.md).
 */
export const NO_JIT = '-c jit=off';

/**
 * Opens a pool to the PostgreSQL server of `t` and checks that it answers.
 * @param poolSize connections at most (default 10)
 * @returns the Kysely handle and its dialect (close the store through it: ./outage.ts)
 * @throws StoreOpenError when the server does not answer
 */
export async function openPostgres(t: DbTarget, poolSize = 10): Promise<{ db: Kysely<Database>; dialect: ReportingDialect }> {
  const pool = new pg.Pool({ connectionString: t.target, max: poolSize, connectionTimeoutMillis: 5000, options: NO_JIT });
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
    throw new StoreOpenError(`cannot reach PostgreSQL at ${redactDbLocation(t)}: ${shortMessage(e)}`);
  }
  const dialect = reportingOutages(new PostgresDialect({ pool: namingPool(pool) }));
  const db = new Kysely<Database>({ dialect });
  pgPools.set(db, pool);
  return { db, dialect };
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
