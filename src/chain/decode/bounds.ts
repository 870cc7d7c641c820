/**
 * What one transaction may put into the store (./limits.ts): the checks against the caps on logs, legs and
 * detail bytes, and the reduced detail a transaction beyond them is stored with (docs/decoding.md, "Bounds").
 */
import type { RpcTransaction } from '../types.js';
import { CHAIN_DATA_LIMITS, type ChainDataLimitName } from './limits.js';

/** Sizes under which a detail cannot reach CHAIN_DATA_LIMITS.detail_bytes (see mayExceedDetailCap). */
const SMALL_COUNT = 16;
const SMALL_CHARS = 8192;

/**
 * False when the detail is certainly under the byte cap, so it need not be serialized to be measured: at most
 * 16 logs, 16 calls and 16 legs, and at most 8,192 characters of transaction (all its strings and keys) and of
 * log topics and data. Even with every character JSON-escaped six-fold and every decoded argument three times its
 * hex, such a detail stays under 240 KB, below the 256 KiB cap; anything larger is measured exactly.
 * @param tx the node's transaction
 * @param logs the receipt's logs (raw)
 * @param counts calls and legs of the transaction
 */
export function mayExceedDetailCap(
  tx: RpcTransaction,
  logs: readonly { topics?: unknown; data?: unknown }[],
  counts: { calls: number; legs: number },
): boolean {
  if (logs.length > SMALL_COUNT || counts.calls > SMALL_COUNT || counts.legs > SMALL_COUNT) return true;
  let chars = 0;
  for (const l of logs) {
    chars += typeof l.data === 'string' ? l.data.length : SMALL_CHARS;
    chars += Array.isArray(l.topics) ? l.topics.length * 66 : SMALL_CHARS;
  }
  return chars > SMALL_CHARS || charsOf(tx, SMALL_CHARS) > SMALL_CHARS;
}

/** Characters of the strings and keys of `value`, walked depth first; stops counting once past `limit`. */
function charsOf(value: unknown, limit: number, n = 0): number {
  if (n > limit) return n;
  if (typeof value === 'string') return n + value.length;
  if (value === null || typeof value !== 'object') return n + 8;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && n <= limit; i++) n = charsOf(value[i], limit, n);
    return n;
  }
  const o = value as Record<string, unknown>;
  for (const k in o) {
    if (n > limit) break;
    n = charsOf(o[k], limit, n + k.length + 4);
  }
  return n;
}

/** UTF-8 bytes of `value` as JSON (what the store keeps for a detail). */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/**
 * The forensics note for a cap a transaction went beyond.
 * @param cap the bound's name in CHAIN_DATA_LIMITS
 * @param count what the transaction had (logs, legs or bytes)
 * @param reason what was not kept
 */
export function capNote(cap: ChainDataLimitName, count: number, reason: string): Record<string, unknown> {
  return { kind: 'cap_exceeded', cap, limit: CHAIN_DATA_LIMITS[cap].value, count, reason };
}

/** Members of the node's transaction kept in a reduced detail: scalars of bounded size (calls, input, lists left out). */
const ENVELOPE = [
  'hash',
  'type',
  'from',
  'to',
  'nonce',
  'nonceKey',
  'gas',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'value',
  'chainId',
  'feeToken',
  'validBefore',
  'validAfter',
  'blockHash',
  'blockNumber',
  'transactionIndex',
] as const;

/**
 * The envelope of a transaction detail (./json.ts transactionDetail): its ENVELOPE members that are strings of at
 * most 100 characters (others left out), so a reduced detail stays small whatever the transaction carried.
 */
export function envelopeOf(detail: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ENVELOPE) {
    const v = detail[k];
    if (v === null || (typeof v === 'string' && v.length <= 100)) out[k] = v;
  }
  return out;
}
