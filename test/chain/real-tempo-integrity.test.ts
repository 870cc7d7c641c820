/**
 * Integrity against blocks that real Tempo nodes served (mainnet 4217 before and after the T4 upgrade, Moderato
 * testnet), read from ../shared/real-tempo: every transaction hash, both roots and the block hash must be
 * reproduced from the JSON-RPC answers alone. These are the only real-chain blocks available offline; anvil
 * cannot produce Tempo headers, system transactions or keychain signatures.
 */
import { describe, expect, it } from 'vitest';
import { blockCommitment, checkBlockHash, evaluateBlockIntegrity } from '../../src/chain/integrity/index.js';
import type { RpcBlock } from '../../src/chain/types.js';
import { readRecorded, recordedBlock, RECORDED_BLOCKS, type RecordedBlock } from '../helpers/real-tempo.js';

/** What each recording holds, written out so that a wrong file or a self-comparison cannot pass unnoticed. */
const EXPECTED: Record<RecordedBlock, { hash: string; transactions: number; consensusContext: boolean }> = {
  'mainnet-17708868': {
    hash: '0xf71423f051bbea1c46ba15096b49db03c736dba4bc0b33dd47b5c87ee8e2fd5d',
    transactions: 3,
    consensusContext: false,
  },
  'mainnet-20660166': {
    hash: '0xf5ea68f8904398b8e5499fa4c13ac23970228773cb8445a7a7575b361e03d5a3',
    transactions: 2,
    consensusContext: true,
  },
  'mainnet-25403305': {
    hash: '0x6104d24110fe73bd1b37999116745fa359f5ac0d053528927de44d8d0ba3f73c',
    transactions: 0,
    consensusContext: true,
  },
  'moderato-6000178': {
    hash: '0x3c09b6099ec60559fd2c71047cf6fe07c267d9fe3699e3a2afc42c9b6685d3e3',
    transactions: 35,
    consensusContext: false,
  },
  'moderato-6541': { hash: '0x3e6995242d2c6d491e02042ef7ed15b45c729e5f66fbdcb1be21777ebe8aa8c1', transactions: 1, consensusContext: false },
};

/** A deep copy of a block, to alter. */
const copyOf = (b: RpcBlock): RpcBlock => structuredClone(b);

describe.each(RECORDED_BLOCKS)('recorded block %s', (name) => {
  const f = recordedBlock(name);
  const want = EXPECTED[name];

  it('is the recording described (hash, transaction count, consensusContext from T4 on)', () => {
    expect(f.block.hash).toBe(want.hash);
    expect(f.block.transactions).toHaveLength(want.transactions);
    expect(f.block.consensusContext !== undefined).toBe(want.consensusContext);
  });

  it('every transaction hash, the transactionsRoot, the receiptsRoot and the block hash are reproduced', async () => {
    const c = await blockCommitment(f);
    expect(c.transactions.map((t) => t.computed)).toEqual(f.block.transactions.map((t) => t.hash));
    expect(c.transactions.every((t) => t.match === true)).toBe(true);
    expect(c.transactionsRoot).toEqual({ expected: f.block.transactionsRoot, computed: f.block.transactionsRoot, match: true });
    expect(c.receiptsRoot).toEqual({ expected: f.block.receiptsRoot, computed: f.block.receiptsRoot, match: true });
    expect(c.blockHash).toEqual({ expected: want.hash, encoding: 'tempo', match: true });
  });

  it('every transaction scores 2, and stage 2 says the block hash was reproduced', async () => {
    const integrity = await evaluateBlockIntegrity(f);
    expect(integrity.map((i) => i.score)).toEqual(f.block.transactions.map(() => 2));
    for (const i of integrity) expect(i.stages[1]!.reason).toContain('block hash recomputed from the header (tempo encoding) and matched');
  });
});

describe('the Tempo header encoding', () => {
  it("reproduces mainnet block 1's on-chain hash (header transcribed from tempoxyz/tempo's backwards-compatibility test)", () => {
    const header = readRecorded<RpcBlock>('mainnet-1.header.json');
    expect(checkBlockHash(header)).toEqual({
      expected: '0x76e86f9739fbe17669b01b24e976ac214742c4b1bbc6ae0c083a87e43a5e9b0f',
      encoding: 'tempo',
      match: true,
    });
  });

  it('after T4 the consensusContext is part of the hash: without it, or with one member changed, nothing matches', () => {
    for (const name of ['mainnet-20660166', 'mainnet-25403305'] as const) {
      const block = recordedBlock(name).block;
      const without = copyOf(block);
      delete without.consensusContext;
      expect(checkBlockHash(without)).toMatchObject({ encoding: null, match: false });
      for (const member of ['epoch', 'view', 'parentView'] as const) {
        const changed = copyOf(block);
        (changed.consensusContext as Record<string, number>)[member] += 1;
        expect(checkBlockHash(changed)).toMatchObject({ encoding: null, match: false });
      }
      const proposer = copyOf(block);
      (proposer.consensusContext as Record<string, string>).proposer = `0x${'ab'.repeat(32)}`;
      expect(checkBlockHash(proposer)).toMatchObject({ encoding: null, match: false });
    }
  });

  it('reads the consensusContext integers as the JSON numbers the node serves, and as hex quantities too', () => {
    const block = copyOf(recordedBlock('mainnet-20660166').block);
    const ctx = block.consensusContext as Record<string, unknown>;
    expect([ctx.epoch, ctx.view, ctx.parentView]).toEqual([956, 10575, 10574]);
    Object.assign(ctx, { epoch: '0x3bc', view: '0x294f', parentView: '0x294e' });
    expect(checkBlockHash(block)).toMatchObject({ encoding: 'tempo', match: true });
  });

  it('a malformed consensusContext is not computed (match null, the member named), never a pass', () => {
    const base = recordedBlock('mainnet-25403305').block;
    const cases: [unknown, string][] = [
      ['yes', 'header member consensusContext is not an object'],
      [
        { ...(base.consensusContext as object), view: -1 },
        'header member consensusContext.view is missing or not a non-negative safe integer',
      ],
      [
        { ...(base.consensusContext as object), epoch: 2 ** 64 },
        'header member consensusContext.epoch is missing or not a non-negative safe integer',
      ],
      [
        { ...(base.consensusContext as object), parentView: undefined },
        'header member consensusContext.parentView is missing or not a non-negative safe integer',
      ],
      [
        { ...(base.consensusContext as object), proposer: '0x1234' },
        'header member consensusContext.proposer is missing or not 32 bytes of hex',
      ],
    ];
    for (const [ctx, reason] of cases) {
      const block = copyOf(base);
      block.consensusContext = ctx;
      expect(checkBlockHash(block)).toEqual({ expected: base.hash, encoding: null, match: null, reason });
    }
  });

  it('a null consensusContext is no consensusContext (a pre-T4 block still matches)', () => {
    const block = copyOf(recordedBlock('mainnet-17708868').block);
    block.consensusContext = null;
    expect(checkBlockHash(block)).toMatchObject({ encoding: 'tempo', match: true });
  });
});
