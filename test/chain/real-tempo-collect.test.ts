/**
 * The real `paywatch collect --once` process against a loopback node that replays a block recorded from real
 * Tempo mainnet (../shared/real-tempo; test/helpers/replay-rpc.ts): replaying recorded answers is the only way
 * to run the collector on real mainnet blocks offline, since anvil cannot produce Tempo headers, system
 * transactions or keychain signatures. Block 17708868 is from before the T4 upgrade, 20660166 from after it (its
 * header has the consensusContext). On SQLite and PostgreSQL, the stored observations must score 2 with the
 * block hash reproduced from the header.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import { getTransaction } from '../../src/store/chain/index.js';
import { tokenAddressesOf } from '../../src/chain/decode/index.js';
import { createTestDb, DIALECTS, type TestDb } from '../helpers/db.js';
import { mainnetTokenList, recordedBlock, type RecordedBlock } from '../helpers/real-tempo.js';
import { startReplayRpc, type ReplayRpc } from '../helpers/replay-rpc.js';
import { runCli, snapshotStore, type CliResult, type StoreSnapshot } from '../e2e/cli.js';

/** What the store must hold per block beyond integrity: the top-level members of each transaction. */
const EXPECTED_ROWS: Partial<
  Record<RecordedBlock, [category: string, asset: string | null, amount: string | null, fee: string | null, decode: string][]>
> = {
  'mainnet-17708868': [
    ['transfer', 'USDC.e', '0.61996', '0.00566', 'full'],
    ['transfer', 'USDC.e', '0.01', '0.066242', 'full'],
    ['system', null, null, null, 'full'],
  ],
  'mainnet-20660166': [
    ['contract_call', null, null, '0.007196', 'partial: 1 undecoded log(s); 1 undecoded call(s)'],
    ['contract_call', null, null, '0.007382', 'partial: 1 undecoded log(s); 1 undecoded call(s)'],
  ],
};

const cases = DIALECTS.flatMap((dialect) => (Object.keys(EXPECTED_ROWS) as RecordedBlock[]).map((name) => [name, dialect] as const));

describe.each(cases)('collect --once from a replayed real mainnet block %s, on %s', (name, dialect) => {
  const f = recordedBlock(name);
  const height = Number(BigInt(f.block.number));
  let node: ReplayRpc;
  let db: TestDb;
  let run: CliResult;
  let snapshot: StoreSnapshot;

  beforeAll(async () => {
    node = await startReplayRpc({ chainId: '0x1079', block: f.block, receipts: f.receipts as never, tokens: mainnetTokenList() });
    db = await createTestDb(dialect);
    run = await runCli(['collect', '--once', '--db', db.url, '--rpc', node.url, '--from', String(height)]);
    snapshot = await snapshotStore(db.url);
  }, 120_000);

  afterAll(async () => {
    await node?.close();
    await db?.drop();
  });

  it('ends cleanly with the block stored, covered and checkpointed', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(snapshot.hashes).toEqual(f.block.transactions.map((t) => t.hash.toLowerCase()));
    expect(snapshot.coverage).toEqual([{ first: height, last: height }]);
    expect(snapshot.checkpoint).toEqual({ height, hash: f.block.hash.toLowerCase() });
  });

  it('stores every observation with integrity score 2 and the members decoded from the real block', () => {
    expect(snapshot.rows.map((r) => r.score)).toEqual(f.block.transactions.map(() => 2));
    expect(snapshot.rows.map((r) => [r.category, r.asset, r.amount, r.fee, r.decode])).toEqual(EXPECTED_ROWS[name]);
  });

  it('stage 2 passes with both roots and the block hash reproduced, said in its reason; evidence names the block', async () => {
    const store = await openStore(db.url);
    try {
      for (const tx of f.block.transactions) {
        const d = await getTransaction(store, tx.hash);
        expect(d).not.toBeNull();
        const stage2 = d!.integrity.stages[1]!;
        expect([stage2.level, stage2.status]).toEqual([2, 'pass']);
        expect(stage2.reason).toBe(
          `keccak256 of the re-encoded type ${tx.type} transaction equals its hash; transactionsRoot recomputed and matched (${f.block.transactionsRoot}); ` +
            `receiptsRoot recomputed and matched (${f.block.receiptsRoot}); block hash recomputed from the header (tempo encoding) and matched`,
        );
        expect(d!.evidence).toMatchObject({
          block_hash: f.block.hash.toLowerCase(),
          block_height: height,
          source: new URL(node.url).origin,
          finalized_height: height,
        });
      }
    } finally {
      await store.close();
    }
  });

  it('read token metadata only from the block’s TIP-20 transfer emitters, and the head only through the finalized tag', () => {
    expect([...new Set(node.callTargets)].sort()).toEqual(tokenAddressesOf(f).sort());
    expect(node.calls.eth_getBlockReceipts).toBeGreaterThan(0);
    expect(node.calls.eth_chainId).toBeGreaterThan(0);
  });
});
