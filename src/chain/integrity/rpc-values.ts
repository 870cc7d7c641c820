/** Reading JSON-RPC values for the integrity checks: quantities and hex spellings (RLP items: ./rlp.ts). */

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
