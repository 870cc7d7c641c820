/**
 * JSON-RPC quantities, read one way everywhere: hex with a 0x prefix (Ethereum JSON-RPC specification,
 * "Quantities"), any case. The number form is strict (what a node must send); the bigint form also takes decimal
 * strings and safe integers, the spellings of recorded or normalised JSON the decoder reads.
 */

const HEX_QUANTITY = /^0x[0-9a-f]+$/i;

/**
 * A 0x quantity as a safe integer (block heights, indexes, chain ids).
 * @returns null when `v` is not a 0x quantity or exceeds Number.MAX_SAFE_INTEGER
 * @example quantityNumber('0x10') // 16
 */
export function quantityNumber(v: unknown): number | null {
  if (typeof v !== 'string' || !HEX_QUANTITY.test(v)) return null;
  const n = Number.parseInt(v, 16);
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * A quantity as a bigint (amounts, gas, fees): a 0x quantity, a decimal string, a safe integer or a bigint.
 * @returns null when absent or malformed
 * @example quantityBigInt('0xde0b6b3a7640000') // 1000000000000000000n
 */
export function quantityBigInt(v: unknown): bigint | null {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v !== 'string' || !(HEX_QUANTITY.test(v) || /^\d+$/.test(v))) return null;
  return BigInt(v);
}
