/**
 * Statements over the whole database rather than one area's tables: the readiness ping, and the settings and
 * statistics of a bulk load (the seeders, src/seed/).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { Store } from './store.js';

/**
 * Runs a trivial query (`select 1`): resolves once the database answers.
 * @throws StoreUnavailable (./outage.ts) when it cannot answer; the driver's error otherwise
 */
export async function pingDatabase(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}

/**
 * Before a bulk load on SQLite: a 256 MiB page cache for this connection keeps the growing indexes in memory during
 * the load (SQLite's default is 2 MiB). Nothing on PostgreSQL.
 */
export async function widenPageCacheForBulkLoad(store: Store): Promise<void> {
  if (store.dialect === 'sqlite') await sql`pragma cache_size = -262144`.execute(store.db);
}

/**
 * After a bulk load: PostgreSQL needs VACUUM ANALYZE before it uses index-only scans (visibility map) and good
 * plans; SQLite's planner gets statistics from ANALYZE.
 */
export async function refreshPlannerStatistics(store: Store): Promise<void> {
  if (store.dialect === 'postgres') await sql`vacuum analyze observations, observation_details, leg_recipients`.execute(store.db);
  else await sql`analyze`.execute(store.db);
}
