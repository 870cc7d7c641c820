/**
 * Quarantine, on SQLite and PostgreSQL, on a real anvil node in Tempo mode with real TIP-20 transfers: a block whose
 * process step keeps throwing is quarantined after CHAIN_DATA_LIMITS block_attempts turns, collection reaches the
 * head past it, /api/coverage and /api/status (real buildApp) show the gap with its reason, and the real
 * `paywatch collect --once --retry-quarantined` process writes it once it passes. A block whose decode throws
 * cannot be produced on anvil (the node's answers are always well-formed, and the decode caps bound hostile
 * tokens: test/chain/hostile-metadata.test.ts), so the throw is injected at the process step through the
 * documented test-only hook processFaultForTests (src/chain/collector/budget.ts); everything around it is real.
 */
import pino from 'pino';
import { createPublicClient, http, type PublicClient } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { processFaultForTests } from '../../src/chain/collector/budget.js';
import { Collector } from '../../src/chain/collector/collector.js';
import { CHAIN_DATA_LIMITS } from '../../src/chain/decode/limits.js';
import { TempoRpc } from '../../src/chain/rpc.js';
import { TokenRegistry } from '../../src/chain/tokens.js';
import type { FetchedBlock } from '../../src/chain/types.js';
import { loadConfig } from '../../src/config.js';
import { generateLoad } from '../../src/demo/activity.js';
import { getCheckpoint, getCoverage, readQuarantined } from '../../src/store/chain/index.js';
import { openStore, type Store } from '../../src/store/db.js';
import { createTestDb, DIALECTS, type TestDb } from '../helpers/db.js';
import { runCli } from '../e2e/cli.js';
import { finalizedHeight } from '../e2e/rpc.js';

let anvil: AnvilNode;
let head: number;
/** A height in the middle of the chain holding transactions: the block made to fail. */
let bad: number;
let badTxs: string[];

const heightOf = (f: FetchedBlock) => Number(f.block.number);

beforeAll(async () => {
  anvil = await startAnvil();
  await generateLoad(anvil.rpcUrl, { transactions: 24, perBlock: 2 });
  head = await finalizedHeight(anvil.rpcUrl);
  const c = createPublicClient({ transport: http(anvil.rpcUrl) });
  for (let h = Math.floor(head / 2); h <= head; h++) {
    const b = await c.getBlock({ blockNumber: BigInt(h) });
    if (b.transactions.length > 0) {
      bad = h;
      badTxs = b.transactions.map((t) => t.toLowerCase());
      break;
    }
  }
}, 120_000);

afterAll(async () => {
  await anvil?.stop();
});

afterEach(() => {
  processFaultForTests.hook = null;
});

/** Runs a `--once` collector from 0 in this process (batches of 4 blocks, so the bad block shares its run). */
async function collectOnce(store: Store): Promise<void> {
  const rpc = await TempoRpc.connect({ url: anvil.rpcUrl });
  const tokens = new TokenRegistry(createPublicClient({ transport: http(anvil.rpcUrl) }) as PublicClient);
  await new Collector({ store, rpc, tokens, log: pino({ level: 'silent' }), from: 0, batchSize: 4, pollIntervalMs: 50, once: true }).run();
}

async function storedHashes(store: Store): Promise<Set<string>> {
  return new Set((await store.db.selectFrom('observations').select('hash').execute()).map((r) => r.hash));
}

describe.each(DIALECTS)('on %s', (dialect) => {
  let db: TestDb;
  let store: Store;

  beforeAll(async () => {
    db = await createTestDb(dialect);
    store = await openStore(db.url);
  });

  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('a block whose processing always throws is quarantined after block_attempts turns, and collection reaches the head past it', async () => {
    expect(bad).toBeGreaterThan(0);
    let attempts = 0;
    processFaultForTests.hook = (f) => {
      if (heightOf(f) !== bad) return;
      attempts++;
      throw new Error(`injected decoder fault in block ${bad}`);
    };
    await collectOnce(store);
    expect((await getCheckpoint(store))?.height).toBe(head);
    expect(await getCoverage(store)).toEqual([
      { first: 0, last: bad - 1 },
      { first: bad + 1, last: head },
    ]);
    const [q, ...more] = await readQuarantined(store);
    expect(more).toEqual([]);
    expect(q).toMatchObject({ height: bad, attempts: CHAIN_DATA_LIMITS.block_attempts.value });
    expect(q.reason).toContain(`injected decoder fault in block ${bad}`);
    // Never retried forever: each turn tries the run, then each of its blocks alone (two calls per turn).
    expect(attempts).toBe(2 * CHAIN_DATA_LIMITS.block_attempts.value);
    const hashes = await storedHashes(store);
    for (const h of badTxs) expect(hashes.has(h)).toBe(false);
    expect(hashes.size).toBe(24 - badTxs.length);
  }, 120_000);

  it('/api/coverage and /api/status show the gap with its reason', async () => {
    const app = await buildApp({ store, config: loadConfig({ db: db.url }, {}), components: new Map() }, { logger: false });
    try {
      const cov = (await app.inject('/api/coverage')).json();
      expect(cov.intervals.map((i: { first: number; last: number }) => [i.first, i.last])).toEqual([
        [0, bad - 1],
        [bad + 1, head],
      ]);
      expect(cov.quarantine.count).toBe(1);
      expect(cov.quarantine.blocks[0]).toMatchObject({
        height: bad,
        attempts: 3,
        reason: expect.stringContaining('injected decoder fault'),
      });
      const status = await app.inject('/api/status');
      expect(status.statusCode).toBe(200);
      expect(status.json().quarantine).toEqual(cov.quarantine);
    } finally {
      await app.close();
    }
  });

  it('`paywatch collect --once --retry-quarantined` (a real process, no fault) writes the block and closes the gap', async () => {
    const r = await runCli(['collect', '--once', '--retry-quarantined', '--db', db.url, '--rpc', anvil.rpcUrl], {
      PAYWATCH_FROM_SOURCE: '1',
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(await getCoverage(store)).toEqual([{ first: 0, last: head }]);
    expect(await readQuarantined(store)).toEqual([]);
    const hashes = await storedHashes(store);
    for (const h of badTxs) expect(hashes.has(h)).toBe(true);
    expect(hashes.size).toBe(24);
  }, 120_000);
});

it('a failure no single block reproduces (transient) is not quarantined: the turn is retried and nothing is skipped', async () => {
  const db = await createTestDb('sqlite');
  const store = await openStore(db.url);
  try {
    let thrown = 0;
    processFaultForTests.hook = (f) => {
      if (heightOf(f) === bad && thrown === 0) {
        thrown++;
        throw new Error('transient fault');
      }
    };
    await collectOnce(store);
    expect(thrown).toBe(1);
    expect(await getCoverage(store)).toEqual([{ first: 0, last: head }]);
    expect(await store.db.selectFrom('quarantined_blocks').selectAll().execute()).toEqual([]);
  } finally {
    await store.close();
    await db.drop();
  }
}, 120_000);
