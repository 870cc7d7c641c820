/**
 * The per-pair upper bounds behind a ranking's exact top payer (src/store/chain/payer-pairs.ts): hostile amounts
 * (any size, negative) never overflow or lower a bound, and a pair whose amounts are too large to bound is always
 * read, so the largest payer is exact whatever a token claims.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { parseDecimal, type ExactDecimal } from '../../src/domain/money.js';
import { adjustPairTotals, largestPayerSums, partBound } from '../../src/store/chain/payer-pairs.js';
import { DIALECTS, storeFactory } from '../helpers/db.js';

describe('partBound', () => {
  it.each([
    ['0.0000001', 1n, 0], // rounded up: a bound is never below the amount
    ['0.000001', 1n, 0],
    ['1.5', 1_500_000n, 0],
    ['999999.999999', 999_999_999_999n, 0],
    ['1000000', 0n, 1], // from 10^6 units on: no bound, counted in huge
    ['1'.padEnd(80, '0'), 0n, 1], // a hostile token's absurd amount
    ['-5', 0n, 0],
    ['0', 0n, 0],
  ])('%s → bound %s, huge %s', (amount, bound, huge) => {
    expect(partBound(parseDecimal(amount))).toEqual({ bound, huge });
  });
});

describe.each(DIALECTS)('largestPayerSums on %s', (dialect) => {
  const stores = storeFactory(dialect);
  afterAll(() => stores.cleanup());

  it('reads a pair without a bound (huge) whatever the bounds before it, and stops at a bound below the best sum', async () => {
    const s = await stores.fresh();
    const S = 's'.repeat(64);
    // Six bounded payers, then a hostile one whose only payment is too large to bound.
    const pairs = [
      ...Array.from({ length: 6 }, (_, i) => ({ dim: 'service', subject: S, payer: `p${i}`, bound: BigInt(6 - i) * 1_000_000n, huge: 0 })),
      { dim: 'service', subject: S, payer: 'whale', bound: 0n, huge: 1 },
    ];
    await adjustPairTotals(s.db, pairs);
    const window = new Map<string, ExactDecimal | null>([
      [`${S}|whale`, parseDecimal('1'.padEnd(40, '0'))],
      [`${S}|p0`, parseDecimal('6')],
      [`${S}|p1`, parseDecimal('5')],
    ]);
    const asked: string[] = [];
    const best = await largestPayerSums(s.db, 'service', [S], async (ps) => {
      asked.push(...ps.map((p) => p.payer));
      return new Map(ps.map((p) => [`${p.subject}|${p.payer}`, window.get(`${p.subject}|${p.payer}`) ?? null]));
    });
    expect(best.get(S)).toEqual(parseDecimal('1'.padEnd(40, '0')));
    // The huge pair sorts first; the walk stops once a bound is at most the best sum, never reading all six.
    expect(asked[0]).toBe('whale');
    expect(asked.length).toBeLessThan(pairs.length);
  });
});
