/**
 * The collector under crashes and a faulty node, on SQLite and PostgreSQL: a real anvil node in Tempo mode,
 * the real `paywatch collect` process (SIGKILLed at random moments and restarted), and a real loopback proxy
 * that injects timeouts, 5xx, malformed JSON and receipts that do not match their block. In every case the
 * final store must equal a clean run: same observations, no duplicates, one coverage interval, checkpoint at
 * the head.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { openStore } from '../../src/store/db.js';
import { getCheckpoint } from '../../src/store/chain/index.js';
import { createTestDb, DIALECTS, type TestDb } from '../helpers/db.js';
import { startRpcProxy } from '../helpers/rpc-proxy.js';
import { referenceCollect, runCli, snapshotStore, startCli, type StoreSnapshot } from './cli.js';
import { generateLoad } from '../../src/demo/activity.js';
import { finalizedHeight } from './rpc.js';
import pino from 'pino';
import { createPublicClient, http, type PublicClient } from 'viem';
import { tempo } from 'viem/chains';
import { Collector, RUNS_PER_WRITE } from '../../src/chain/collector/collector.js';
import { TempoRpc } from '../../src/chain/rpc.js';
import { TokenRegistry } from '../../src/chain/tokens.js';
import { inlineWriter, type StoreWriter } from '../../src/store/chain/writer.js';

const TRANSFERS = 500;
let anvil: AnvilNode;
let head: number;
let clean: StoreSnapshot;
const dbs: TestDb[] = [];

async function freshDb(dialect: (typeof DIALECTS)[number]): Promise<TestDb> {
  const db = await createTestDb(dialect);
  dbs.push(db);
  return db;
}

/** Asserts `got` is the clean run: same rows, no duplicate hash, one coverage interval, checkpoint at the head. */
function expectClean(got: StoreSnapshot) {
  expect(new Set(got.hashes).size).toBe(got.hashes.length);
  expect(got.rows).toEqual(clean.rows);
  expect(got.coverage).toEqual([{ first: 0, last: head }]);
  expect(got.checkpoint).toEqual(clean.checkpoint);
}

beforeAll(async () => {
  anvil = await startAnvil();
  // A few hundred blocks of two real TIP-20 transfers each.
  await generateLoad(anvil.rpcUrl, { transactions: TRANSFERS, perBlock: 2 });
  head = await finalizedHeight(anvil.rpcUrl);
  clean = await referenceCollect((await freshDb('sqlite')).url, anvil.rpcUrl);
}, 240_000);

afterAll(async () => {
  await anvil?.stop();
  for (const db of dbs) await db.drop();
});

describe('the clean run', () => {
  it('holds every transaction of the chain, contiguous coverage and the checkpoint at the finalized head', () => {
    expect(head).toBeGreaterThanOrEqual(TRANSFERS / 2);
    expect(clean.rows).toHaveLength(TRANSFERS);
    expect(new Set(clean.hashes).size).toBe(TRANSFERS);
    expect(clean.coverage).toEqual([{ first: 0, last: head }]);
    expect(clean.checkpoint?.height).toBe(head);
    expect(clean.rows.every((r) => r.score === 2 && r.execution === 'success')).toBe(true);
  });
});

describe.each(DIALECTS)('on %s', (dialect) => {
  it('survives SIGKILL at random moments during a backfill and ends equal to the clean run', async () => {
    const db = await freshDb(dialect);
    const args = ['collect', '--once', '--db', db.url, '--rpc', anvil.rpcUrl, '--from', '0', '--batch-size', '4', '--rpc-concurrency', '1'];
    const reader = await openStore(db.url);
    let kills = 0;
    try {
      for (let round = 0; round < 4; round++) {
        const before = (await getCheckpoint(reader).catch(() => null))?.height ?? -1;
        // Kill once the checkpoint passes a random height ahead, then after a further random 0–40 ms, so the
        // signal lands anywhere: between writes, inside one, or while fetching.
        const target = before + 1 + Math.floor(Math.random() * Math.max(1, (head - before) / 2));
        const { child, done } = startCli(args);
        let exited = false;
        void done.then(() => (exited = true));
        while (!exited) {
          const cp = await getCheckpoint(reader).catch(() => null);
          if (cp && cp.height >= target) break;
          await new Promise((r) => setTimeout(r, 5));
        }
        await new Promise((r) => setTimeout(r, Math.random() * 40));
        child.kill('SIGKILL');
        const r = await done;
        if (r.signal === 'SIGKILL') kills++;
        else expect(r.code).toBe(0); // it finished first: nothing to kill this round
      }
    } finally {
      await reader.close();
    }
    expect(kills).toBeGreaterThanOrEqual(2);
    // Restart after the last kill: it must resume from the checkpoint (the SQLite lock is not left stuck).
    const last = await runCli(args);
    expect(last.stderr).toBe('');
    expect(last.code).toBe(0);
    expectClean(await snapshotStore(db.url));
  }, 300_000);

  it('survives timeouts, 5xx, malformed JSON and mismatched receipts from the node, storing nothing inconsistent', async () => {
    const db = await freshDb(dialect);
    const proxy = await startRpcProxy({
      upstream: anvil.rpcUrl,
      faults: ['http5xx', 'receiptTxHash', 'malformed', 'timeout', 'receiptBlockHash', 'http5xx', 'malformed', 'receiptTxHash'],
      skipFirst: 1,
      every: 2,
    });
    try {
      const r = await runCli(
        ['collect', '--once', '--db', db.url, '--rpc', proxy.url, '--from', '0', '--batch-size', '10', '--log-level', 'warn'],
        {
          PAYWATCH_RPC_TIMEOUT_MS: '1000',
        },
      );
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(proxy.remaining()).toEqual([]);
      expect(proxy.injected).toEqual({ timeout: 1, http5xx: 2, malformed: 2, receiptTxHash: 2, receiptBlockHash: 1 });
      // The mismatched receipts were seen and refetched, never written.
      expect(r.stdout).toContain('inconsistent answer from the node; fetching again');
      expectClean(await snapshotStore(db.url));
    } finally {
      await proxy.close();
    }
  }, 300_000);

  it('reads receipts one by one from a node without eth_getBlockReceipts', async () => {
    const db = await freshDb(dialect);
    const proxy = await startRpcProxy({ upstream: anvil.rpcUrl, faults: [], unsupported: ['eth_getBlockReceipts'] });
    try {
      const r = await runCli(['collect', '--once', '--db', db.url, '--rpc', proxy.url, '--from', '0', '--batch-size', '25']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expectClean(await snapshotStore(db.url));
    } finally {
      await proxy.close();
    }
  }, 300_000);
});

describe('runs decoded while a write is in progress', () => {
  it('go into the next write together (at most RUNS_PER_WRITE runs, contiguous), and the store ends equal to the clean run', async () => {
    const db = await freshDb('sqlite');
    const store = await openStore(db.url);
    const BATCH = 4;
    const writes: { first: number; last: number }[] = [];
    const inline = inlineWriter(store);
    // A slow store (a real write, then a pause): later runs are fetched and decoded meanwhile.
    const slow: StoreWriter = {
      write: async (blocks, checkpoint) => {
        writes.push({ first: blocks[0].height, last: checkpoint.height });
        await inline.write(blocks, checkpoint);
        await new Promise((r) => setTimeout(r, 60));
      },
      whenReady: async () => {},
      close: async () => {},
    };
    const rpc = await TempoRpc.connect({ url: anvil.rpcUrl });
    const tokens = new TokenRegistry(createPublicClient({ chain: tempo, transport: http(anvil.rpcUrl) }) as PublicClient);
    try {
      await new Collector({
        store,
        rpc,
        tokens,
        log: pino({ level: 'silent' }),
        from: 0,
        batchSize: BATCH,
        pollIntervalMs: 100,
        once: true,
        writer: slow,
      }).run();
    } finally {
      await store.close();
    }
    expect(writes[0].first).toBe(0);
    for (let i = 1; i < writes.length; i++) expect(writes[i].first).toBe(writes[i - 1].last + 1);
    const sizes = writes.map((w) => w.last - w.first + 1);
    expect(Math.max(...sizes)).toBeGreaterThan(BATCH);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(RUNS_PER_WRITE * BATCH);
    expectClean(await snapshotStore(db.url));
  }, 120_000);
});
