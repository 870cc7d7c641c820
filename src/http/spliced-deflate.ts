/**
 * zlib streams (Content-Encoding `deflate`, RFC 9110 section 8.4.1.2: the zlib format of RFC 1950 around DEFLATE,
 * RFC 1951) spliced from parts compressed once and short literals added per answer. An MCP tool answer is a
 * remembered result wrapped in the request's own JSON-RPC id: compressing the whole 100 kB answer on every call would
 * cost more than the rest of the call, and the id makes each answer's bytes different. A remembered part is
 * compressed once and ends with a sync flush (byte-aligned, no final block); a literal becomes one stored block; the
 * stream's Adler-32 is combined from the parts' own (zlib's adler32_combine), so no answer compresses or checksums
 * the remembered bytes again.
 */
import { constants, deflateRawSync } from 'node:zlib';

/** Text compressed once: DEFLATE blocks that end byte-aligned and are not final, with the text's Adler-32 and bytes. */
export interface DeflatedPart {
  readonly blocks: Buffer;
  readonly adler: number;
  readonly bytes: number;
}

/** The zlib header: CM 8 (deflate), CINFO 7 (32 kB window), no preset dictionary, FCHECK making it a multiple of 31. */
const ZLIB_HEADER = Buffer.from([0x78, 0x9c]);

/** Adler-32's modulus (RFC 1950 section 8.2). */
const BASE = 65521;
/** Bytes summed before reducing: the sums stay far below 2^53 (zlib's NMAX is for 32-bit sums). */
const CHUNK = 1 << 20;

/** Adler-32 of `data` (RFC 1950 section 8.2). */
export function adler32(data: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (let start = 0; start < data.length; start += CHUNK) {
    const end = Math.min(data.length, start + CHUNK);
    for (let i = start; i < end; i++) {
      a += data[i];
      b += a;
    }
    a %= BASE;
    b %= BASE;
  }
  return b * 65536 + a;
}

/**
 * Adler-32 of A followed by B, from the checksums of A and B and B's length in bytes (zlib's adler32_combine).
 * @param adlerA Adler-32 of A
 * @param adlerB Adler-32 of B
 * @param lengthB bytes of B
 */
export function adler32Combine(adlerA: number, adlerB: number, lengthB: number): number {
  const rem = lengthB % BASE;
  const a1 = adlerA % 65536;
  const a = (a1 + (adlerB % 65536) + BASE - 1) % BASE;
  const b = (((rem * a1) % BASE) + Math.floor(adlerA / 65536) + Math.floor(adlerB / 65536) + BASE - rem) % BASE;
  return b * 65536 + a;
}

/**
 * Compresses `text` (UTF-8) once, to be spliced into zlib streams (zlibOf).
 * @example
 * const result = deflatePart('{"tools":[]}');
 * inflateSync(zlibOf(['{"id":7,"result":', result, '}'])).toString(); // '{"id":7,"result":{"tools":[]}}'
 */
export function deflatePart(text: string): DeflatedPart {
  const raw = Buffer.from(text, 'utf8');
  // Z_SYNC_FLUSH instead of Z_FINISH: the blocks end byte-aligned and none is final, so others may follow.
  return { blocks: deflateRawSync(raw, { finishFlush: constants.Z_SYNC_FLUSH }), adler: adler32(raw), bytes: raw.length };
}

/** Longest literal one stored block holds (RFC 1951 section 3.2.4: LEN is 16 bits). */
export const MAX_LITERAL_BYTES = 0xffff;

/**
 * One zlib stream of the parts in order: literals as stored blocks, compressed parts as they are, a final empty
 * stored block, and the Adler-32 of the whole text.
 * @param parts literal strings (UTF-8, each at most MAX_LITERAL_BYTES) and parts made by deflatePart
 * @throws RangeError when a literal is longer than MAX_LITERAL_BYTES
 */
export function zlibOf(parts: readonly (string | DeflatedPart)[]): Buffer {
  const chunks: Buffer[] = [ZLIB_HEADER];
  let adler = 1;
  for (const p of parts) {
    if (typeof p === 'string') {
      const data = Buffer.from(p, 'utf8');
      if (data.length > MAX_LITERAL_BYTES)
        throw new RangeError(`a spliced literal holds at most ${MAX_LITERAL_BYTES} bytes, not ${data.length}`);
      chunks.push(storedBlock(data, false), data);
      adler = adler32Combine(adler, adler32(data), data.length);
    } else {
      chunks.push(p.blocks);
      adler = adler32Combine(adler, p.adler, p.bytes);
    }
  }
  const trailer = Buffer.allocUnsafe(4);
  trailer.writeUInt32BE(adler);
  chunks.push(storedBlock(Buffer.alloc(0), true), trailer);
  return Buffer.concat(chunks);
}

/** A stored block's header for `data`: BFINAL, BTYPE 00, padding to the byte, LEN and its one's complement (LE). */
function storedBlock(data: Buffer, final: boolean): Buffer {
  const h = Buffer.allocUnsafe(5);
  h[0] = final ? 1 : 0;
  h.writeUInt16LE(data.length, 1);
  h.writeUInt16LE(~data.length & 0xffff, 3);
  return h;
}
