/**
 * RLP encoding (Ethereum Yellow Paper, Appendix B) on unprefixed lower-case hex strings, for what integrity
 * encodes once per block (the header, ./header.ts; trie paths): the node already serves every member as hex, so
 * the encoding is built as a string and converted to bytes once, for keccak256. Per transaction and receipt,
 * ./rlp-writer.ts writes bytes instead. ox's and @ethereumjs's encoders stay the reference:
 * test/chain/integrity-rlp.test.ts holds these functions to them.
 *
 * Every function takes and returns hex WITHOUT the 0x prefix, of whole bytes (even length).
 */
import { PaywatchError } from '../../domain/errors.js';

/** A value the node served is not the hex it must be (a quantity, whole bytes); the message quotes its start. */
export class MalformedHexError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'malformed_hex' });
  }
}

/** One byte as two hex digits. */
function byteHex(b: number): string {
  return b < 16 ? `0${b.toString(16)}` : b.toString(16);
}

/** The RLP length prefix for a payload of `length` bytes: `offset` 0x80 for a byte string, 0xc0 for a list. */
function header(length: number, offset: 0x80 | 0xc0): string {
  if (length < 56) return byteHex(offset + length);
  let l = length.toString(16);
  if (l.length % 2) l = `0${l}`;
  return byteHex(offset + 55 + l.length / 2) + l;
}

/**
 * RLP of a byte string given as hex: a single byte below 0x80 is itself; anything else is prefixed by its length.
 * @param hex unprefixed hex of whole bytes (lower or upper case; the payload is copied as given)
 */
export function rlpString(hex: string): string {
  return rlpStringHeader(hex) + hex;
}

/**
 * What rlpString puts before `hex`: '' for a single byte below 0x80, else its length prefix.
 * @param hex unprefixed hex of whole bytes
 */
export function rlpStringHeader(hex: string): string {
  if (hex.length === 2 && hex.charCodeAt(0) < 0x38 /* '8' */) return '';
  return header(hex.length / 2, 0x80);
}

/**
 * The length prefix of a list whose members' encodings take `bytes` bytes together (rlpList's prefix).
 * @param bytes the payload's length in bytes
 */
export function rlpListHeader(bytes: number): string {
  return header(bytes, 0xc0);
}

/**
 * RLP of a list whose members are already RLP-encoded.
 * @param encoded the members' encodings, in order
 */
export function rlpList(encoded: readonly string[]): string {
  const body = encoded.join('');
  return rlpListHeader(body.length / 2) + body;
}

/**
 * A JSON-RPC quantity ("0x1a", "0x0") as the hex of an RLP integer: minimal big-endian bytes, zero as the empty
 * string (so rlpString of it is 0x80).
 * @throws MalformedHexError when `q` is not 0x-prefixed hex digits
 */
export function quantityHex(q: string): string {
  if (typeof q !== 'string' || !/^0x[0-9a-fA-F]+$/.test(q)) throw new MalformedHexError(`not a quantity: ${String(q).slice(0, 20)}`);
  let i = 2;
  while (i < q.length && q.charCodeAt(i) === 0x30 /* '0' */) i++;
  const digits = q.slice(i).toLowerCase();
  return digits.length % 2 ? `0${digits}` : digits;
}

/**
 * 0x-prefixed data ("0x", "0xabcd") as unprefixed lower-case hex of whole bytes.
 * @throws MalformedHexError when `d` is not 0x hex of whole bytes
 */
export function dataHex(d: string): string {
  if (typeof d !== 'string' || d.length % 2 !== 0 || !/^0x[0-9a-fA-F]*$/.test(d))
    throw new MalformedHexError(`not 0x hex of whole bytes: ${String(d).slice(0, 20)}`);
  return d.slice(2).toLowerCase();
}
