/**
 * Brotli streams (RFC 7932) of a part compressed once followed by a short literal added per answer: the brotli twin
 * of ./spliced-deflate.ts, for clients that take `br` (browsers, curl, Node's fetch over https). Brotli's window
 * (4 MB at the default lgwin 22) spans both copies of an MCP tool answer (structured and as text), which DEFLATE's
 * 32 kB window cannot, so the second copy costs little. The part is compressed with a flush (the encoder pads to a
 * byte boundary with an empty metadata block, no last meta-block); each answer appends its literal as one
 * uncompressed meta-block (section 9.2) and an empty last meta-block. The literal can only come after the part: a
 * literal before it would move the positions the part's static-dictionary references are decoded against.
 */
import { brotliCompressSync, constants } from 'node:zlib';

/** Quality of the remembered part: the listeners' dynamic setting (./compression.ts). */
const QUALITY = 4;

/** An empty last meta-block: ISLAST 1, ISLASTEMPTY 1, padding. */
const LAST_EMPTY = Buffer.from([0x03]);

/** Longest literal one uncompressed meta-block of four length nibbles holds. */
export const MAX_BROTLI_LITERAL_BYTES = 0x10000;

/**
 * Compresses `text` (UTF-8) once as the opening of a brotli stream that a literal will close (brotliOf).
 * @example
 * const head = brotliPart('{"result":{"tools":[]},"id":');
 * brotliDecompressSync(brotliOf(head, '7}')).toString(); // '{"result":{"tools":[]},"id":7}'
 */
export function brotliPart(text: string): Buffer {
  return brotliCompressSync(text, {
    params: { [constants.BROTLI_PARAM_QUALITY]: QUALITY },
    finishFlush: constants.BROTLI_OPERATION_FLUSH,
  });
}

/**
 * The whole brotli stream of the part's text followed by `literal`.
 * @param head a part made by brotliPart
 * @throws RangeError when `literal` is empty or longer than MAX_BROTLI_LITERAL_BYTES in UTF-8
 */
export function brotliOf(head: Buffer, literal: string): Buffer {
  const data = Buffer.from(literal, 'utf8');
  if (data.length === 0 || data.length > MAX_BROTLI_LITERAL_BYTES)
    throw new RangeError(`a spliced brotli literal holds 1 to ${MAX_BROTLI_LITERAL_BYTES} bytes, not ${data.length}`);
  // ISLAST 0, MNIBBLES 0 (four nibbles), MLEN - 1 in 16 bits, ISUNCOMPRESSED 1, then zero bits to the byte.
  const bits = ((data.length - 1) << 3) | (1 << 19);
  const header = Buffer.from([bits & 0xff, (bits >> 8) & 0xff, (bits >> 16) & 0xff]);
  return Buffer.concat([head, header, data, LAST_EMPTY]);
}
