/**
 * The rollups' integer amount columns: sums stay exact decimals, amounts the columns cannot hold (18+ fraction
 * digits, 10^15 whole units or more) go to `big`, and removing what was added leaves zero.
 */
import { describe, expect, it } from 'vitest';
import { formatExact, parseDecimal } from '../../src/domain/money.js';
import { addAmount, amountOf, zeroAmount } from '../../src/store/chain/rollup-amounts.js';

const total = (xs: string[], sign: 1 | -1 = 1) => {
  const a = zeroAmount();
  for (const x of xs) addAmount(a, parseDecimal(x), sign);
  return a;
};
const show = (a: ReturnType<typeof zeroAmount>) => formatExact(amountOf(a.whole, a.frac_hi, a.frac_lo, [a.big])!);

describe('rollup amount columns', () => {
  it('sums amounts of up to 18 fraction digits exactly in the integer columns', () => {
    const a = total(['0.1', '0.2', '123.000001', '0.000000000000000001', '999999999999999']);
    expect(a.big).toBeNull();
    expect(show(a)).toBe('1000000000000122.300001000000000001');
    // What SQL sums: the columns of several rows added as integers.
    const b = total(['0.999999999999999999']);
    expect(formatExact(amountOf(a.whole + b.whole, a.frac_hi + b.frac_hi, a.frac_lo + b.frac_lo)!)).toBe('1000000000000123.300001');
  });

  it('keeps what the columns cannot hold in big, exactly', () => {
    const a = total(['1000000000000000', '0.0000000000000000001', '2.5']);
    expect(a.big).toBe('1000000000000000.0000000000000000001');
    expect(a.whole).toBe(2);
    expect(show(a)).toBe('1000000000000002.5000000000000000001');
  });

  it('removal of what was added leaves zero', () => {
    const xs = ['1.5', '1000000000000000', '0.0000000000000000001'];
    const a = total(xs);
    for (const x of xs) addAmount(a, parseDecimal(x), -1);
    expect([a.whole, a.frac_hi, a.frac_lo]).toEqual([0, 0, 0]);
    expect(parseDecimal(a.big!).n).toBe(0n);
  });

  it('is null when no row had a listed part', () => {
    expect(amountOf(null, null, null)).toBeNull();
  });
});
