/**
 * `--retain-days` through the collector, on a real anvil node in Tempo mode with real TIP-20 transfers and a real
 * SQLite store: the collector runs its retention step between writes. The step's clock is set two days ahead (the
 * node's blocks are from now, and waiting a day is not an option), so with one day kept everything collected has
 * expired: the collection completes and the store ends empty, saying from where data is retained.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { Collector } from '../../src/chain/collector/collector.js';
import { RetentionStep } from '../../src/chain/collector/retention.js';
import { TempoRpc } from '../../src/chain/rpc.js';
import { TokenRegistry } from '../../src/chain/tokens.js';
import { generateLoad } from '../../src/demo/activity.js';
import { getCheckpoint, getCoverage, readRetention } from '../../src/store/chain/index.js';
import type { Store } from '../../src/store/db.js';
import { storeFactory, countObservations } from '../helpers/db.js';
import { finalizedHeight } from '../e2e/rpc.js';

let anvil: AnvilNode;
let head: number;

beforeAll(async () => {
  anvil = await startAnvil();
  await generateLoad(anvil.rpcUrl, { transactions: 12, perBlock: 2 });
  head = await finalizedHeight(anvil.rpcUrl);
}, 120_000);

afterAll(async () => {
  await anvil?.stop();
});

describe('collector with --retain-days', () => {
  const stores = storeFactory('sqlite');
  afterAll(() => stores.cleanup());

  const collectOnce = async (store: Store, retention?: RetentionStep) => {
    const rpc = await TempoRpc.connect({ url: anvil.rpcUrl });
    const tokens = new TokenRegistry(rpc);
    await new Collector({
      store,
      rpc,
      tokens,
      log: pino({ level: 'silent' }),
      from: 0,
      batchSize: 4,
      pollIntervalMs: 50,
      once: true,
      retention,
    }).run();
  };
  const count = countObservations;

  it('keeps everything without retention', async () => {
    const s = await stores.fresh();
    await collectOnce(s);
    expect(await count(s)).toBeGreaterThanOrEqual(12);
    expect(await readRetention(s)).toBeNull();
  }, 120_000);

  it('drops what has expired between writes and still collects to the head', async () => {
    const s = await stores.fresh();
    const twoDaysAhead = () => Date.now() + 2 * 86_400_000;
    await collectOnce(s, new RetentionStep(s, 1, pino({ level: 'silent' }), { now: twoDaysAhead }));
    expect((await getCheckpoint(s))?.height).toBe(head);
    expect(await count(s)).toBe(0);
    expect(await getCoverage(s)).toEqual([]);
    const r = await readRetention(s);
    expect(r?.dropped).toBeGreaterThanOrEqual(12);
    expect(r?.retainedFromHeight).toBe(head + 1);
  }, 120_000);
});
