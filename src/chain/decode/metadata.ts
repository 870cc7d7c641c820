/**
 * Token metadata as a token contract answers it: the raw return bytes of an eth_call to `symbol()`,
 * `currency()` or `decimals()`, decoded here with a byte cap instead of by viem (which would decode, and copy, a
 * 1 MiB string). Pure and bounded: only the two head words and at most `cap + 1` bytes of the value are read,
 * whatever the size of the answer. A value that is too long, not UTF-8, or carries control or bidi-override
 * characters is unknown (null), and comes with an issue saying why (docs/decoding.md, "Token metadata").
 */
import { CHAIN_DATA_LIMITS } from './limits.js';
import { escapePrefix } from '../../domain/escape-prefix.js';

/** Why a metadata value was refused. */
export type MetadataIssueKind = 'oversized_metadata' | 'invalid_metadata' | 'bidi_override' | 'metadata_call_failed';

/** A refused (or unanswered) metadata value: what was wrong, and a bounded, escaped view of it. */
export interface MetadataIssue {
  kind: MetadataIssueKind;
  /** The token function: symbol, currency or decimals. */
  member: 'symbol' | 'currency' | 'decimals';
  /** One line saying what is wrong. */
  reason: string;
  /** Length the contract declared for a string value, in bytes; null when there is none. */
  bytes: number | null;
  /** The value's first CHAIN_DATA_LIMITS.metadata_prefix_bytes bytes, escaped to printable ASCII; null when there is none. */
  prefix: string | null;
}

/** A decoded metadata value, or null with the issue that made it unknown (issue null: the contract has no answer). */
export interface MetadataValue<T> {
  value: T | null;
  issue: MetadataIssue | null;
}

const PREFIX_BYTES = CHAIN_DATA_LIMITS.metadata_prefix_bytes.value;
/** Bidirectional formatting characters: ALM, LRM, RLM, the embeddings and overrides (U+202A–E) and isolates (U+2066–9). */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
/** Control characters (C0, DEL, C1) and the line and paragraph separators, which break lines in logs and CSV. */
const CONTROL = /[\p{Cc}\u2028\u2029]/u;
const HEX_WORD = /^[0-9a-fA-F]{64}$/;

/**
 * Decodes the answer of a `string`-returning metadata function (ABI: offset word, length word, bytes).
 * @param hex the eth_call result (0x hex, any length)
 * @param member which function answered
 * @param cap the most UTF-8 bytes accepted (CHAIN_DATA_LIMITS.symbol_bytes / currency_bytes)
 * @returns the string; or null with no issue for an empty answer ("0x": no code, or no such function) or an
 *   empty string; or null with an issue (oversized_metadata, invalid_metadata, bidi_override)
 * @example decodeMetadataString(encodeAbiParameters([{ type: 'string' }], ['USD']), 'currency', 16) // { value: 'USD', issue: null }
 */
export function decodeMetadataString(hex: string, member: MetadataIssue['member'], cap: number): MetadataValue<string> {
  if (hex === '0x' || hex === '') return { value: null, issue: null };
  const body = hex.startsWith('0x') ? hex.slice(2) : hex;
  const word = (byteOffset: number): bigint | null => {
    const w = body.slice(byteOffset * 2, byteOffset * 2 + 64);
    return HEX_WORD.test(w) ? BigInt(`0x${w}`) : null;
  };
  const total = Math.floor(body.length / 2);
  const offset = word(0);
  if (offset === null || offset + 32n > BigInt(total))
    return refused('invalid_metadata', member, 'the answer is not an ABI-encoded string', null, null);
  const length = word(Number(offset));
  if (length === null) return refused('invalid_metadata', member, 'the answer is not an ABI-encoded string', null, null);
  const start = Number(offset) + 32;
  const available = Math.max(0, total - start);
  const declared = length > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(length);
  const read = (n: number) => bytesOf(body, start, Math.min(n, available));
  if (declared > cap)
    return refused(
      'oversized_metadata',
      member,
      `${declared} bytes, more than the cap of ${cap}`,
      declared,
      escapePrefix(read(PREFIX_BYTES)),
    );
  if (declared > available)
    return refused(
      'invalid_metadata',
      member,
      `declares ${declared} bytes but the answer holds ${available}`,
      declared,
      escapePrefix(read(PREFIX_BYTES)),
    );
  const bytes = read(declared);
  if (bytes === null) return refused('invalid_metadata', member, 'the answer is not hex', declared, null);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return refused('invalid_metadata', member, 'not valid UTF-8', declared, escapePrefix(bytes.subarray(0, PREFIX_BYTES)));
  }
  if (BIDI.test(text))
    return refused(
      'bidi_override',
      member,
      'carries bidirectional override characters',
      declared,
      escapePrefix(bytes.subarray(0, PREFIX_BYTES)),
    );
  if (CONTROL.test(text))
    return refused('invalid_metadata', member, 'carries control characters', declared, escapePrefix(bytes.subarray(0, PREFIX_BYTES)));
  return { value: text === '' ? null : text, issue: null };
}

/**
 * Decodes the answer of `decimals()` (ABI uint8): the first word, which must be at most 255.
 * @param hex the eth_call result (0x hex)
 * @returns the decimals; null with no issue for an empty answer; null with invalid_metadata for anything else
 * @example decodeMetadataDecimals(`0x${'0'.repeat(63)}6`) // { value: 6, issue: null }
 */
export function decodeMetadataDecimals(hex: string): MetadataValue<number> {
  if (hex === '0x' || hex === '') return { value: null, issue: null };
  const w = (hex.startsWith('0x') ? hex.slice(2) : hex).slice(0, 64);
  if (!HEX_WORD.test(w)) return refused('invalid_metadata', 'decimals', 'the answer is not an ABI-encoded uint8', null, null);
  const n = BigInt(`0x${w}`);
  if (n > 255n) return refused('invalid_metadata', 'decimals', 'the answer is beyond the uint8 range', null, null);
  return { value: Number(n), issue: null };
}

/**
 * The issue for a metadata call the contract did not answer (reverted, ran out of its gas budget, or another EVM
 * halt): the value is unknown, not an error.
 * @param member the function called
 * @param message the node's error text (cut and escaped here)
 */
export function callFailed(member: MetadataIssue['member'], message: string): MetadataIssue {
  const text = new TextEncoder().encode(message.slice(0, 200));
  return { kind: 'metadata_call_failed', member, reason: escapePrefix(text.subarray(0, 120)) ?? '', bytes: null, prefix: null };
}

function refused<T>(
  kind: MetadataIssueKind,
  member: MetadataIssue['member'],
  reason: string,
  bytes: number | null,
  prefix: string | null,
): MetadataValue<T> {
  return { value: null, issue: { kind, member, reason, bytes, prefix } };
}

/** `count` bytes of hex text `body` from byte `start`; null when they are not hex. */
function bytesOf(body: string, start: number, count: number): Uint8Array | null {
  const out = new Uint8Array(Math.max(0, count));
  for (let i = 0; i < out.length; i++) {
    const b = Number.parseInt(body.slice((start + i) * 2, (start + i) * 2 + 2), 16);
    if (Number.isNaN(b)) return null;
    out[i] = b;
  }
  return out;
}

export { escapePrefix };
