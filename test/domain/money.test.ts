import { describe, expect, it } from 'vitest';
import { addExact, DecimalSum, formatExact, InvalidDecimal, parseDecimal, sumDecimals, toDecimal } from '../../src/domain/money.js';

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
  it('parses once and adds parsed values exactly, at the larger scale', () => {
    expect(parseDecimal('-0.50')).toEqual({ n: -50n, scale: 2 });
    expect(parseDecimal('007')).toEqual({ n: 7n, scale: 0 });
    expect(formatExact(addExact(parseDecimal('1.25'), parseDecimal('-3')))).toBe('-1.75');
    expect(formatExact(addExact(parseDecimal('2'), parseDecimal('0.000000000000000001')))).toBe('2.000000000000000001');
    const s = new DecimalSum();
    s.addExact(parseDecimal('0.123456789012345678901234567890123456789'));
    s.addExact(null);
    s.add('1');
    expect([s.value(), s.count]).toEqual(['1.123456789012345678901234567890123456789', 2]);
    expect(() => parseDecimal('1e5')).toThrow(InvalidDecimal);
  });
  it('rejects non-decimals', () => {
    expect(() => sumDecimals(['1e5'])).toThrow(InvalidDecimal);
    expect(() => sumDecimals(['NaN'])).toThrow(InvalidDecimal);
  });
});
