/**
 * Ingest benchmark (issue 2 §9): a local anvil in Tempo mode filled with ≥ 20,000 transactions over ≥ 2,000
 * blocks; in one run, (1) the raw rate of fetching those blocks and receipts over JSON-RPC with no processing
 * (the same RPC client, batch size and concurrency the collector uses), and (2) the collector's rate from an
 * empty store to the finalized head, on SQLite and PostgreSQL. Target: collector ≥ 0.6 × raw (tx/s).
 * Results: bench/results/ingest.{json,md}.
 * Run: node bin/run-ts.js bench/ingest.ts [--transactions N] [--per-block N]
 */
import { parseArgs } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { startAnvil } from '../src/chain/anvil.js';
import { generateLoad } from '../src/demo/activity/load.js';
import { TempoRpc } from '../src/chain/rpc.js';
import { launchCollector } from '../src/chain/collector/index.js';
import { DEFAULT_DECODE_WORKERS } from '../src/chain/collector/collector.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/store/db.js';
import { writeResults } from './lib/load.js';
import { benchStore, dropBenchDatabase } from './lib/db.js';

const { values } = parseArgs({
  options: { transactions: { type: 'string', default: '20000' }, 'per-block': { type: 'string', default: '10' } },
});
const TX = Number(values.transactions);
const PER_BLOCK = Number(values['per-block']);

interface Rate {
  seconds: number;
  blocks: number;
  transactions: number;
  tx_per_s: number;
  blocks_per_s: number;
}
const rate = (seconds: number, blocks: number, transactions: number): Rate => ({
  seconds: Number(seconds.toFixed(3)),
  blocks,
  transactions,
  tx_per_s: Math.round(transactions / seconds),
  blocks_per_s: Math.round(blocks / seconds),
});

const node = await startAnvil();
try {
  const t0 = performance.now();
  const load = await generateLoad(node.rpcUrl, { transactions: TX, perBlock: PER_BLOCK });
  const generate_s = (performance.now() - t0) / 1000;
  const baseConfig = loadConfig({ rpcUrl: node.rpcUrl, from: 1, logLevel: 'silent' });

  // (1) Raw: the same blocks and receipts, fetched run by run like the collector, with no processing.
  const rpc = await TempoRpc.connect({ url: node.rpcUrl, concurrency: baseConfig.rpcConcurrency, timeoutMs: baseConfig.rpcTimeoutMs });
  const head = (await rpc.finalizedHead()).height;
  let rawTx = 0;
  const t1 = performance.now();
  for (let first = 1; first <= head; first += baseConfig.batchSize) {
    const heights = Array.from({ length: Math.min(baseConfig.batchSize, head - first + 1) }, (_, i) => first + i);
    for (const b of await rpc.blocksWithReceipts(heights)) rawTx += b.block!.transactions.length;
  }
  const raw = rate((performance.now() - t1) / 1000, head, rawTx);

  // (2) The collector, from an empty store to the same head.
  const collectors: Record<string, Rate> = {};
  const warmup: Record<string, number> = {};
  for (const dialect of ['sqlite', 'postgres'] as const) {
    const name = `paywatch_ingest_${process.pid}`;
    const dir = mkdtempSync(join(tmpdir(), 'paywatch-ingest-'));
    const db = dialect === 'sqlite' ? `sqlite:${join(dir, 'store.sqlite')}` : await benchStore('postgres', name, { fresh: true });
    const drop = async () => (dialect === 'sqlite' ? rmSync(dir, { recursive: true, force: true }) : dropBenchDatabase(name));
    const config = loadConfig({ db, rpcUrl: node.rpcUrl, from: 1, logLevel: 'silent' });
    const store = await openStore(db);
    let tx = 0;
    let last = 0;
    const launched = await launchCollector(config, store, pino({ level: 'silent' }), {
      once: true,
      onProgress: (p) => ((tx += p.transactions), (last = p.lastBlock)),
    });
    // Steady-state rate: the decode worker's one-off load (about 2 s of CPU, tsx + viem in a fresh thread) is
    // waited for before the clock starts, like the lock and the node's chain id check; its time is reported.
    const tw = performance.now();
    await launched.collector.whenReady();
    warmup[dialect] = Number(((performance.now() - tw) / 1000).toFixed(2));
    const t2 = performance.now();
    await launched.collector.run();
    const seconds = (performance.now() - t2) / 1000;
    await launched.release();
    await store.close();
    await drop();
    if (last !== head || tx !== rawTx) throw new Error(`${dialect}: collector stopped at ${last}/${head} with ${tx}/${rawTx} transactions`);
    collectors[dialect] = rate(seconds, head, tx);
  }

  const ratios = Object.fromEntries(Object.entries(collectors).map(([d, r]) => [d, Number((r.tx_per_s / raw.tx_per_s).toFixed(2))]));
  const result = { transactions_generated: load.hashes, blocks: head, generate_s: Number(generate_s.toFixed(1)), batch_size: baseConfig.batchSize, rpc_concurrency: baseConfig.rpcConcurrency, raw, collectors, decode_workers: baseConfig.decodeWorkers ?? DEFAULT_DECODE_WORKERS, worker_warmup_s: warmup, ratio_to_raw: ratios, target: '≥ 0.6', pass: Object.values(ratios).every((r) => r >= 0.6) };
  const md = [
    '# Ingest benchmark',
    '',
    `Command: \`node bin/run-ts.js bench/ingest.ts --transactions ${TX} --per-block ${PER_BLOCK}\`. Anvil in Tempo mode (chain id 4217) on loopback; ${head} finalized blocks holding ${rawTx} transactions (generated in ${generate_s.toFixed(0)} s). Batch ${baseConfig.batchSize} blocks, RPC concurrency ${baseConfig.rpcConcurrency}, ${baseConfig.decodeWorkers ?? DEFAULT_DECODE_WORKERS} decode worker(s), timed after they loaded (${Object.entries(warmup).map(([d, s]) => `${d} ${s} s`).join(', ')}, not counted). Run at ${new Date().toISOString()}, ${process.platform} ${process.arch}, 2 cores, Node ${process.version}.`,
    '',
    '| run | seconds | blocks/s | tx/s | share of raw |',
    '|---|---:|---:|---:|---:|',
    `| raw JSON-RPC fetch (blocks + receipts, no processing) | ${raw.seconds} | ${raw.blocks_per_s} | ${raw.tx_per_s} | 1.00 |`,
    ...Object.entries(collectors).map(([d, r]) => `| collector → ${d} | ${r.seconds} | ${r.blocks_per_s} | ${r.tx_per_s} | ${ratios[d]} |`),
    '',
    `Target: collector ≥ 0.6 × raw tx/s — ${result.pass ? 'met' : 'NOT met'}.`,
  ].join('\n');
  writeResults('ingest', result, md);
  process.stdout.write(`${md}\n`);
} finally {
  await node.stop();
}
