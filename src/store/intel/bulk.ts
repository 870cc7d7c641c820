/**
 * Bulk writes of whole intel rows for the synthetic seeder (src/seed/intel.ts): multi-row inserts in one transaction
 * per chunk, far faster than the collector's per-snapshot writes (./write.ts). Rows come from the store's own row
 * mappers (./rows.ts), so seeded rows have exactly the stored form of collected ones.
 */
import type { Insertable } from 'kysely';
import type { Store } from '../store.js';
import type { Database } from '../schema.js';
import type { IntelCollectRunRow, IntelSourceRow } from '../tables/intel.js';

/** The intel tables the seeder fills row by row, in the order their rows are written (parents first). */
const SEEDED_TABLES = [
  'intel_providers',
  'intel_services',
  'intel_snapshots',
  'intel_offers',
  'intel_changes',
  'intel_source_answers',
] as const;
type SeededTable = (typeof SEEDED_TABLES)[number];

/** Rows of one seeded chunk, by table (without generated ids). */
export type IntelRows = { [T in SeededTable]: Insertable<Database[T]>[] };

/** An empty chunk of rows to fill. */
export function emptyIntelRows(): IntelRows {
  return { intel_providers: [], intel_services: [], intel_snapshots: [], intel_offers: [], intel_changes: [], intel_source_answers: [] };
}

/** Bound values per multi-row insert at most (under SQLite's and PostgreSQL's limits). */
const MAX_BOUND_VALUES = 30_000;

/**
 * Inserts one chunk of rows in one transaction, parents first, in multi-row statements of at most ~30,000 bound
 * values.
 * @throws the driver's error when a row's key already exists (seed an empty store); nothing of the chunk is written
 */
export async function insertIntelRows(store: Store, rows: IntelRows): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    for (const table of SEEDED_TABLES) {
      const all: Insertable<Database[SeededTable]>[] = rows[table];
      if (!all.length) continue;
      const per = Math.max(1, Math.floor(MAX_BOUND_VALUES / Object.keys(all[0]).length));
      for (let i = 0; i < all.length; i += per)
        await tx
          .insertInto(table)
          .values(all.slice(i, i + per))
          .execute();
    }
  });
}

/**
 * Records a source and one finished collection run in one transaction (written last by the seeder: a store with a
 * finished run was seeded whole).
 */
export async function insertSourceAndRun(
  store: Store,
  source: Insertable<IntelSourceRow>,
  run: Insertable<IntelCollectRunRow>,
): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    await tx.insertInto('intel_sources').values(source).execute();
    await tx.insertInto('intel_collect_runs').values(run).execute();
  });
}
