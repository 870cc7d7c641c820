/** Reading JSON-RPC values for the integrity checks: quantities, hex spellings, RLP items. */
import { Hex } from 'ox';

/**
 * A JSON-RPC quantity (0x hex) as a number.
 * @returns null when `v` is not a quantity or exceeds Number.MAX_SAFE_INTEGER
 */
export function quantityOf(v: unknown): number | null {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]+$/.test(v)) return null;
  const n = Number.parseInt(v, 16);
  return Number.isSafeInteger(n) ? n : null;
}

/** A hex string lower-cased for comparison (nodes may answer in either case); null for a non-string. */
export function lowerHex(v: unknown): string | null {
  return typeof v === 'string' ? v.toLowerCase() : null;
}

/**
 * A JSON-RPC quantity as an RLP integer item: minimal big-endian bytes, zero as the empty string.
 * @throws SyntaxError when `v` is not an integer string
 */
export function rlpQuantity(v: string): Hex.Hex {
  const n = BigInt(v);
  return n === 0n ? '0x' : Hex.fromNumber(n);
}
