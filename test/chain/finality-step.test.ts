/**
 * The collector's finality step against a real loopback node without the `consensus_*` namespace
 * (test/helpers/consensus-rpc.ts `unsupported`, method-not-found as shared RPC services answer) over a real SQLite
 * store holding `blocks` rows: every due check records `unknown`, and a block an earlier unknown check covered
 * keeps that check, so one check rewrites only the blocks collected since the last one, not every block below it.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FinalityStep } from '../../src/chain/collector/finality.js';
import { httpJsonRpc } from '../../src/chain/consensus/transport.js';
import { readBlocks, readFinalityState } from '../../src/store/chain/index.js';
import { checkStatusAt, insertBlockRows, recordFinality } from '../../src/store/chain/finality.js';
import { openStore, type Store } from '../../src/store/db.js';
import { testGenesisOutcome, testKey } from '../helpers/consensus.js';
import { type ConsensusRpc, startConsensusRpc } from '../helpers/consensus-rpc.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

describe('FinalityStep against a node without consensus_*', () => {
  let t: TestDb;
  let store: Store;
  let node: ConsensusRpc;
  beforeAll(async () => {
    t = await createTestDb('sqlite');
    store = await openStore(t.url);
    node = await startConsensusRpc({ unsupported: true });
  });
  afterAll(async () => {
    await node?.close();
    await store?.close();
    await t?.drop();
  });

  /** A finality step over this file's store and unsupporting node, with the test genesis; `extra` adds options. */
  const newStep = (extra: Partial<ConstructorParameters<typeof FinalityStep>[0]> = {}) =>
    new FinalityStep({
      store,
      log: pino({ level: 'silent' }),
      request: httpJsonRpc(node.url),
      genesis: testGenesisOutcome(testKey('finality step')),
      epochLength: 1_000_000,
      ...extra,
    });

  it('records unknown at each due height, covering only the blocks no earlier unknown check covered', async () => {
    const step = newStep({ spacing: { blocks: 100, ms: 1e9 } });
    // Blocks 1..300 written in batches of 50, as the collector writes them, each batch told to the step.
    for (let first = 1; first <= 300; first += 50) {
      const blocks = Array.from({ length: 50 }, (_, i) => first + i).map((height) => ({
        height,
        hash: h(height),
        parentHash: h(height - 1),
        time: 1_700_000_000 + height,
        observations: [],
        hashRecomputed: true,
      }));
      await store.db.transaction().execute((trx) => insertBlockRows(trx, blocks));
      step.afterWrite(blocks, first + 49 === 300);
      await step.idle();
    }
    // Due: block 1 (the first), 101 and 201 (every 100 blocks), 300 (the head when caught up).
    const checked = node.calls.filter((c) => c.method === 'consensus_getFinalization');
    expect(checked).toHaveLength(1); // method-not-found once; later checks record unknown without asking
    const rows = await readBlocks(store.db, 1, 300);
    expect(rows).toHaveLength(300);
    const coveredBy = (height: number) => rows.find((b) => b.height === height)!.finality;
    expect([1, 2, 101, 102, 201, 202, 300].map(coveredBy)).toEqual([1, 101, 101, 201, 201, 300, 300]);
    const state = await readFinalityState(store.db);
    expect(state).toMatchObject({ verified: 0, failed: 0, last_verified_height: null });
  });

  it('does not read or check again a height whose certificate verified already', async () => {
    const step = newStep();
    const block = { height: 500, hash: h(500), parentHash: h(499), time: 1_700_000_500, observations: [], hashRecomputed: true };
    await store.db.transaction().execute((trx) => insertBlockRows(trx, [block]));
    const evidence = { status: 'verified' };
    await recordFinality(store, {
      height: 500,
      status: 'verified',
      evidence,
      certificate: null,
      cover: null,
      now: new Date().toISOString(),
    });
    const asked = node.calls.length;
    step.afterWrite([block], true);
    await step.idle();
    expect(node.calls.length).toBe(asked);
    // The verified check stands (a check against this node would have recorded unknown over it).
    expect(await checkStatusAt(store.db, 500)).toBe('verified');
  });
});
