/**
 * Brotli streams of a part compressed once and a literal added per answer (src/http/spliced-brotli.ts): brotli
 * itself (node:zlib brotliDecompressSync) decodes each to the part's text and the literal, for texts small and past
 * DEFLATE's window, multi-byte characters and literals of one byte up to one meta-block's limit; the second copy of
 * a text within brotli's window costs little.
 */
import { brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { brotliOf, brotliPart, MAX_BROTLI_LITERAL_BYTES } from '../../src/http/spliced-brotli.js';

describe('spliced brotli', () => {
  it('decodes to the part and the literal, whatever they are', () => {
    const copy = JSON.stringify({ rows: Array.from({ length: 2_000 }, (_, i) => ({ i, name: `provider-${i}.example`, note: 'ü€😀' })) });
    for (const text of ['', '{"a":1}', copy, `{"structured":${copy},"text":${JSON.stringify(copy)}}`]) {
      const head = brotliPart(`{"jsonrpc":"2.0","result":${text},"id":`);
      for (const id of ['1', '"an-id"', '9007199254740991', '"ü€"']) {
        const out = brotliDecompressSync(brotliOf(head, `${id}}`)).toString('utf8');
        expect(out).toBe(`{"jsonrpc":"2.0","result":${text},"id":${id}}`);
      }
    }
    expect(brotliDecompressSync(brotliOf(brotliPart(''), 'x'.repeat(MAX_BROTLI_LITERAL_BYTES))).length).toBe(MAX_BROTLI_LITERAL_BYTES);
  });

  it('sends the second copy of a 100 kB text for little (its window spans both)', () => {
    const copy = JSON.stringify({
      rows: Array.from({ length: 1_500 }, (_, i) => ({ i, domain: `p${i * 7919}.example`, ok: i % 3 === 0 })),
    });
    expect(copy.length).toBeGreaterThan(40_000);
    const once = brotliOf(brotliPart(copy), '}').length;
    const twice = brotliOf(brotliPart(copy + copy), '}').length;
    expect(twice).toBeLessThan(once * 1.2);
  });

  it('refuses an empty literal and one longer than a meta-block', () => {
    const head = brotliPart('{}');
    expect(() => brotliOf(head, '')).toThrow(RangeError);
    expect(() => brotliOf(head, 'x'.repeat(MAX_BROTLI_LITERAL_BYTES + 1))).toThrow(RangeError);
  });
});
