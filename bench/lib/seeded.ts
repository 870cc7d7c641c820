/**
 * Benchmark stores holding exactly N synthetic observations (`paywatch seed`'s generator), seeded once and reused
 * by every benchmark that asks for the same N (bench/tmp/api-N.sqlite, database paywatch_bench_N).
 */
import { sql } from 'kysely';
import { openStore } from '../../src/store/db.js';
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
