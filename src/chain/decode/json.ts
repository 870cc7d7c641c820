/**
 * Converts decoded ABI values and RPC objects into JSON-safe detail values: bigints become decimal strings,
 * addresses lower-case, hex quantities of the node's transaction become decimal strings.
 */
/**
 * What viem's isAddress(v, { strict: false }) answers (0x + 40 hex digits, any case), without its LRU cache,
 * whose key building and bookkeeping cost more than the test on every string of every transaction.
 */
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
// The length test first: most strings (hashes, data, decimals) are not 42 characters long.
const isAddress = (v: string) => v.length === 42 && ADDRESS.test(v);

/**
 * Makes a decoded ABI value JSON-safe: bigint → base-10 string, address → lower-case, arrays/objects recursed.
 * @example plain([1n, '0xAbC…']) // ['1', '0xabc…']
 */
export function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return isAddress(value) ? value.toLowerCase() : value;
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') return mapValues(value as Record<string, unknown>, (v) => plain(v));
  return value;
}

/** Members of a JSON-RPC transaction (and of its 0x76 calls) that are hex quantities. */
const QUANTITIES = new Set([
  'nonce',
  'gas',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'maxFeePerBlobGas',
  'value',
  'chainId',
  'nonceKey',
  'validBefore',
  'validAfter',
  'blockNumber',
  'transactionIndex',
  'blockTimestamp',
  'v',
  'yParity',
]);

/**
 * The node's transaction with every hex quantity as a base-10 string (nonceKey can exceed 2^53, so strings),
 * addresses lower-case, everything else as given. `type` stays as the node wrote it ("0x76").
 * @param tx a JSON-RPC transaction object
 */
export function transactionDetail(tx: Record<string, unknown>): Record<string, unknown> {
  return quantitiesToDecimal(tx) as Record<string, unknown>;
}

function quantitiesToDecimal(value: unknown, key?: string): unknown {
  if (typeof value === 'string') {
    if (key && QUANTITIES.has(key) && /^0x[0-9a-f]*$/i.test(value))
      return value === '0x' ? '0' : value.length <= 15 ? String(Number.parseInt(value, 16)) : BigInt(value).toString();
    return isAddress(value) ? value.toLowerCase() : value;
  }
  if (Array.isArray(value)) return value.map((v) => quantitiesToDecimal(v));
  if (value && typeof value === 'object') return mapValues(value as Record<string, unknown>, quantitiesToDecimal);
  return value;
}

/**
 * A copy of a plain object with each own enumerable value mapped, keys in the same order: what
 * Object.fromEntries(Object.entries(o).map(…)) gives. The copy starts as a spread of `o` and only changed
 * values are stored back: a spread keeps the shape JSON.parse gave `o`, where adding ~20 members one by one to
 * `{}` (a node's transaction has 22) turns the copy into a slow dictionary-mode object, slower to build and to
 * JSON.stringify (the decoder runs this on every transaction and log).
 */
function mapValues(o: Record<string, unknown>, f: (v: unknown, k: string) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { ...o };
  for (const k of Object.keys(o)) {
    const v = o[k];
    const mapped = f(v, k);
    if (mapped === v) continue;
    // A node-supplied "__proto__" member stays a member (assignment would set the prototype instead).
    if (k === '__proto__') Object.defineProperty(out, k, { value: mapped, enumerable: true, writable: true, configurable: true });
    else out[k] = mapped;
  }
  return out;
}

/** A quantity as bigint (../quantity.ts quantityBigInt, re-exported under the decoder's name). */
export { quantityBigInt as quantity } from '../quantity.js';
