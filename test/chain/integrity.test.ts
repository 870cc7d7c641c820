/**
 * Integrity over blocks recorded from a real anvil node in Tempo mode (test/fixtures/integrity, written by
 * integrity-anvil.test.ts with INTEGRITY_RECORD=1): the same tamper cases without a node, plus encodings that
 * anvil cannot produce (Tempo system transactions, pre-EIP-658 receipts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Hash, Hex, Rlp } from 'ox';
import {
  blockCommitment,
  checkBlockHash,
  encodeReceipt,
  encodeTransaction,
  evaluateBlockIntegrity,
  findInconsistencies,
  UnsupportedEncodingError,
} from '../../src/chain/integrity/index.js';
import type { FetchedBlock, RpcReceipt, RpcTransaction } from '../../src/chain/types.js';
import { copy, integrityCases } from '../fixtures/integrity/cases.js';

const load = (name: string): FetchedBlock =>
  JSON.parse(readFileSync(new URL(`../fixtures/integrity/${name}`, import.meta.url), 'utf8')) as FetchedBlock;
const many = load('block-many.json');
const empty = load('block-empty.json');

describe('integrity over a recorded block of 32 transactions (types 0, 1, 2, 4, 0x76; reverted; sponsored)', () => {
  it('the recording holds what the cases rely on', () => {
    expect(many.block.transactions).toHaveLength(32);
    expect(new Set(many.block.transactions.map((t) => t.type))).toEqual(new Set(['0x0', '0x1', '0x2', '0x4', '0x76']));
    expect(many.receipts.filter((r) => r!.status === '0x0').length).toBeGreaterThan(0);
    expect(many.block.transactions.filter((t) => t.feePayerSignature).length).toBeGreaterThan(0);
  });
  integrityCases(() => many);

  it('blockCommitment gives both roots, the header hash check and each transaction hash check', async () => {
    const c = await blockCommitment(many);
    expect(c.transactionsRoot).toEqual({ expected: many.block.transactionsRoot, computed: many.block.transactionsRoot, match: true });
    expect(c.receiptsRoot).toEqual({ expected: many.block.receiptsRoot, computed: many.block.receiptsRoot, match: true });
    expect(c.blockHash).toEqual({ expected: many.block.hash, encoding: 'ethereum', match: true });
    expect(c.transactions[3]).toEqual({ computed: many.block.transactions[3]!.hash, match: true });
  });

  it('a receipt count that differs from the transaction count leaves the receiptsRoot uncomputed, with the reason', async () => {
    const f = copy(many);
    f.receipts.push(f.receipts[0]!);
    const c = await blockCommitment(f);
    expect(c.receiptsRoot).toEqual({
      expected: many.block.receiptsRoot,
      computed: null,
      match: null,
      reason: 'receipt count 33 differs from transaction count 32',
    });
    expect(c.transactionsRoot.match).toBe(true);
  });

  it('a pre-EIP-658 receipt (state root, no status) cannot be encoded: receiptsRoot not recomputed, said in the reason', async () => {
    const f = copy(many);
    delete (f.receipts[2] as Partial<RpcReceipt>).status;
    const integrity = await evaluateBlockIntegrity(f);
    expect(integrity[0]!.stages[1]!.reason).toContain(
      'receiptsRoot not recomputed (receipt 2: receipt has no status (pre-EIP-658 state-root receipt))',
    );
    expect(integrity[0]!.score).toBe(2);
  });
});

describe('integrity over a recorded empty block', () => {
  it('has no transactions to score and both empty-trie roots match', async () => {
    const c = await blockCommitment(empty);
    expect(c.transactionsRoot).toEqual({
      expected: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
      computed: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
      match: true,
    });
    expect(c.receiptsRoot.match).toBe(true);
    expect(await evaluateBlockIntegrity(empty)).toEqual([]);
    expect(findInconsistencies(empty, Number(BigInt(empty.block.number)))).toEqual([]);
  });
});

describe('canonical encodings', () => {
  // A Tempo system transaction: legacy, sender 0x0, signature r = s = 0 with the EIP-155 v of chain 4217
  // (tempoxyz/tempo TEMPO_SYSTEM_TX_SIGNATURE). Anvil produces none, so it is written out here.
  const system = {
    type: '0x0',
    chainId: '0x1079',
    nonce: '0x2a',
    gasPrice: '0x0',
    gas: '0x0',
    to: '0xfeec000000000000000000000000000000000000',
    value: '0x0',
    input: '0xdeadbeef',
    r: '0x0',
    s: '0x0',
    v: '0x2115',
    hash: `0x${'00'.repeat(32)}`,
    blockHash: `0x${'11'.repeat(32)}`,
    blockNumber: '0x1',
    transactionIndex: '0x0',
    from: '0x0000000000000000000000000000000000000000',
  } as RpcTransaction;

  it('a system transaction (r = s = 0) encodes as plain RLP with empty r and s and the node-reported v', () => {
    const expected = Rlp.fromHex([
      '0x2a',
      '0x',
      '0x',
      '0xfeec000000000000000000000000000000000000',
      '0x',
      '0xdeadbeef',
      '0x2115',
      '0x',
      '0x',
    ]);
    expect(encodeTransaction(system)).toBe(expected);
    expect(Hash.keccak256(encodeTransaction(system))).toBe(Hash.keccak256(expected));
  });

  it('a pre-EIP-155 legacy transaction keeps v = 27/28', () => {
    const pre: RpcTransaction = { ...system, v: '0x1c', r: '0x01', s: '0x02' };
    delete pre.chainId;
    expect(Rlp.toHex(encodeTransaction(pre))).toEqual([
      '0x2a',
      '0x',
      '0x',
      '0xfeec000000000000000000000000000000000000',
      '0x',
      '0xdeadbeef',
      '0x1c',
      '0x01',
      '0x02',
    ]);
  });

  it('an unknown type or an unusable field throws UnsupportedEncodingError naming it', () => {
    expect(() => encodeTransaction({ ...system, type: '0x3' })).toThrow(
      new UnsupportedEncodingError('transaction type 0x3 has no known canonical encoding'),
    );
    expect(() => encodeTransaction({ ...system, v: undefined } as unknown as RpcTransaction)).toThrow(UnsupportedEncodingError);
    expect(() => encodeReceipt({ ...(many.receipts[0] as RpcReceipt), type: '0x9' })).toThrow(
      'receipt type 0x9 has no known consensus encoding',
    );
  });

  it('a legacy receipt has no type byte and a typed one is prefixed by its type', () => {
    const legacy = many.receipts.find((r) => r!.type === '0x0')!;
    const tempo = many.receipts.find((r) => r!.type === '0x76')!;
    expect(Rlp.toHex(encodeReceipt(legacy))).toHaveLength(4);
    expect(encodeReceipt(tempo).startsWith('0x76')).toBe(true);
    expect(Rlp.toHex(`0x${encodeReceipt(tempo).slice(4)}`)).toHaveLength(4);
  });
});

describe('block hash from the header', () => {
  it('anvil hashes the plain Ethereum header; a changed header member no longer reproduces the hash', () => {
    expect(checkBlockHash(many.block)).toEqual({ expected: many.block.hash, encoding: 'ethereum', match: true });
    const f = copy(many);
    f.block.stateRoot = `0x${'ee'.repeat(32)}`;
    expect(checkBlockHash(f.block)).toMatchObject({
      encoding: null,
      match: false,
      reason: 'neither the Tempo nor the Ethereum header encoding reproduces the block hash',
    });
  });

  it('a block hashed as a Tempo header rlp([generalGasLimit, sharedGasLimit, timestampMillisPart, header]) is recognised as such', () => {
    // The list written out member by member, from tempoxyz/tempo crates/primitives/src/header.rs (TempoHeader).
    const b = many.block;
    const q = (v: unknown) => (BigInt(v as string) === 0n ? '0x' : Hex.fromNumber(BigInt(v as string)));
    const inner = [
      b.parentHash,
      b.sha3Uncles,
      b.miner,
      b.stateRoot,
      b.transactionsRoot,
      b.receiptsRoot,
      b.logsBloom,
      q(b.difficulty),
      q(b.number),
      q(b.gasLimit),
      q(b.gasUsed),
      q(b.timestamp),
      b.extraData,
      b.mixHash,
      b.nonce,
      q(b.baseFeePerGas),
      b.withdrawalsRoot,
      q(b.blobGasUsed),
      q(b.excessBlobGas),
      b.parentBeaconBlockRoot,
      b.requestsHash,
    ] as Hex.Hex[];
    const f = copy(many);
    f.block.mainBlockGeneralGasLimit = '0x1c9c380';
    f.block.sharedGasLimit = '0x2faf08';
    f.block.timestampMillisPart = '0x1f4';
    f.block.hash = Hash.keccak256(Rlp.fromHex(['0x01c9c380', '0x2faf08', '0x01f4', inner]));
    expect(checkBlockHash(f.block)).toEqual({ expected: f.block.hash, encoding: 'tempo', match: true });
  });

  it('a header member missing: not computed (match null), never a pass', () => {
    const f = copy(many);
    delete (f.block as Record<string, unknown>).stateRoot;
    expect(checkBlockHash(f.block)).toMatchObject({ match: null, reason: 'header member stateRoot is missing or not hex' });
  });
});

describe('findInconsistencies on malformed answers', () => {
  it('reports a missing block and a non-quantity height instead of throwing', () => {
    expect(findInconsistencies({ ...many, block: null } as unknown as FetchedBlock, 1)).toEqual(['block missing from the answer']);
    const f = copy(many);
    f.block.number = 'ten';
    expect(findInconsistencies(f, 10)[0]).toBe('block number "ten" is not a quantity');
  });
});
