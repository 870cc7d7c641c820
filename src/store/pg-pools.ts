/**
 * The pg pool under each PostgreSQL store's Kysely handle, kept apart from ./postgres.ts so that asking (pool use
 * for /api/status, the read replica's failover) never loads node-postgres in a process whose store is SQLite.
 */
import type pg from 'pg';
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { Store } from './store.js';

const pgPools = new WeakMap<Kysely<Database>, pg.Pool>();

/** Records `pool` as the one under `db` (./postgres.ts openPostgres). */
export function registerPgPool(db: Kysely<Database>, pool: pg.Pool): void {
  pgPools.set(db, pool);
}

/** The pg pool under a PostgreSQL store opened by openStore, or undefined (SQLite). */
export function pgPoolOf(store: Store): pg.Pool | undefined {
  return pgPools.get(store.db);
}

/** Connections of a PostgreSQL store's pool: open, idle and requests waiting for one; null on SQLite. */
export function poolUse(store: Store): { total: number; idle: number; waiting: number } | null {
  const pool = pgPools.get(store.db);
  return pool ? { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } : null;
}
