/**
 * orderedTrieRoot (src/chain/integrity/trie.ts) against @ethereumjs/mpt, the library it replaces on the hot
 * path: items keyed by rlp(index), every count from 0 to 140 and the key-length edges (128, 256) up to 300 (one-, two- and three-byte keys, extensions and
 * branches with values), random values of every length around the 32-byte embedding limit, and the recorded
 * blocks' real transactions and receipts roots. And the native keccak256 behind it against ox's.
 */
import { readFileSync } from 'node:fs';
import { createMPT } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import fc from 'fast-check';
import { Hash, Hex } from 'ox';
import { describe, expect, it } from 'vitest';
import { encodeReceipt, encodeTransaction } from '../../src/chain/integrity/index.js';
import { keccak256, keccak256Hex, keccak256RawHex } from '../../src/chain/integrity/keccak.js';
import { orderedTrieRoot } from '../../src/chain/integrity/trie.js';
import { MalformedHexError } from '../../src/chain/integrity/rlp.js';
import type { FetchedBlock } from '../../src/chain/types.js';

async function libraryRoot(values: Uint8Array[]): Promise<string> {
  const trie = await createMPT();
  for (let i = 0; i < values.length; i++) await trie.put(RLP.encode(i), values[i]!);
  return Hex.fromBytes(trie.root());
}
const ours = (values: Uint8Array[]) => Hex.fromBytes(orderedTrieRoot(values));
const filled = (n: number, len: (i: number) => number) =>
  Array.from({ length: n }, (_, i) => new Uint8Array(len(i)).map((_, k) => (i * 31 + k * 7 + 1) & 255));

describe('orderedTrieRoot equals the @ethereumjs/mpt root', () => {
  it('for every item count from 0 to 140 and at the key-length edges up to 300, short (embedded) and long (hashed) values', async () => {
    for (const n of [...Array.from({ length: 141 }, (_, i) => i), 200, 255, 256, 257, 300]) {
      for (const len of [(i: number) => 1 + (i % 5), (i: number) => 20 + (i % 40)]) {
        const values = filled(n, len);
        expect(ours(values), `${n} items`).toBe(await libraryRoot(values));
      }
    }
  });

  it('for random values and counts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ minLength: 1, maxLength: 80 }), { maxLength: 140 }), async (values) => {
        expect(ours(values)).toBe(await libraryRoot(values));
      }),
      { numRuns: 200 },
    );
  });

  it('for the recorded blocks: the roots their headers state', () => {
    const blocks = [
      ...(JSON.parse(readFileSync(new URL('../fixtures/chain/blocks.json', import.meta.url), 'utf8')) as FetchedBlock[]),
      ...['block-many.json', 'block-empty.json'].map(
        (f) => JSON.parse(readFileSync(new URL(`../fixtures/integrity/${f}`, import.meta.url), 'utf8')) as FetchedBlock,
      ),
    ];
    for (const f of blocks) {
      expect(ours(f.block.transactions.map((t) => Hex.toBytes(encodeTransaction(t))))).toBe(f.block.transactionsRoot.toLowerCase());
      expect(ours(f.receipts.map((r) => Hex.toBytes(encodeReceipt(r!))))).toBe(f.block.receiptsRoot.toLowerCase());
    }
  });
});

describe('keccak256 (hash-wasm) equals ox Hash.keccak256', () => {
  it('for random bytes, as bytes and as hex', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 700 }), (b) => {
        expect(Hex.fromBytes(keccak256(b))).toBe(Hash.keccak256(Hex.fromBytes(b)));
        expect(keccak256Hex(Hex.fromBytes(b))).toBe(Hash.keccak256(Hex.fromBytes(b)));
        expect(`0x${keccak256RawHex(Hex.fromBytes(b).slice(2))}`).toBe(Hash.keccak256(Hex.fromBytes(b)));
      }),
      { numRuns: 500 },
    );
  });

  it('hashes raw hex longer than its reused buffer, and the next short input alone', () => {
    const long = 'ab'.repeat(70_000);
    expect(`0x${keccak256RawHex(long)}`).toBe(Hash.keccak256(`0x${long}`));
    expect(`0x${keccak256RawHex('01')}`).toBe(Hash.keccak256('0x01'));
  });

  it('refuses hex that is not whole bytes', () => {
    expect(() => keccak256Hex('0xabc')).toThrow(MalformedHexError);
    expect(() => keccak256Hex('abcd')).toThrow(MalformedHexError);
    expect(() => keccak256RawHex('abc')).toThrow(MalformedHexError);
    expect(() => keccak256RawHex('abzz')).toThrow(MalformedHexError);
  });
});
