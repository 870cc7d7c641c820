/**
 * Remembered answers are bounded by the bytes they hold, not by their number: many large answers stay under the
 * budget (least recently used go first), small ones are all kept, and a failed computation is not remembered.
 */
import { describe, expect, it } from 'vitest';
import { approxHeapBytes, VersionMemo } from '../../src/store/chain/memo.js';

const stats = { count: 1, ordered: true, newestBlockTime: null, updatedAt: 'v1' };
const page = (i: number) => ({ rows: Array.from({ length: 100 }, (_, j) => ({ i, j, text: 'x'.repeat(200) })) });

describe('VersionMemo', () => {
  it('keeps at most its byte budget of large answers, dropping the least recently used', async () => {
    const memo = new VersionMemo<ReturnType<typeof page>>(1024 * 1024);
    const one = approxHeapBytes(page(0));
    expect(one).toBeGreaterThan(80_000);
    for (let i = 0; i < 100; i++) await memo.get(stats, `p${i}`, async () => page(i));
    await new Promise((r) => setImmediate(r));
    expect(memo.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(memo.bytes).toBeGreaterThan(1024 * 1024 - 2 * one);
    let recomputed = 0;
    await memo.get(stats, 'p0', async () => (recomputed++, page(0)));
    await memo.get(stats, 'p99', async () => (recomputed++, page(99)));
    expect(recomputed).toBe(1); // p0 was evicted, p99 is still there
  });

  it('keeps every small answer, shares one computation between concurrent callers, forgets failures', async () => {
    const memo = new VersionMemo<number>(1024 * 1024);
    let runs = 0;
    const [a, b] = await Promise.all([memo.get(stats, 'n', async () => ++runs), memo.get(stats, 'n', async () => ++runs)]);
    expect([a, b, runs]).toEqual([1, 1, 1]);
    await expect(memo.get(stats, 'bad', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    await new Promise((r) => setImmediate(r));
    expect(await memo.get(stats, 'bad', async () => 7)).toBe(7);
    expect(await memo.get({ ...stats, updatedAt: 'v2' }, 'n', async () => 42)).toBe(42);
  });
});
