import { describe, expect, it } from 'vitest';
import { DecimalSum, sumDecimals, toDecimal } from '../../src/domain/money.js';

describe('money', () => {
  it('formats atomic amounts canonically', () => {
    expect(toDecimal(1_500_000n, 6)).toBe('1.5');
    expect(toDecimal('0', 6)).toBe('0');
    expect(toDecimal(1n, 6)).toBe('0.000001');
    expect(toDecimal(10n ** 30n, 6)).toBe('1000000000000000000000000');
  });
  it('sums exactly where floats would not', () => {
    expect(sumDecimals(['0.1', '0.2'])).toBe('0.3');
    expect(sumDecimals(['1', '2.50', null, '-0.5'])).toBe('3');
    expect(sumDecimals([null, undefined])).toBeNull();
    const s = new DecimalSum();
    for (let i = 0; i < 10; i++) s.add('0.1');
    expect(s.value()).toBe('1');
    expect(s.count).toBe(10);
  });
  it('rejects non-decimals', () => {
    expect(() => sumDecimals(['1e5'])).toThrow(TypeError);
    expect(() => sumDecimals(['NaN'])).toThrow(TypeError);
  });
});
