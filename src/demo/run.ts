/**
 * The offline demo: a local anvil node in Tempo mode, real varied activity driven into it (generateActivity),
 * the collector following its finalized head, and the public API over a store, all in this process.
 * Everything it starts is stopped by `stop()`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { freePort, startAnvil, type AnvilNode } from '../chain/anvil.js';
import { launchCollector, type LaunchedCollector } from '../chain/collector/index.js';
import { listenApi } from '../cli/commands/serve.js';
import { loadConfig, type Flags } from '../config.js';
import { openStore, type Store } from '../store/db.js';
import { generateActivity, type GroundTruth } from './activity.js';

export interface DemoOptions {
  /** Flags as given (db, port, host, logLevel…); rpcUrl and from are set by the demo. */
  flags: Flags;
  log: Logger;
  /** Progress lines for the person watching (default: nothing). */
  say?: (line: string) => void;
}

export interface RunningDemo {
  /** Base URL of the API, e.g. http://127.0.0.1:41234 */
  apiUrl: string;
  rpcUrl: string;
  /** The store location (a temporary SQLite file unless `--db` was given). */
  db: string;
  /** True when the store is a temporary one, deleted by stop(). */
  temporaryStore: boolean;
  truth: GroundTruth;
  /** Example requests worth trying, one URL each. */
  urls: string[];
  /** Stops the collector, the API and anvil, releases the store and deletes a temporary store. Idempotent. */
  stop(): Promise<void>;
}

/** Seconds between blocks once the activity is in, so the collector has a moving finalized head to follow. */
const BLOCK_SECONDS = 1;

/**
 * Starts the whole demo and returns once the collector has caught up with the generated activity.
 * @throws Error (one line) when anvil, the store, the collector or the API cannot start; whatever had started
 *   is stopped again first
 */
export async function startDemo(opts: DemoOptions): Promise<RunningDemo> {
  const say = opts.say ?? (() => {});
  const cleanups: (() => Promise<void>)[] = [];
  const stop = async () => {
    while (cleanups.length) await cleanups.pop()!().catch((e) => opts.log.warn({ err: (e as Error).message }, 'demo cleanup step failed'));
  };
  try {
    const anvil: AnvilNode = await startAnvil();
    cleanups.push(() => anvil.stop());
    say(`anvil (Tempo mode, chain id 4217) on ${anvil.rpcUrl}`);

    say('driving activity into it: transfers, memos, MPP charges, 0x76 batches, a sponsored fee, a revert, DEX swaps, a EUR token…');
    const truth = await generateActivity(anvil.rpcUrl);
    say(`${truth.transactions.length} transactions up to block ${truth.lastTxHeight}`);

    const temporaryStore = opts.flags.db === undefined && !process.env.PAYWATCH_DB;
    let db = String(opts.flags.db ?? process.env.PAYWATCH_DB ?? '');
    if (temporaryStore) {
      const dir = mkdtempSync(join(tmpdir(), 'paywatch-demo-'));
      cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
      db = `sqlite:${join(dir, 'paywatch.sqlite')}`;
    }
    const port = opts.flags.port ?? (await freePort());
    const config = loadConfig({ ...opts.flags, db, port, rpcUrl: anvil.rpcUrl, from: 0, pollIntervalMs: opts.flags.pollIntervalMs ?? 250 });

    const store: Store = await openStore(config.db);
    cleanups.push(() => store.close());
    say(`store: ${store.location}${temporaryStore ? ' (temporary, deleted when the demo stops; use --db to keep one)' : ''}`);

    const launched: LaunchedCollector = await launchCollector(config, store, opts.log);
    cleanups.push(() => launched.release());
    const { collector } = launched;
    const running = collector.run();
    cleanups.push(async () => {
      collector.stop();
      await running;
    });

    const { app, url } = await listenApi(config, store, opts.log, new Map([['collector', () => collector.report()]]));
    cleanups.push(() => app.close());

    // Wait until the generated activity is collected, then let blocks keep coming for the collector to follow.
    while ((collector.status().last_block ?? -1) < truth.lastTxHeight) {
      const s = collector.status();
      if (s.state === 'error') say(`collector: ${s.last_error?.message} (retrying)`);
      await Promise.race([running, new Promise((r) => setTimeout(r, 100))]);
    }
    await rpc(anvil.rpcUrl, 'evm_setIntervalMining', [BLOCK_SECONDS]);

    const mpp = truth.transactions.find((t) => t.protocol === 'mpp') ?? truth.transactions[0];
    const swap = truth.transactions.find((t) => t.exchange !== null);
    const urls = [
      `${url}/api/status`,
      `${url}/api/coverage`,
      `${url}/api/transactions`,
      `${url}/api/transactions/${mpp.hash}`,
      ...(swap ? [`${url}/api/transactions?exchange=${encodeURIComponent(swap.exchange!)}`] : []),
      `${url}/api/transactions?q=${mpp.sender}`,
      `${url}/api/metrics`,
      `${url}/api/export`,
      `${url}/api/openapi.json`,
    ];
    return { apiUrl: url, rpcUrl: anvil.rpcUrl, db: store.location, temporaryStore, truth, urls, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

async function rpc(url: string, method: string, params: unknown[]): Promise<void> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const j = (await r.json()) as { error?: { message: string } };
  if (j.error) throw new Error(`${method}: ${j.error.message}`);
}
