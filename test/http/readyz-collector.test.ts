/**
 * GET /readyz/collector (real buildApp, real store on both dialects, a real collector on a real anvil node in Tempo
 * mode): 503 with the reason when no collector ran, when the collector is in `error` (its node stopped), when blocks
 * are quarantined, or when it lags more than PAYWATCH_READY_MAX_LAG_SECONDS; 200 once it follows the head. /readyz
 * stays 200 through all of it while the store answers.
 */
import pino from 'pino';
import { createPublicClient, http, type PublicClient } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { startAnvil } from '../../src/chain/anvil.js';
import { Collector } from '../../src/chain/collector/collector.js';
import { TempoRpc } from '../../src/chain/rpc.js';
import { TokenRegistry } from '../../src/chain/tokens.js';
import { loadConfig } from '../../src/config.js';
import type { LiveComponents } from '../../src/context.js';
import { generateLoad } from '../../src/demo/activity.js';
import { getCollectorState, recordBlockFailure, releaseQuarantined, saveCollectorState } from '../../src/store/chain/index.js';
import { openStore } from '../../src/store/db.js';
import { createTestDb, DIALECTS, type TestDb } from '../helpers/db.js';

const dbs: TestDb[] = [];
afterAll(async () => {
  for (const d of dbs) await d.drop();
});

/** Polls `f` every 50 ms until it returns true (at most `ms`). */
async function until(f: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each(DIALECTS)('/readyz/collector (%s)', (dialect) => {
  it('503 with the reason: no collector, in error, quarantined blocks, lagging; 200 at the head; /readyz 200 throughout', async () => {
    const db = await createTestDb(dialect);
    dbs.push(db);
    const store = await openStore(db.url);
    const anvil = await startAnvil();
    const components: LiveComponents = new Map();
    const config = loadConfig({ db: db.url, rateLimitPerMinute: 1 }, { PAYWATCH_READY_MAX_LAG_SECONDS: '30' });
    const app = await buildApp({ store, config, components }, { logger: false });
    const probe = async () => {
      const r = await app.inject('/readyz/collector');
      expect(r.headers['cache-control']).toBe('no-store');
      expect((await app.inject('/readyz')).statusCode).toBe(200);
      return { status: r.statusCode, body: r.json() };
    };
    let collector: Collector | null = null;
    let running: Promise<void> | null = null;
    try {
      let r = await probe();
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ status: 'unready', reasons: ['no collector has run on this store'], state: null });

      await generateLoad(anvil.rpcUrl, { transactions: 6, perBlock: 2 });
      collector = new Collector({
        store,
        rpc: await TempoRpc.connect({ url: anvil.rpcUrl, timeoutMs: 500 }),
        tokens: new TokenRegistry(createPublicClient({ transport: http(anvil.rpcUrl) }) as PublicClient),
        log: pino({ level: 'silent' }),
        from: 0,
        batchSize: 4,
        pollIntervalMs: 50,
      });
      const c = collector;
      components.set('collector', () => c.report());
      running = c.run();
      await until(async () => (await probe()).status === 200);
      r = await probe();
      expect(r.body).toMatchObject({ status: 'ready', error: null, reasons: [], behind_blocks: 0, lag_seconds: 0, quarantined: 0 });

      await recordBlockFailure(store, { height: 1, hash: `0x${'ab'.repeat(32)}`, reason: 'decoder threw' }, 1, 0);
      r = await probe();
      expect(r.status).toBe(503);
      expect(r.body.quarantined).toBe(1);
      expect(r.body.error).toMatch(/^1 block quarantined \(first: 1, decoder threw\)/);
      await releaseQuarantined(store, 1);
      expect((await probe()).status).toBe(200);

      await anvil.stop(); // the node goes away: the collector's next poll fails
      await until(async () => (await probe()).body.state === 'error');
      r = await probe();
      expect(r.status).toBe(503);
      expect(r.body.reasons[0]).toMatch(/^collector in error: /);

      c.stop();
      await running;
      running = null;
      components.clear();
      // Its recorded row as a collector elsewhere leaves it when the node's head ran 100 blocks ahead of what it
      // wrote: behind, and the newest collected block older than the bound (30 s), so it lags.
      const saved = (await getCollectorState(store))!;
      await saveCollectorState(store, { ...saved, state: 'catching_up', finalized_head: (saved.last_block ?? 0) + 100 });
      await store.db
        .updateTable('chain_stats')
        .set({ newest_block_time: Math.floor(Date.now() / 1000) - 120 })
        .execute();
      r = await probe();
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ behind_blocks: 100, max_lag_seconds: 30 });
      expect(r.body.reasons).toEqual([
        expect.stringMatching(/^collection lags 1[12]\d s behind the finalized head \(100 blocks\); the bound is 30 s$/),
      ]);
    } finally {
      collector?.stop();
      await running?.catch(() => {});
      await app.close();
      await store.close();
      await anvil.stop().catch(() => {});
    }
  }, 120_000);
});
