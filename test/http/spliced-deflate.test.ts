/**
 * zlib streams spliced from parts compressed once and literals (src/http/spliced-deflate.ts): zlib itself
 * (node:zlib inflateSync, which checks the Adler-32 trailer) decodes each to the parts' text, for random texts,
 * multi-byte characters, empty parts and texts past the Adler-32 reduction chunk; the checksums equal zlib's own.
 */
import { deflateSync, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { adler32, adler32Combine, deflatePart, MAX_LITERAL_BYTES, zlibOf } from '../../src/http/spliced-deflate.js';

const ALPHABET = [...'abc{}[]":,0123456789 éü€😀\\'];

/** A deterministic pseudo-random text of `n` characters, some of them multi-byte in UTF-8. */
function text(n: number, seed: number): string {
  let x = seed;
  let out = '';
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += ALPHABET[x % ALPHABET.length];
  }
  return out;
}

/** zlib's Adler-32 of `data`: the trailer of its own zlib stream. */
const zlibAdler = (data: Buffer) => {
  const z = deflateSync(data);
  return z.readUInt32BE(z.length - 4);
};

describe('spliced deflate', () => {
  it('decodes to the text of its parts in order, whatever the parts', () => {
    for (const [i, size] of [0, 1, 100, 5_000, 70_000].entries()) {
      const remembered = text(size, i + 1);
      const part = deflatePart(remembered);
      for (const id of ['1', '"a-string-id"', '9007199254740991', '"ü€"']) {
        const head = `{"jsonrpc":"2.0","id":${id},"result":`;
        const out = inflateSync(zlibOf([head, part, '}'])).toString('utf8');
        expect(out).toBe(`${head}${remembered}}`);
      }
      // Parts back to back, literals empty or around them.
      expect(inflateSync(zlibOf([part, '', part])).toString('utf8')).toBe(remembered + remembered);
    }
    expect(inflateSync(zlibOf([])).length).toBe(0);
  });

  it('compresses the remembered part: a large repetitive answer is sent in a fraction of its bytes', () => {
    const answer = JSON.stringify({ rows: Array.from({ length: 500 }, (_, i) => ({ i, name: 'provider.example', ok: true })) });
    const z = zlibOf(['{"id":1,"result":', deflatePart(answer), '}']);
    expect(z.length).toBeLessThan(answer.length / 5);
  });

  it('computes Adler-32 as zlib does, past the reduction chunk, and combines it as zlib does', () => {
    const big = Buffer.from(text(1_200_000, 7), 'utf8');
    expect(adler32(big)).toBe(zlibAdler(big));
    expect(adler32(new Uint8Array(0))).toBe(1);
    const a = Buffer.from(text(3_000, 3));
    const b = Buffer.from(text(70_000, 4));
    expect(adler32Combine(adler32(a), adler32(b), b.length)).toBe(zlibAdler(Buffer.concat([a, b])));
    expect(adler32Combine(adler32(a), 1, 0)).toBe(adler32(a));
  });

  it('refuses a literal longer than one stored block', () => {
    expect(() => zlibOf(['x'.repeat(MAX_LITERAL_BYTES + 1)])).toThrow(RangeError);
    expect(inflateSync(zlibOf(['x'.repeat(MAX_LITERAL_BYTES)])).length).toBe(MAX_LITERAL_BYTES);
  });
});
