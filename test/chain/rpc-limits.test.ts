/**
 * The JSON-RPC client and the collector against nodes that limit what they accept, each a real loopback proxy
 * (test/helpers/limited-rpc.ts) in front of a real anvil node in Tempo mode:
 * - a node capping batches at 10 calls (JSON-RPC -32005 "batch too large", or HTTP 413): the client halves its
 *   calls per request until accepted, warns once, and block and token reads come back whole; a collector run
 *   through it ends equal to one straight from the node;
 * - runs sized to whole requests: a collector with defaults sends its block reads 40 calls a request;
 * - a node rate-limiting with 429 and Retry-After: after the first refusal the client paces itself, and at
 *   most 10% of the requests that follow are refused; when its accepted answers come back slowly, the rate
 *   learnt still comes from the requests sent (counting answers fell to 1 request/s);
 * - reads sent outside the client (consensus, witnesses) to a rate-limited node share its client's pace;
 * - a node answering one block with a wrong parentHash once, at the start of a run fetched concurrently behind
 *   others: the link check at write time refetches from the break, and the store ends equal to the clean run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { TempoRpc } from '../../src/chain/rpc.js';
import { httpJsonRpc } from '../../src/chain/consensus/transport.js';
import { TokenRegistry } from '../../src/chain/tokens.js';
import { Collector, runBlocksFor } from '../../src/chain/collector/collector.js';
import { openStore } from '../../src/store/db.js';
import { StoreUnavailable } from '../../src/store/outage.js';
import { inlineWriter, type StoreWriter } from '../../src/chain/collector/deps.js';
import { generateLoad } from '../../src/demo/activity.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { startLimitedRpc, type LimitedRpc, type LimitedRpcOptions } from '../helpers/limited-rpc.js';
import { snapshotStore, type StoreSnapshot } from '../e2e/cli.js';
import { finalizedHeight } from '../e2e/rpc.js';

/** TIP-20 tokens anvil's Tempo mode deploys (pathUSD and the three test stablecoins). */
const TOKENS = [
  '0x20c0000000000000000000000000000000000000',
  '0x20c0000000000000000000000000000000000001',
  '0x20c0000000000000000000000000000000000002',
  '0x20c0000000000000000000000000000000000003',
];

let anvil: AnvilNode;
let head: number;
let clean: StoreSnapshot;
const dbs: TestDb[] = [];
const proxies: LimitedRpc[] = [];

async function proxy(opts: Omit<LimitedRpcOptions, 'upstream'>): Promise<LimitedRpc> {
  const p = await startLimitedRpc({ upstream: anvil.rpcUrl, ...opts });
  proxies.push(p);
  return p;
}

/** A pino logger whose lines are kept as objects. */
function recordingLog() {
  const lines: { level: number; msg: string; [k: string]: unknown }[] = [];
  const log = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { log, lines };
}

/** Collects blocks 0..head through `rpcUrl` into a fresh SQLite store, in this process, with `batchSize` blocks a run. */
async function collect(rpcUrl: string, batchSize: number, log = pino({ level: 'silent' })): Promise<StoreSnapshot> {
  const db = await createTestDb('sqlite');
  dbs.push(db);
  const store = await openStore(db.url);
  const rpc = await TempoRpc.connect({ url: rpcUrl, log });
  try {
    await new Collector({ store, rpc, tokens: new TokenRegistry(rpc), log, from: 0, batchSize, pollIntervalMs: 100, once: true }).run();
  } finally {
    await store.close();
  }
  return snapshotStore(db.url);
}

beforeAll(async () => {
  anvil = await startAnvil();
  await generateLoad(anvil.rpcUrl, { transactions: 200, perBlock: 2 });
  head = await finalizedHeight(anvil.rpcUrl);
  clean = await collect(anvil.rpcUrl, 10);
}, 240_000);

afterAll(async () => {
  for (const p of proxies) await p.close();
  await anvil?.stop();
  for (const db of dbs) await db.drop();
});

describe('a node that caps batches at 10 calls', () => {
  it.each(['-32005', '413'] as const)(
    'answered %s: halves the calls per request until accepted, warns once, reads come back whole',
    async (answer) => {
      const p = await proxy({ batchCap: 10, capAnswer: answer });
      const { log, lines } = recordingLog();
      const rpc = await TempoRpc.connect({ url: p.url, log });
      const heights = Array.from({ length: 30 }, (_, i) => i + 1);
      const direct = await (await TempoRpc.connect({ url: anvil.rpcUrl })).blocksWithReceipts(heights);
      expect(await rpc.blocksWithReceipts(heights)).toEqual(direct);
      expect(rpc.stats().batch_calls).toBeLessThanOrEqual(10);
      expect(rpc.stats().batch_calls).toBeGreaterThanOrEqual(5);
      expect(p.counts.tooLarge).toBeGreaterThan(0);
      expect(p.counts.largestBatch).toBeLessThanOrEqual(10);
      // Remembered for the node: the token registry on the same node sends batches that fit from the start.
      const refusedBefore = p.counts.tooLarge;
      const tokens = await new TokenRegistry(rpc).resolve(TOKENS);
      expect([...tokens.values()].every((t) => t.symbol !== null && t.decimals === 6)).toBe(true);
      expect(p.counts.tooLarge).toBe(refusedBefore);
      const warnings = lines.filter((l) => l.level === 40);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ batch_calls: rpc.stats().batch_calls });
    },
    60_000,
  );

  it('batches still waiting for a slot go out at the size learnt meanwhile, not refused once each', async () => {
    const p = await proxy({ batchCap: 10, capAnswer: '-32005', delayMs: 20 });
    const rpc = await TempoRpc.connect({ url: p.url, concurrency: 2 });
    // 400 calls: 10 batches of 40 queued behind 2 slots.
    const results = await rpc.batch(Array.from({ length: 400 }, () => ({ method: 'eth_blockNumber', params: [] })));
    expect(results.every((r) => typeof r === 'string')).toBe(true);
    expect(rpc.stats().batch_calls).toBe(10);
    // Only what was in flight at each cut is refused: 2 slots × 2 cuts (40 → 20 → 10), then the search's probes
    // 15, 12 and 11 one at a time; one refusal per queued batch was 10+.
    expect(p.counts.tooLarge).toBeLessThanOrEqual(2 * 2 + 3);
    expect(p.counts.forwarded).toBe(40 + 1); // eth_chainId, then 40 batches of 10
  }, 60_000);

  it('first met with a short batch of 12, searches back up to 10 instead of staying at 6', async () => {
    const p = await proxy({ batchCap: 10, capAnswer: '-32005' });
    const { log, lines } = recordingLog();
    const rpc = await TempoRpc.connect({ url: p.url, log });
    const blockNumbers = (n: number) => rpc.batch(Array.from({ length: n }, () => ({ method: 'eth_blockNumber', params: [] })));
    expect((await blockNumbers(12)).every((r) => typeof r === 'string')).toBe(true);
    expect(rpc.stats().batch_calls).toBe(6); // half the refused 12: all halving knows
    // Reads as a collector's runs make them (100 calls each): single probes find the cap.
    for (let i = 0; i < 5; i++) expect((await blockNumbers(100)).every((r) => typeof r === 'string')).toBe(true);
    expect(rpc.stats().batch_calls).toBe(10);
    expect(p.counts.largestBatch).toBe(10);
    // 12, then probes of 9 (passes), 11 (refused), 10 (passes): two refusals.
    expect(p.counts.tooLarge).toBeLessThanOrEqual(3);
    expect(lines.filter((l) => l.level === 40)).toHaveLength(1);
    expect(lines.filter((l) => l.level === 30 && String(l.msg).startsWith('the node accepts')).at(-1)).toMatchObject({ batch_calls: 10 });
  }, 60_000);

  it('a node capping at 30: found by probing (halving alone stops at 20), one probe at a time', async () => {
    const p = await proxy({ batchCap: 30, capAnswer: '413', delayMs: 5 });
    const rpc = await TempoRpc.connect({ url: p.url, concurrency: 4 });
    // Rounds of 4 reads of 60 calls at once, as a collector fetches its runs concurrently.
    for (let i = 0; i < 8; i++) {
      const reads = Array.from({ length: 4 }, () =>
        rpc.batch(Array.from({ length: 60 }, () => ({ method: 'eth_blockNumber', params: [] }))),
      );
      expect((await Promise.all(reads)).flat().every((r) => typeof r === 'string')).toBe(true);
    }
    expect(rpc.stats().batch_calls).toBe(30);
    expect(p.counts.largestBatch).toBe(30);
    // The first 40s in flight (one a read, 4 slots) and the probes 35, 32, 31, each alone.
    expect(p.counts.tooLarge).toBeLessThanOrEqual(4 + 3);
    expect(rpc.stats().batches_too_large).toBe(p.counts.tooLarge);
  }, 60_000);

  it('a node capping at 30 that also rate-limits: requests waiting for their turn go out at the size found meanwhile', async () => {
    const p = await proxy({ batchCap: 30, capAnswer: '-32005', rate: 20 });
    const rpc = await TempoRpc.connect({ url: p.url, concurrency: 4, rate: 20 });
    // One read of 1,200 calls: 30 requests of 40 at the start, most of them still waiting for their turn in the
    // pace when the search finds 30. Sized when split, they went at 20 (60 requests); sized when they go, at 30.
    const results = await rpc.batch(Array.from({ length: 1200 }, () => ({ method: 'eth_blockNumber', params: [] })));
    expect(results.every((r) => typeof r === 'string')).toBe(true);
    expect(rpc.stats().batch_calls).toBe(30);
    // 40 calls a request is refused; 1,200 / 30 = 40 requests at the size found, a few at 20 before it was.
    expect(p.counts.forwarded - 1).toBeLessThanOrEqual(40 + 6);
    expect(p.counts.tooLarge).toBeLessThanOrEqual(4 + 3);
  }, 60_000);

  it('does not stop a collector: with defaults it ends equal to a run straight from the node', async () => {
    const p = await proxy({ batchCap: 10, capAnswer: '-32005' });
    const got = await collect(p.url, 50);
    expect(got.rows).toEqual(clean.rows);
    expect(got.coverage).toEqual([{ first: 0, last: head }]);
    expect(p.counts.largestBatch).toBeLessThanOrEqual(10);
  }, 120_000);
});

describe('runs sized to fill whole requests', () => {
  it.each([
    // [--batch-size, calls per request in use, blocks per run]: 2 calls a block (the block, its receipts).
    [50, 40, 60],
    [50, 10, 50],
    [50, 5, 50],
    [50, 20, 50],
    [50, 33, 66],
    [100, 40, 100],
    [10, 40, 10],
    [1, 40, 1],
    [50, 1, 50],
    [1000, 1000, 1000],
  ])('batch size %i at %i calls per request: %i blocks a run', (batchSize, calls, blocks) => {
    expect(runBlocksFor(batchSize, calls)).toBe(blocks);
    if (blocks >= calls / 2) expect((2 * blocks) % calls).toBe(0);
  });

  it('a collector with defaults sends only full requests but one, and ends equal to the clean run', async () => {
    const p = await proxy({});
    const got = await collect(p.url, 50);
    expect(got.rows).toEqual(clean.rows);
    // Blocks 0..head at 2 calls each: 40 in every request but one (the end of the chain).
    expect(p.blockCalls.filter((n) => n !== 40).length).toBeLessThanOrEqual(1);
    expect(p.blockCalls.reduce((a, b) => a + b, 0)).toBe(2 * (head + 1));
  }, 120_000);
});

describe('a node that rate-limits with 429 and Retry-After', () => {
  it('is paced after the first refusal: at most 10% of the later requests are refused', async () => {
    const p = await proxy({ rate: 20 });
    const { log } = recordingLog();
    const rpc = await TempoRpc.connect({ url: p.url, log, batchCalls: 1, maxAttempts: 20 });
    // 160 requests of one call each, 8 in flight: 8 s at the node's 20 requests/s.
    const results = await rpc.batch(Array.from({ length: 160 }, () => ({ method: 'eth_blockNumber', params: [] })));
    expect(results.every((r) => typeof r === 'string')).toBe(true);
    const s = rpc.stats();
    expect(s.refused).toBe(p.counts.refused);
    expect(s.refused).toBeGreaterThan(0);
    expect(s.rate_per_s).not.toBeNull();
    // The burst in flight when the node first refused is refused together (at most `concurrency`); after it:
    const later = s.refused - Math.min(s.refused, rpc.concurrency);
    expect(later / s.requests).toBeLessThanOrEqual(0.1);
  }, 60_000);
});

describe('reads sent outside the client (the finality step’s consensus and witness reads)', () => {
  it('take their turn in the pace of the node’s client, and a 429 they meet slows the client', async () => {
    // The operator's rate equals the node's: paced from the start, nothing is ever refused.
    const paced = await proxy({ rate: 2 });
    const rpc = await TempoRpc.connect({ url: paced.url, rate: 2, batchCalls: 1 });
    const before = rpc.stats().requests;
    const read = httpJsonRpc(paced.url);
    // Six reads at once: unpaced, four of them would find the node's bucket of two empty.
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => read('eth_chainId', [], { signal: AbortSignal.timeout(20_000), maxBytes: 1024 })),
    );
    expect(answers.every((a) => a === '0x1079')).toBe(true);
    expect(paced.counts.refused).toBe(0);
    expect(rpc.stats().requests - before).toBe(6);

    // A node whose client is not paced yet: the refusals these reads meet set the client's pace.
    const limited = await proxy({ rate: 2 });
    const unpaced = await TempoRpc.connect({ url: limited.url, batchCalls: 1 });
    expect(unpaced.stats().rate_per_s).toBeNull();
    const readLimited = httpJsonRpc(limited.url);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, () => readLimited('eth_chainId', [], { signal: AbortSignal.timeout(20_000), maxBytes: 1024 })),
    );
    expect(outcomes.some((o) => o.status === 'rejected')).toBe(true);
    expect(unpaced.stats().refused).toBe(limited.counts.refused);
    expect(unpaced.stats().rate_per_s).not.toBeNull();
  }, 60_000);
});

describe('a node that rate-limits and answers slowly', () => {
  it('learns the rate from the requests sent, not from the answers that come back late', async () => {
    // Accepted answers take 1.5 s, refusals come at once: at the first refusal no accepted answer is back yet.
    const p = await proxy({ rate: 10, answerDelayMs: 1500 });
    const rpc = await TempoRpc.connect({ url: p.url, batchCalls: 1, maxAttempts: 20, concurrency: 16 });
    const results = await rpc.batch(Array.from({ length: 60 }, () => ({ method: 'eth_blockNumber', params: [] })));
    expect(results.every((r) => typeof r === 'string')).toBe(true);
    const s = rpc.stats();
    expect(s.refused).toBeGreaterThan(0);
    // Counting answers found the window empty and fell to the floor of 1 request/s.
    expect(s.rate_per_s).toBeGreaterThanOrEqual(5);
    expect(s.rate_per_s).toBeLessThanOrEqual(10);
  }, 60_000);
});

describe('pipelined fetching', () => {
  it('a write the store refuses for now is tried again: the runs in flight are not fetched again', async () => {
    // A fake fault: SQLITE_BUSY_SNAPSHOT (another connection committing during the write) cannot be timed for real.
    const p = await proxy({});
    const db = await createTestDb('sqlite');
    dbs.push(db);
    const store = await openStore(db.url);
    const inline = inlineWriter(store);
    let refused = 0;
    const writer: StoreWriter = {
      write: async (blocks, checkpoint) => {
        if (refused++ === 0) throw new StoreUnavailable(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY_SNAPSHOT' }));
        await inline.write(blocks, checkpoint);
      },
      whenReady: async () => {},
      close: async () => {},
    };
    const { log, lines } = recordingLog();
    const rpc = await TempoRpc.connect({ url: p.url });
    try {
      await new Collector({
        store,
        rpc,
        tokens: new TokenRegistry(rpc),
        log,
        from: 0,
        batchSize: 10,
        pollIntervalMs: 100,
        once: true,
        writer,
      }).run();
    } finally {
      await store.close();
    }
    const got = await snapshotStore(db.url);
    expect(refused).toBeGreaterThan(1);
    expect(lines.some((l) => l.msg.startsWith('collector turn failed'))).toBe(false);
    // Every block read once: nothing dropped and fetched again.
    expect(p.blockCalls.reduce((a, b) => a + b, 0)).toBe(2 * (head + 1));
    expect(got.rows).toEqual(clean.rows);
    expect(got.coverage).toEqual([{ first: 0, last: head }]);
  }, 120_000);

  it('refetches from a parent link broken mid-pipeline and ends equal to the clean run', async () => {
    // Runs of 10 blocks: block 30 starts the fourth run, fetched concurrently behind three others.
    const p = await proxy({ breakParentOnce: 30 });
    const { log, lines } = recordingLog();
    const got = await collect(p.url, 10, log);
    expect(p.counts.parentBroken).toBe(1);
    expect(lines.some((l) => l.msg.startsWith('parent link broken between runs') && l.height === 30)).toBe(true);
    expect(new Set(got.hashes).size).toBe(got.hashes.length);
    expect(got.rows).toEqual(clean.rows);
    expect(got.coverage).toEqual([{ first: 0, last: head }]);
    expect(got.checkpoint).toEqual(clean.checkpoint);
  }, 120_000);
});
