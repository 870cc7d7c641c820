/**
 * The store's cache (src/store/cache.ts): regions bounded by the bytes they hold, not by their number; concurrent
 * callers share one computation and failures are forgotten; and the one invalidation rule, the store version,
 * holds end to end: a write through the store is seen by the very next read of every region.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { approxHeapBytes, CacheRegion, chainVersionKey, StoreCache, STATS_REUSE_MS } from '../../src/store/cache.js';
import type { ChainStats } from '../../src/store/chain/answers.js';
import { computeMetrics, computeSeries, listTransactions, writeBlocks } from '../../src/store/chain/index.js';
import { finishCollectRun, startCollectRun, upsertService } from '../../src/store/intel/index.js';
import { searchProviders } from '../../src/intel/queries.js';
import { transactionDetail } from '../../src/chain/queries.js';
import { NotFound } from '../../src/domain/errors.js';
import { ProvidersQuery } from '../../src/intel/schemas.js';
import { DIALECTS, storeFactory } from '../helpers/db.js';
import { makeBlocks } from '../helpers/observations.js';

const stats: ChainStats = { count: 1, ordered: true, newestBlockTime: null, updatedAt: 'v1' };
const page = (i: number) => ({ rows: Array.from({ length: 100 }, (_, j) => ({ i, j, text: 'x'.repeat(200) })) });
const settle = () => new Promise((r) => setImmediate(r));

describe('CacheRegion', () => {
  it('keeps at most its byte budget of large answers, dropping the least recently used', async () => {
    const region = new CacheRegion<ReturnType<typeof page>, ChainStats>(1024 * 1024, chainVersionKey);
    const one = approxHeapBytes(page(0));
    expect(one).toBeGreaterThan(80_000);
    for (let i = 0; i < 100; i++) await region.get(stats, `p${i}`, async () => page(i));
    await settle();
    expect(region.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(region.bytes).toBeGreaterThan(1024 * 1024 - 2 * one);
    let recomputed = 0;
    const recompute = async (n: number) => {
      recomputed++;
      return page(n);
    };
    await region.get(stats, 'p0', () => recompute(0));
    await region.get(stats, 'p99', () => recompute(99));
    expect(recomputed).toBe(1); // p0 was evicted, p99 is still there
  });

  it('keeps every small answer, shares one computation between concurrent callers, forgets failures', async () => {
    const region = new CacheRegion<number, ChainStats>(1024 * 1024, chainVersionKey);
    let runs = 0;
    const [a, b] = await Promise.all([region.get(stats, 'n', async () => ++runs), region.get(stats, 'n', async () => ++runs)]);
    expect([a, b, runs]).toEqual([1, 1, 1]);
    await expect(region.get(stats, 'bad', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    await settle();
    expect(await region.get(stats, 'bad', async () => 7)).toBe(7);
    expect(await region.get(stats, 'n', async () => 99)).toBe(1);
  });

  it('never serves an answer of another version', async () => {
    const region = new CacheRegion<number, ChainStats>(1024 * 1024, chainVersionKey);
    await region.get(stats, 'n', async () => 1);
    expect(await region.get({ ...stats, updatedAt: 'v2' }, 'n', async () => 2)).toBe(2);
    expect(await region.get({ ...stats, count: 2 }, 'n', async () => 3)).toBe(3);
  });

  it('keeps an answer at most ttlMs after its computation started', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 0 });
    try {
      const region = new CacheRegion<number, number>(1024 * 1024, String, { ttlMs: 5000 });
      await region.get(0, 'k', async () => 1);
      vi.setSystemTime(4999);
      expect(await region.get(0, 'k', async () => 2)).toBe(1);
      vi.setSystemTime(5000);
      expect(await region.get(0, 'k', async () => 3)).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('StoreCache', () => {
  it('reuses a read of the chain version for STATS_REUSE_MS, and drops it on a write', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 0 });
    try {
      const cache = new StoreCache();
      let reads = 0;
      const read = async () => ({ ...stats, count: ++reads });
      expect((await cache.chainVersion(read)).count).toBe(1);
      vi.setSystemTime(STATS_REUSE_MS - 1);
      expect((await cache.chainVersion(read)).count).toBe(1);
      cache.chainWritten();
      expect((await cache.chainVersion(read)).count).toBe(2);
      vi.setSystemTime(2 * STATS_REUSE_MS);
      expect((await cache.chainVersion(read)).count).toBe(3);
      await expect(cache.chainVersion(() => Promise.reject(new Error('down')))).resolves.toMatchObject({ count: 3 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('forgets a failed read of the chain version', async () => {
    const cache = new StoreCache();
    await expect(cache.chainVersion(() => Promise.reject(new Error('down')))).rejects.toThrow('down');
    await settle();
    expect(await cache.chainVersion(async () => stats)).toBe(stats);
  });

  it('moves the intel version on every intel write', async () => {
    const cache = new StoreCache();
    expect(await cache.intelAnswer('k', async () => 1)).toBe(1);
    expect(await cache.intelAnswer('k', async () => 2)).toBe(1);
    cache.intelWritten();
    expect(await cache.intelAnswer('k', async () => 3)).toBe(3);
  });
});

describe.each(DIALECTS)('a write through the store invalidates its remembered answers at once (%s)', (dialect) => {
  const stores = storeFactory(dialect);
  afterAll(() => stores.cleanup());
  const blocks = makeBlocks({ count: 40, seed: 5 });
  const observations = blocks.flatMap((b) => b.observations);
  const sender = observations.find((o) => o.sender)!.sender!;
  const half = Math.floor(blocks.length / 2);
  const since = Math.min(...observations.map((o) => o.time));
  const until = Math.max(...observations.map((o) => o.time)) + 1;

  it('pages, filtered totals, metrics and series', async () => {
    const s = await stores.fresh();
    const read = async () => {
      const all = await listTransactions(s, {}, { limit: 100, offset: 0 });
      const filtered = await listTransactions(s, { q: sender }, { limit: 100, offset: 0 });
      const metrics = await computeMetrics(s, {});
      const series = await computeSeries(s, { filters: { since, until }, bucket: 'day' });
      return { all: all.total, filtered: filtered.total, metrics: metrics.total, series: series.total };
    };
    await writeBlocks(s, blocks.slice(0, half), { height: blocks[half - 1].height, hash: blocks[half - 1].hash });
    const before = await read();
    expect(await read()).toEqual(before);
    await writeBlocks(s, blocks.slice(half), { height: blocks.at(-1)!.height, hash: blocks.at(-1)!.hash });
    const after = await read(); // at once: well within STATS_REUSE_MS of the reads before the write
    const matches = observations.filter((o) => o.sender === sender || o.recipient === sender).length;
    expect(after).toEqual({ all: 40, filtered: matches, metrics: 40, series: 40 });
    expect(before.all).toBeLessThan(40);
  });

  it('transaction details: a recorded one is kept as one object, an unrecorded one is never kept', async () => {
    const s = await stores.fresh();
    const late = blocks.at(-1)!;
    const hash = late.observations[0].hash;
    await writeBlocks(s, blocks.slice(0, -1), { height: blocks.at(-2)!.height, hash: blocks.at(-2)!.hash });
    await expect(transactionDetail(s, hash)).rejects.toBeInstanceOf(NotFound);
    await writeBlocks(s, [late], { height: late.height, hash: late.hash });
    const first = await transactionDetail(s, hash.toUpperCase().replace('0X', '0x'));
    expect(first.hash).toBe(hash);
    expect(await transactionDetail(s, hash)).toBe(first);
  });

  it('intel listings', async () => {
    const s = await stores.fresh();
    const q = ProvidersQuery.parse({ include_stale: true });
    const opts = { staleAfterDays: 3650, now: new Date('2026-02-01T00:00:00Z') };
    const sighting = (domain: string) => ({
      service_id: `svc-${domain}`,
      domain,
      method: 'GET',
      url: `https://${domain}/x`,
      tool: null,
      description: null,
      source: 'test',
      seen_at: '2026-01-01T00:00:00Z',
    });
    await upsertService(s, sighting('one.example'));
    // Provider search answers only once a collection run has finished (src/intel/queries.ts).
    await finishCollectRun(s, await startCollectRun(s), { services: 1, snapshots: 0, changes: 0, error: null });
    const before = await searchProviders(s, q, opts);
    expect(await searchProviders(s, q, opts)).toBe(before); // remembered: the same answer object
    await upsertService(s, sighting('two.example'));
    expect((await searchProviders(s, q, opts)).total).toBe(before.total + 1);
  });
});
