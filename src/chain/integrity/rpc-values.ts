/** Reading JSON-RPC values for the integrity checks: quantities and hex spellings (RLP items: ./rlp.ts). */

/** A hex string lower-cased for comparison (nodes may answer in either case); null for a non-string. */
export function lowerHex(v: unknown): string | null {
  return typeof v === 'string' ? v.toLowerCase() : null;
}
