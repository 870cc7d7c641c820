/**
 * The part of commonware's codec (commonwarexyz/monorepo `codec/src`) that Tempo's consensus artifacts use:
 * canonical unsigned LEB128 varints (`varint.rs`: a continuation byte that adds no data bits, or bits beyond the
 * integer's width, is an error, so every value has one encoding), lengths written as a u32 varint
 * (`types/primitives.rs`, `usize`), fixed big-endian integers, single-byte booleans that must be 0 or 1, and
 * fixed-size byte arrays. Reading past the end is an error, never a short read.
 */
import { ConsensusDecodeError, type ConsensusItem } from './errors.js';

/**
 * Bytes from 0x hex, bare hex (a consensus RPC answers certificates without the prefix) or a Uint8Array.
 * @param maxBytes longest accepted input, bytes
 * @example bytesOf('000403…', 'certificate', 512)
 * @throws ConsensusDecodeError when the text is not hex of whole bytes or longer than maxBytes
 */
export function bytesOf(input: string | Uint8Array, item: ConsensusItem, maxBytes: number): Uint8Array {
  if (input instanceof Uint8Array) {
    if (input.length > maxBytes) throw new ConsensusDecodeError(item, `is ${input.length} bytes, more than the ${maxBytes} accepted`);
    return input;
  }
  if (typeof input !== 'string') throw new ConsensusDecodeError(item, 'is not hex text');
  const hex = input.startsWith('0x') || input.startsWith('0X') ? input.slice(2) : input;
  if (hex.length > maxBytes * 2) throw new ConsensusDecodeError(item, `is ${hex.length / 2} bytes, more than the ${maxBytes} accepted`);
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new ConsensusDecodeError(item, 'is not hex of whole bytes');
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** 0x lower-case hex of bytes. */
export function hexOf(bytes: Uint8Array): `0x${string}` {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
}

/**
 * The canonical unsigned LEB128 encoding of a non-negative safe integer (commonware `varint::UInt`).
 * @example varint(300) // Uint8Array [0xac, 0x02]
 */
export function varint(n: number): Uint8Array {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`varint of ${n}: not a non-negative safe integer`);
  const out: number[] = [];
  let v = BigInt(n);
  do {
    const low = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v > 0n ? low | 0x80 : low);
  } while (v > 0n);
  return Uint8Array.from(out);
}

/** A cursor over one item's bytes; each read names the member it reads, for the error. */
export class ByteReader {
  private pos = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly item: ConsensusItem,
  ) {}

  /** Bytes not read yet. */
  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  /** The byte offset of the next read. */
  get offset(): number {
    return this.pos;
  }

  private fail(detail: string, at: number = this.pos): never {
    throw new ConsensusDecodeError(this.item, detail, at);
  }

  /**
   * A canonical unsigned varint of `bits` width (64 for epochs, views and heights; 32 for lengths).
   * @throws ConsensusDecodeError when truncated, non-canonical, wider than `bits`, or beyond 2^53 − 1 (JavaScript
   *   numbers; no real epoch, view or length comes near)
   */
  varint(name: string, bits: 32 | 64 = 64): number {
    const start = this.pos;
    let value = 0n;
    let shift = 0;
    for (;;) {
      if (this.pos >= this.bytes.length) this.fail(`ends inside ${name}`, start);
      const byte = this.bytes[this.pos++]!;
      // commonware varint.rs: a later byte of zero adds nothing, so the encoding would not be unique.
      if (byte === 0 && shift > 0) this.fail(`has a non-canonical varint for ${name}`, start);
      if (bits - shift <= 7 && 8 - Math.clz32(byte) + 24 > bits - shift)
        this.fail(`has a varint for ${name} wider than ${bits} bits`, start);
      value |= BigInt(byte & 0x7f) << BigInt(shift);
      if ((byte & 0x80) === 0) break;
      shift += 7;
    }
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) this.fail(`has ${name} ${value}, beyond 2^53 - 1`, start);
    return Number(value);
  }

  /**
   * A collection length (commonware writes `usize` as a u32 varint) within [min, max].
   * @throws ConsensusDecodeError outside the range
   */
  length(name: string, min: number, max: number): number {
    const start = this.pos;
    const n = this.varint(`the length of ${name}`, 32);
    if (n < min || n > max) this.fail(`has ${n} ${name}, outside ${min}..${max}`, start);
    return n;
  }

  /** `n` raw bytes (a view, not a copy). */
  take(n: number, name: string): Uint8Array {
    if (this.remaining < n) this.fail(`ends inside ${name} (${n} bytes needed, ${this.remaining} left)`);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** One byte. */
  u8(name: string): number {
    return this.take(1, name)[0]!;
  }

  /** A fixed 4-byte big-endian unsigned integer. */
  u32be(name: string): number {
    const b = this.take(4, name);
    return ((b[0]! << 24) >>> 0) + (b[1]! << 16) + (b[2]! << 8) + b[3]!;
  }

  /** A boolean byte: 0 or 1, anything else is an error (commonware `bool`). */
  bool(name: string): boolean {
    const at = this.pos;
    const b = this.u8(name);
    if (b > 1) this.fail(`has ${name} ${b}, not a boolean (0 or 1)`, at);
    return b === 1;
  }

  /** Fails unless every byte was read. */
  end(): void {
    if (this.remaining > 0) this.fail(`has ${this.remaining} trailing bytes`);
  }
}
