/**
 * The integrity hot path's own encoders held to the libraries they stand in for: ./rlp.ts against ox's Rlp on
 * random nested items (every length-prefix edge: 0, 1 byte below and above 0x80, 55/56 and 256+ bytes), and
 * encodeTempoTransactionFast against ox's TxEnvelopeTempo (encodeTransaction) on every recorded 0x76
 * transaction, on variations of them (fee payer signature, validity bounds, access list, contract creation)
 * and on the shapes it must decline; ./rlp-writer.ts (bytes written back to front, what blockCommitment uses)
 * against ox's Rlp on the same random items, past its first buffer.
 */
import fc from 'fast-check';
import { Rlp, type Hex } from 'ox';
import { describe, expect, it } from 'vitest';
import { encodeTempoTransactionFast, encodeTransaction } from '../../src/chain/integrity/encoding.js';
import { dataHex, MalformedHexError, quantityHex, rlpList, rlpString } from '../../src/chain/integrity/rlp.js';
import { RlpWriter } from '../../src/chain/integrity/rlp-writer.js';
import type { RpcTransaction } from '../../src/chain/types.js';
import { loadChainFixtures } from '../fixtures/chain/load.js';

type Item = string | Item[];
const ourRlp = (x: Item): string => (Array.isArray(x) ? rlpList(x.map(ourRlp)) : rlpString(x));
const oxRlp = (x: Item): unknown => (Array.isArray(x) ? x.map(oxRlp) : (`0x${x}` as Hex.Hex));
const bytes = fc
  .oneof(
    fc.uint8Array({ maxLength: 2 }),
    fc.uint8Array({ minLength: 54, maxLength: 58 }),
    fc.uint8Array({ minLength: 250, maxLength: 300 }),
  )
  .map((b) => Buffer.from(b).toString('hex'));
const item: fc.Arbitrary<Item> = fc.letrec<{ item: Item }>((tie) => ({
  item: fc.oneof({ depthSize: 'small' }, bytes, fc.array(tie('item'), { maxLength: 5 })),
})).item;

describe('rlp.ts', () => {
  it('encodes random nested items exactly as ox Rlp.fromHex', () => {
    fc.assert(
      fc.property(item, (x) => {
        expect(`0x${ourRlp(x)}`).toBe(Rlp.fromHex(oxRlp(x) as never));
      }),
      { numRuns: 400 },
    );
  });

  it('reads quantities as minimal big-endian bytes and data as lower-case hex, rejecting non-hex', () => {
    expect(quantityHex('0x0')).toBe('');
    expect(quantityHex('0x00f')).toBe('0f');
    expect(quantityHex('0x1079')).toBe('1079');
    expect(quantityHex('0xABC')).toBe('0abc');
    expect(() => quantityHex('0x')).toThrow(MalformedHexError);
    expect(() => quantityHex('12')).toThrow(MalformedHexError);
    expect(dataHex('0x')).toBe('');
    expect(dataHex('0xDEad')).toBe('dead');
    expect(() => dataHex('0xabc')).toThrow(MalformedHexError);
    expect(() => dataHex('0xzz')).toThrow(MalformedHexError);
  });
});

/** Prepends `x` to `w` as RLP: a list's members last to first, then its header. */
function writeItem(w: RlpWriter, x: Item): void {
  if (!Array.isArray(x)) {
    w.data(`0x${x}`);
    return;
  }
  const mark = w.size();
  for (let i = x.length - 1; i >= 0; i--) writeItem(w, x[i]!);
  w.list(mark);
}
const written = (w: RlpWriter, from: number) => `0x${Buffer.from(w.view().subarray(0, w.size() - from)).toString('hex')}`;

describe('rlp-writer.ts', () => {
  it('writes random nested items exactly as ox Rlp.fromHex, and quantities as minimal integers', () => {
    const w = new RlpWriter();
    fc.assert(
      fc.property(item, fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), (x, q) => {
        w.begin();
        writeItem(w, x);
        expect(written(w, 0)).toBe(Rlp.fromHex(oxRlp(x) as never));
        w.begin();
        w.quantity(`0x${q.toString(16)}`);
        expect(written(w, 0)).toBe(
          Rlp.fromHex(q === 0n ? '0x' : (`0x${q.toString(16).padStart(Math.ceil(q.toString(16).length / 2) * 2, '0')}` as Hex.Hex)),
        );
      }),
      { numRuns: 400 },
    );
  });

  it('grows past its first 64 KiB, leaving the items written before intact, and rejects non-hex', () => {
    const w = new RlpWriter();
    w.begin();
    writeItem(w, ['01', 'ff'.repeat(60)]);
    const first = w.view();
    const firstHex = Buffer.from(first).toString('hex');
    const big = ['ab'.repeat(70_000), ['00', 'cd'.repeat(30_000)]];
    const mark = w.size();
    writeItem(w, big);
    expect(written(w, mark)).toBe(Rlp.fromHex(oxRlp(big) as never));
    expect(Buffer.from(first).toString('hex')).toBe(firstHex);
    expect(Buffer.from(w.view().subarray(w.size() - mark)).toString('hex')).toBe(firstHex);
    expect(() => w.data('0xzz')).toThrow(MalformedHexError);
    expect(() => w.data('0xabc')).toThrow(MalformedHexError);
    expect(() => w.quantity('0x')).toThrow(MalformedHexError);
    expect(() => w.quantity('0x1g')).toThrow(MalformedHexError);
    expect(() => w.quantity('0xg')).toThrow(MalformedHexError);
  });
});

const tempoTxs = loadChainFixtures()
  .blocks.flatMap((f) => f.block.transactions)
  .filter((t) => t.type === '0x76');
const reference = (tx: RpcTransaction) => encodeTransaction(tx).slice(2);

describe('encodeTempoTransactionFast', () => {
  it('equals the ox encoding for every recorded 0x76 transaction', () => {
    expect(tempoTxs.length).toBeGreaterThan(5);
    let fast = 0;
    for (const tx of tempoTxs) {
      const ours = encodeTempoTransactionFast(tx);
      if (ours === null) continue;
      fast++;
      expect(ours).toBe(reference(tx));
    }
    expect(fast).toBeGreaterThan(5);
  });

  it('equals the ox encoding for variations: fee payer signature, validity bounds, access list, contract creation, several calls', () => {
    const base = tempoTxs.find((t) => encodeTempoTransactionFast(t) !== null)!;
    const sig = { r: `0x${'1'.repeat(64)}`, s: `0x0${'2'.repeat(63)}`, yParity: '0x1', v: '0x1' };
    const variations: Record<string, unknown>[] = [
      { feePayerSignature: sig },
      { feePayerSignature: { ...sig, yParity: '0x0', v: '0x0' } },
      { validBefore: '0x6b01b664', validAfter: '0x10' },
      {
        accessList: [
          { address: '0x20c0000000000000000000000000000000000001', storageKeys: [`0x${'ab'.repeat(32)}`, `0x${'00'.repeat(32)}`] },
        ],
      },
      {
        calls: [
          { to: null, value: '0x0', input: '0x6080', data: null },
          { to: '0x20c0000000000000000000000000000000000002', value: '0x5', input: '0x', data: null },
        ],
      },
      { nonceKey: '0x5', nonce: '0x0', maxPriorityFeePerGas: '0x0' },
      { feeToken: null },
      { signature: { ...(base.signature as object), yParity: '0x0', v: '0x0' } },
    ];
    for (const v of variations) {
      const tx = { ...base, ...v } as RpcTransaction;
      expect(encodeTempoTransactionFast(tx), JSON.stringify(v)).toBe(reference(tx));
    }
  });

  it('declines the shapes it does not encode: other types, other signature types, Tempo authorizations, key authorization, zero validity bounds', () => {
    const base = tempoTxs.find((t) => encodeTempoTransactionFast(t) !== null)!;
    for (const v of [
      { type: '0x2' },
      { signature: { ...(base.signature as object), type: 'p256' } },
      { aaAuthorizationList: [{}] },
      { keyAuthorization: {} },
      { validBefore: '0x0' },
    ])
      expect(encodeTempoTransactionFast({ ...base, ...v } as RpcTransaction), JSON.stringify(v)).toBeNull();
  });
});
