/** The one JSON-RPC quantity reader (src/chain/quantity.ts): strict hex for numbers, lenient spellings for bigints. */
import { describe, expect, it } from 'vitest';
import { quantityBigInt, quantityNumber } from '../../src/chain/quantity.js';
import { quantity } from '../../src/chain/rpc.js';

describe('quantities', () => {
  it('reads 0x hex as a safe integer, and nothing else', () => {
    expect(quantityNumber('0x10')).toBe(16);
    expect(quantityNumber('0xFF')).toBe(255);
    expect(quantityNumber('0x1fffffffffffff')).toBe(Number.MAX_SAFE_INTEGER);
    for (const bad of ['0x20000000000000', '16', '0x', 'x10', 16, null, undefined, '0x1g'])
      expect(quantityNumber(bad), String(bad)).toBeNull();
  });

  it('reads hex, decimal strings, safe integers and bigints as bigint', () => {
    expect(quantityBigInt('0xde0b6b3a7640000')).toBe(10n ** 18n);
    expect(quantityBigInt('1000')).toBe(1000n);
    expect(quantityBigInt(7)).toBe(7n);
    expect(quantityBigInt(5n)).toBe(5n);
    for (const bad of ['-1', '1.5', '0x', 1.5, null, {}]) expect(quantityBigInt(bad), String(bad)).toBeNull();
  });

  it("throws the RPC client's error for a node's malformed quantity", () => {
    expect(quantity('eth_chainId', '0x1079')).toBe(4217);
    expect(() => quantity('eth_chainId', '4217')).toThrow(/expected a hex quantity/);
  });
});
