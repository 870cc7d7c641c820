/**
 * The metrics series sums its window in two keyset ranges (src/store/chain/series.ts): whatever the window and
 * wherever its middle falls (often inside a run of equal times), the answer equals a plain aggregation of the latest
 * `window` matches in the public order, on SQLite inline, on SQLite reader threads and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeSeries, writeBlocks, SERIES_BUCKET_SECONDS, type SeriesRequest } from '../../src/store/chain/index.js';
import { openStore, type Store } from '../../src/store/db.js';
import type { ReaderPool } from '../../src/store/chain/readers.js';
import { sumDecimals } from '../../src/domain/money.js';
import type { Observation } from '../../src/domain/observation.js';
import { createTestDb } from '../helpers/db.js';
import { makeBlocks, observationsOf, publicOrder } from '../helpers/observations.js';

const blocks = makeBlocks({ count: 1500, seed: 33, maxTxPerBlock: 12 });
const observations = observationsOf(blocks);
const last = blocks[blocks.length - 1]!;

/** What the series must say: the latest `window` matches aggregated row by row, independently of the store. */
function expected(store: Store, req: SeriesRequest, window: number, match: (o: Observation) => boolean) {
  const size = SERIES_BUCKET_SECONDS[req.bucket];
  const all = observations.filter((o) => o.time >= req.filters.since && o.time < req.filters.until && match(o)).sort(publicOrder);
  const kept = all.slice(0, window);
  const listed = (o: Observation) => (o.nominal_parts ?? []).filter((p) => store.tokenList.tokens.has(p.asset_contract));
  const byBucket = new Map<number, Observation[]>();
  for (const o of kept) byBucket.set(Math.floor(o.time / size), [...(byBucket.get(Math.floor(o.time / size)) ?? []), o]);
  const nominal = (os: Observation[]) =>
    sumDecimals(os.map((o) => (listed(o).length ? sumDecimals(listed(o).map((p) => p.amount)) : null)));
  return {
    total: all.length,
    analyzed: kept.length,
    analyzed_since: all.length > window ? kept.at(-1)!.time : null,
    buckets: [...byBucket]
      .sort(([a], [b]) => a - b)
      .map(([b, os]) => ({
        start: Math.max(req.filters.since, b * size),
        count: os.length,
        nominal: nominal(os),
        fees: sumDecimals(os.map((o) => o.fee)),
        failed: os.filter((o) => o.execution === 'failed').length,
      })),
  };
}

const stores: { name: string; store: Store; drop: () => Promise<void> }[] = [];

beforeAll(async () => {
  const sqlite = await createTestDb('sqlite');
  const writer = await openStore(sqlite.url);
  await writeBlocks(writer, blocks, { height: last.height, hash: last.hash });
  const threaded = await openStore(sqlite.url, { readers: 2 });
  await (threaded.readers as ReaderPool).whenReady();
  stores.push(
    { name: 'sqlite inline', store: writer, drop: async () => {} },
    { name: 'sqlite threads', store: threaded, drop: () => sqlite.drop() },
  );
  const pg = await createTestDb('postgres');
  const pgStore = await openStore(pg.url);
  await writeBlocks(pgStore, blocks, { height: last.height, hash: last.hash });
  stores.push({ name: 'postgres', store: pgStore, drop: () => pg.drop() });
}, 120_000);

afterAll(async () => {
  for (const s of stores) await s.store.close();
  for (const s of stores) await s.drop();
});

describe('metrics series over two keyset ranges', () => {
  it('equals a plain aggregation of the latest window matches, for every window size and where its middle falls', async () => {
    const since = blocks[0]!.time;
    const until = last.time + 1;
    const filters: [Record<string, string>, (o: Observation) => boolean][] = [
      [{}, () => true],
      [{ execution: 'failed' }, (o) => o.execution === 'failed'],
    ];
    for (const { name, store } of stores) {
      for (const [f, match] of filters) {
        for (const window of [1, 2, 7, 100, 1001, observations.length - 1, 50_000]) {
          const req: SeriesRequest = { filters: { ...f, since, until }, bucket: 'hour' };
          const s = await computeSeries(store, req, window);
          const want = expected(store, req, window, match);
          const got = {
            total: s.total,
            analyzed: s.analyzed,
            analyzed_since: s.analyzed_since,
            buckets: s.buckets
              .filter((b) => b.count > 0)
              .map((b) => ({ start: b.start, count: b.count, nominal: b.nominal, fees: b.fees, failed: b.execution.failed.count })),
          };
          expect(got, `${name} ${JSON.stringify(f)} window ${window}`).toEqual(want);
        }
      }
    }
    expect((stores[1]!.store.readers as ReaderPool).counts.inline).toBe(0);
  }, 120_000);
});
