/**
 * Collector stage costs: on a local Tempo anvil with generated load, times each stage of
 * the collector's work over the same fetched blocks: fetch (JSON-RPC), structured clone (what a worker
 * hand-off costs), integrity + decode inline, the same on a DecodePool of 1 and 2 workers (start-up included),
 * and the store write (SQLite). Milliseconds per transaction, printed; nothing written to bench/results.
 * Run: node bin/run-ts.js bench/ingest-parts.ts [--transactions N]
 */
import { parseArgs } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAnvil } from '../src/chain/anvil.js';
import { generateLoad } from '../src/demo/activity/load.js';
import { TempoRpc } from '../src/chain/rpc.js';
import { createPublicClient, http, type PublicClient } from 'viem';
import { tempo } from 'viem/chains';
import { TokenRegistry } from '../src/chain/tokens.js';
import { tokenAddressesOf, writePreparedBlocks } from '../src/chain/collector/deps.js';
import { processRun } from '../src/chain/collector/process.js';
import { DecodePool } from '../src/chain/collector/pool.js';
import { fetchConsistentRun } from '../src/chain/collector/fetch.js';
import { openStore } from '../src/store/db.js';
import type { FetchedBlock } from '../src/chain/types.js';

const { values } = parseArgs({ options: { transactions: { type: 'string', default: '2000' } } });
const TX = Number(values.transactions);
const BATCH = 50;
const node = await startAnvil();
const dir = mkdtempSync(join(tmpdir(), 'paywatch-parts-'));
try {
  await generateLoad(node.rpcUrl, { transactions: TX, perBlock: 10 });
  const rpc = await TempoRpc.connect({ url: node.rpcUrl, concurrency: 8, timeoutMs: 10_000 });
  const head = (await rpc.finalizedHead()).height;
  const time = async <T>(label: string, txs: number, f: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    const r = await f();
    const ms = performance.now() - t;
    process.stdout.write(`${label.padEnd(40)} ${ms.toFixed(0).padStart(7)} ms  ${(ms / txs).toFixed(3)} ms/tx\n`);
    return r;
  };
  const runs: FetchedBlock[][] = [];
  let txs = 0;
  await time('fetch (fetchConsistentRun)', TX, async () => {
    let prev: string | null = null;
    for (let first = 1; first <= head; first += BATCH) {
      const r = await fetchConsistentRun(rpc, first, Math.min(head, first + BATCH - 1), head, prev);
      prev = r[r.length - 1].block.hash;
      runs.push(r);
      for (const f of r) txs += f.block.transactions.length;
    }
  });
  const registry = new TokenRegistry(createPublicClient({ chain: tempo, transport: http(node.rpcUrl, { batch: true }) }) as PublicClient);
  const tokens = await registry.resolve([...new Set(runs.flat().flatMap(tokenAddressesOf))]);
  await time('structuredClone (hand-off, one way)', txs, async () => runs.map((r) => structuredClone(r)));
  const decoded = await time('integrity + decode inline', txs, async () => Promise.all(runs.map((r) => processRun(r, tokens))));
  for (const n of [1, 2]) {
    const pool = new DecodePool(n);
    await time(`pool(${n}) start-up (whenReady)`, txs, () => pool.whenReady());
    await time(`pool(${n}) all runs`, txs, () => Promise.all(runs.map((r) => pool.process(r, tokens))));
    await pool.close();
  }
  const store = await openStore(`sqlite:${join(dir, 's.sqlite')}`);
  await time('writePreparedBlocks sqlite', txs, async () => {
    for (const b of decoded) await writePreparedBlocks(store, b, { height: b[b.length - 1].height, hash: b[b.length - 1].hash });
  });
  await store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
  await node.stop();
}
