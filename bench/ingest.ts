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
import { cpus, tmpdir } from 'node:os';
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
import { findDescendant, ownCpuSeconds, processCpuSeconds } from './lib/cpu.js';

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
  /** CPU the node (anvil) used during the run, microseconds per transaction; null when not measurable. */
  node_cpu_us_per_tx: number | null;
  /** CPU this process (fetch client, or the whole collector with its store driver) used, µs per transaction. */
  own_cpu_us_per_tx: number;
}

/** Reads the node's and this process's CPU now; the function it returns turns the deltas since into µs per transaction. */
function cpuSpan(nodePid: number | null) {
  const node0 = nodePid === null ? null : processCpuSeconds(nodePid);
  const own0 = ownCpuSeconds();
  return (transactions: number) => {
    const node1 = nodePid === null ? null : processCpuSeconds(nodePid);
    const per = (s: number) => Math.round((s * 1e6) / transactions);
    return { node_cpu_us_per_tx: node0 === null || node1 === null ? null : per(node1 - node0), own_cpu_us_per_tx: per(ownCpuSeconds() - own0) };
  };
}

const rate = (seconds: number, blocks: number, transactions: number, cpu: Pick<Rate, 'node_cpu_us_per_tx' | 'own_cpu_us_per_tx'>): Rate => ({
  seconds: Number(seconds.toFixed(3)),
  blocks,
  transactions,
  tx_per_s: Math.round(transactions / seconds),
  blocks_per_s: Math.round(blocks / seconds),
  ...cpu,
});

const node = await startAnvil();
try {
  const t0 = performance.now();
  const load = await generateLoad(node.rpcUrl, { transactions: TX, perBlock: PER_BLOCK });
  const generate_s = (performance.now() - t0) / 1000;
  const baseConfig = loadConfig({ rpcUrl: node.rpcUrl, from: 1, logLevel: 'silent' });
  // The anvil process behind its watchdog shell, for its CPU time.
  const nodePid = findDescendant(node.process.pid!, 'anvil');

  // (1) Raw: the same blocks and receipts, fetched run by run like the collector, with no processing.
  const rpc = await TempoRpc.connect({ url: node.rpcUrl, concurrency: baseConfig.rpcConcurrency, timeoutMs: baseConfig.rpcTimeoutMs });
  const head = (await rpc.finalizedHead()).height;
  let rawTx = 0;
  const rawCpu = cpuSpan(nodePid);
  const t1 = performance.now();
  for (let first = 1; first <= head; first += baseConfig.batchSize) {
    const heights = Array.from({ length: Math.min(baseConfig.batchSize, head - first + 1) }, (_, i) => first + i);
    for (const b of await rpc.blocksWithReceipts(heights)) rawTx += b.block!.transactions.length;
  }
  const raw = rate((performance.now() - t1) / 1000, head, rawTx, rawCpu(rawTx));

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
    const collectorCpu = cpuSpan(nodePid);
    const t2 = performance.now();
    await launched.collector.run();
    const seconds = (performance.now() - t2) / 1000;
    const cpu = collectorCpu(tx);
    await launched.release();
    await store.close();
    await drop();
    if (last !== head || tx !== rawTx) throw new Error(`${dialect}: collector stopped at ${last}/${head} with ${tx}/${rawTx} transactions`);
    collectors[dialect] = rate(seconds, head, tx, cpu);
  }

  const ratios = Object.fromEntries(Object.entries(collectors).map(([d, r]) => [d, Number((r.tx_per_s / raw.tx_per_s).toFixed(2))]));
  const result = { transactions_generated: load.hashes, blocks: head, generate_s: Number(generate_s.toFixed(1)), batch_size: baseConfig.batchSize, rpc_concurrency: baseConfig.rpcConcurrency, raw, collectors, decode_workers: baseConfig.decodeWorkers ?? DEFAULT_DECODE_WORKERS, worker_warmup_s: warmup, ratio_to_raw: ratios, target: '≥ 0.6', pass: Object.values(ratios).every((r) => r >= 0.6) };
  const md = [
    '# Ingest benchmark',
    '',
    `Command: \`node bin/run-ts.js bench/ingest.ts --transactions ${TX} --per-block ${PER_BLOCK}\`. Anvil in Tempo mode (chain id 4217) on loopback; ${head} finalized blocks holding ${rawTx} transactions (generated in ${generate_s.toFixed(0)} s). Batch ${baseConfig.batchSize} blocks, RPC concurrency ${baseConfig.rpcConcurrency}, ${baseConfig.decodeWorkers ?? DEFAULT_DECODE_WORKERS} decode worker(s), timed after they loaded (${Object.entries(warmup).map(([d, s]) => `${d} ${s} s`).join(', ')}, not counted). Run at ${new Date().toISOString()}, ${process.platform} ${process.arch}, ${cpus().length} cores, Node ${process.version}.`,
    '',
    '| run | seconds | blocks/s | tx/s | share of raw | node CPU µs/tx | paywatch CPU µs/tx |',
    '|---|---:|---:|---:|---:|---:|---:|',
    `| raw JSON-RPC fetch (blocks + receipts, no processing) | ${raw.seconds} | ${raw.blocks_per_s} | ${raw.tx_per_s} | 1.00 | ${raw.node_cpu_us_per_tx ?? 'n/a'} | ${raw.own_cpu_us_per_tx} |`,
    ...Object.entries(collectors).map(([d, r]) => `| collector → ${d} | ${r.seconds} | ${r.blocks_per_s} | ${r.tx_per_s} | ${ratios[d]} | ${r.node_cpu_us_per_tx ?? 'n/a'} | ${r.own_cpu_us_per_tx} |`),
    '',
    `CPU columns: CPU time (user + system, all threads) per transaction of the node (anvil) and of this process (the fetch client for the raw run; the whole collector with its store driver otherwise), from /proc and process.cpuUsage() over the same span. On ${cpus().length} cores the node and paywatch share, the collector can reach at most about ${cpus().length} × 10^6 / (node + paywatch CPU per tx) tx/s, however well its stages overlap.`,
    '',
    `Target: collector ≥ 0.6 × raw tx/s — ${result.pass ? 'met' : 'NOT met'}.`,
  ].join('\n');
  writeResults('ingest', result, md);
  process.stdout.write(`${md}\n`);
} finally {
  await node.stop();
}
