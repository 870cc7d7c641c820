/**
 * RLP (Ethereum Yellow Paper, Appendix B) written as bytes, back to front, into one reused buffer: a list's members
 * are written last to first, so when its header is written its payload length is already known, and no member is
 * built as a string or copied again. The integrity hot path encodes each transaction and receipt with it straight
 * from the node's 0x hex members (./encoding.ts); ./rlp.ts's hex-string functions and ox's encoders stay the
 * reference (test/chain/integrity-rlp.test.ts).
 */
import { MalformedHexError } from './rlp.js';

/** Builds one encoding at a time; `begin()` starts one, `take()` ends it. Not re-entrant (hashing is synchronous). */
export class RlpWriter {
  private buf = Buffer.allocUnsafe(1 << 16);
  /** Where the encoding written so far starts; it ends at buf.length. */
  private pos = this.buf.length;

  /** Drops whatever was written. */
  begin(): void {
    this.pos = this.buf.length;
  }

  /** Bytes written so far (a list's mark: its payload is what size() grew by). */
  size(): number {
    return this.buf.length - this.pos;
  }

  /** The encoding written since begin(), as a view into the writer's buffer (valid until the next begin()). */
  view(): Uint8Array {
    return this.buf.subarray(this.pos);
  }

  /** Makes room for `n` more bytes before what is written. */
  private room(n: number): void {
    if (this.pos >= n) return;
    const size = this.size();
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, size + n + 1024));
    this.buf.copy(next, next.length - size, this.pos);
    this.buf = next;
    this.pos = next.length - size;
  }

  /** Prepends one byte. */
  byte(b: number): void {
    this.room(1);
    this.buf[--this.pos] = b;
  }

  /** Prepends the header of a list whose payload is what was written since `mark` (a size()). */
  list(mark: number): void {
    this.header(this.size() - mark, 0xc0);
  }

  /** Prepends an RLP length prefix (`offset` 0x80 for a byte string, 0xc0 for a list). */
  private header(length: number, offset: 0x80 | 0xc0): void {
    if (length < 56) {
      this.byte(offset + length);
      return;
    }
    let n = 0;
    for (let l = length; l > 0; l = Math.floor(l / 256)) {
      this.byte(l % 256);
      n++;
    }
    this.byte(offset + 55 + n);
  }

  /**
   * Prepends the raw bytes of hex digits `hex[from..]` (an even count).
   * @param what the message's start when a digit is not hex
   * @returns how many bytes
   * @throws MalformedHexError when a digit is not hex
   */
  private raw(hex: string, from: number, what: string): number {
    const n = (hex.length - from) / 2;
    this.room(n);
    this.pos -= n;
    if (this.buf.write(from === 0 ? hex : hex.slice(from), this.pos, n, 'hex') !== n)
      throw new MalformedHexError(`${what}: ${hex.slice(0, 20)}`);
    return n;
  }

  /**
   * Prepends raw bytes given as unprefixed hex (an encoding built elsewhere), without a header.
   * @throws MalformedHexError when `hex` is not whole bytes of hex digits
   */
  hex(hex: string): void {
    if (hex.length % 2) throw new MalformedHexError(`not whole bytes of hex: ${hex.slice(0, 20)}`);
    this.raw(hex, 0, 'not whole bytes of hex');
  }

  /** Moves the start back to `mark` (a size()), dropping what was written since. */
  rewind(mark: number): void {
    this.pos = this.buf.length - mark;
  }

  /** Prepends the string header of the `n` bytes just written: none for one byte below 0x80. */
  private stringHeader(n: number): void {
    if (n !== 1 || this.buf[this.pos]! >= 0x80) this.header(n, 0x80);
  }

  /**
   * Prepends a byte string given as 0x hex data ("0x" is the empty string).
   * @throws MalformedHexError when `d` is not 0x hex of whole bytes
   */
  data(d: string): void {
    if (typeof d !== 'string' || d.length % 2 !== 0 || d.charCodeAt(0) !== 0x30 || d.charCodeAt(1) !== 0x78)
      throw new MalformedHexError(`not 0x hex of whole bytes: ${String(d).slice(0, 20)}`);
    this.stringHeader(this.raw(d, 2, 'not 0x hex of whole bytes'));
  }

  /**
   * Prepends the minimal big-endian bytes of a JSON-RPC quantity ("0x1a"), none for zero, without a header.
   * @returns how many bytes
   * @throws MalformedHexError when `q` is not 0x-prefixed hex digits
   */
  private digits(q: string): number {
    if (typeof q !== 'string' || q.length < 3 || q.charCodeAt(0) !== 0x30 || q.charCodeAt(1) !== 0x78)
      throw new MalformedHexError(`not a quantity: ${String(q).slice(0, 20)}`);
    let i = 2;
    while (i < q.length && q.charCodeAt(i) === 0x30) i++;
    const odd = (q.length - i) % 2;
    let n = this.raw(q, i + odd, 'not a quantity');
    if (odd) {
      const nibble = Number.parseInt(q[i]!, 16);
      if (Number.isNaN(nibble)) throw new MalformedHexError(`not a quantity: ${q.slice(0, 20)}`);
      this.byte(nibble);
      n++;
    }
    return n;
  }

  /**
   * Prepends the list of byte strings `items` (0x hex data each), e.g. an access-list entry's storage keys or a log's topics.
   * @throws MalformedHexError when an item is not 0x hex of whole bytes
   */
  dataList(items: readonly string[]): void {
    const mark = this.size();
    for (let i = items.length - 1; i >= 0; i--) this.data(items[i]!);
    this.list(mark);
  }

  /**
   * Prepends a JSON-RPC quantity ("0x1a", "0x0") as an RLP integer: minimal big-endian bytes, zero as the empty string.
   * @returns false when the quantity is zero (written as 0x80)
   * @throws MalformedHexError when `q` is not 0x-prefixed hex digits
   */
  quantity(q: string): boolean {
    const n = this.digits(q);
    this.stringHeader(n);
    return n > 0;
  }

  /**
   * Prepends a 32-byte scalar (a quantity left-padded with zeros), without a header.
   * @throws MalformedHexError when `q` is not a quantity of at most 32 bytes
   */
  scalar32(q: string): void {
    const n = this.digits(q);
    if (n > 32) throw new MalformedHexError(`signature scalar over 32 bytes: ${q.slice(0, 20)}`);
    this.room(32 - n);
    this.buf.fill(0, this.pos - (32 - n), this.pos);
    this.pos -= 32 - n;
  }
}
