/**
 * Benchmark stores holding exactly N synthetic observations (`paywatch seed`'s generator), seeded once and reused
 * by every benchmark that asks for the same N (bench/tmp/api-N.sqlite, database paywatch_bench_N); and prepared
 * blocks written in batches through the real writer (bench/payments.ts, bench/trust-payers.ts).
 */
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/store/db.js';
import { writePreparedBlocks } from '../../src/store/chain/index.js';
import type { PreparedBlock } from '../../src/store/chain/rows.js';
import { refreshPlannerStatistics } from '../../src/store/maintenance.js';
import { seedStore } from '../../src/seed/chain.js';
import { benchStore } from './db.js';

/**
 * The `--db` location of a store holding exactly `count` synthetic observations, seeding it when empty.
 * @returns the location and the seconds seeding took (null when the store was reused)
 * @throws Error when the store holds another number of rows (delete it and run again)
 */
export async function seededStore(dialect: 'sqlite' | 'postgres', count: number): Promise<{ db: string; seeded_s: number | null }> {
  const db = await benchStore(dialect, dialect === 'sqlite' ? `api-${count}` : `paywatch_bench_${count}`);
  const store = await openStore(db);
  const have = Number((await sql<{ n: number }>`select count(*) as n from observations`.execute(store.db)).rows[0].n);
  let seeded_s: number | null = null;
  if (have !== count) {
    if (have > 0) throw new Error(`${db} holds ${have} rows, not ${count}: delete it and run again`);
    process.stderr.write(`seeding ${count} observations into ${store.location}…\n`);
    const r = await seedStore(store, { count, onProgress: (n) => n % 100_000 < 5000 && process.stderr.write(`  ${n}\n`) });
    seeded_s = r.seconds;
  }
  if (dialect === 'postgres') await sql`analyze`.execute(store.db);
  await store.close();
  return { db, seeded_s };
}

/**
 * Writes `blocks` through the real writer (so the rollups are kept as the collector keeps them) in batches of about
 * `rowsPerBatch` observations, each batch with its last block as checkpoint, then refreshes the planner's statistics.
 * @returns seconds it took (wall)
 */
export async function writeBlocksBatched(store: Store, blocks: Iterable<PreparedBlock>, rowsPerBatch = 5000): Promise<number> {
  const t0 = Date.now();
  let batch: PreparedBlock[] = [];
  let rows = 0;
  for (const b of blocks) {
    batch.push(b);
    rows += b.observations.length;
    if (rows >= rowsPerBatch) {
      await writePreparedBlocks(store, batch, { height: b.height, hash: b.hash });
      batch = [];
      rows = 0;
    }
  }
  const last = batch[batch.length - 1];
  if (last) await writePreparedBlocks(store, batch, { height: last.height, hash: last.hash });
  await refreshPlannerStatistics(store);
  return (Date.now() - t0) / 1000;
}
