/**
 * Finality benchmark: what certificate checks add to the collector's CPU on the ingest benchmark's chain (a local
 * anvil in Tempo mode holding 20,000 transactions in 2,000 blocks, bench/ingest.ts). Each round collects that chain
 * into an empty SQLite store in process, to the finalized head, twice: without certificate checks (the default
 * settings against anvil, which answers `consensus_*` with method-not-found, so finality stays unknown after one
 * call) and with them (`--consensus-rpc` a loopback node serving certificates signed by a test key whose identity
 * is the `--consensus-genesis` outcome: test/helpers/consensus-rpc.ts, in a process of its own so its signing is not
 * counted), at the shipped spacing (one per 1,000 blocks or 60 s, one at the head when caught up). The order of the
 * two alternates between rounds, after WARMUP uncounted pairs.
 * Figure: CPU time (user + system, all threads) of this process from the collector's start to the end of its last
 * certificate check (`finality.idle()`), not wall time: the box is shared. Target ≤ 5% added CPU (median of the
 * rounds' paired ratios). Also: ms per verification (the collector's own histogram, wall time of the synchronous
 * verifyFinality; and CPU time over a loop of verifications of one served certificate), and the store's bytes per
 * observation with the `blocks` table and its certificates (the last store collected with checks).
 * Results: bench/results/finality.{json,md}.
 * Run: node bin/run-ts.js bench/finality.ts [--transactions N] [--per-block N] [--rounds N] [--warmup N] [--loop N]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { startAnvil } from '../src/chain/anvil.js';
import { launchCollector } from '../src/chain/collector/index.js';
import { anchorKeyChain, finalityBlock, readFinalization, verifyFinality } from '../src/chain/consensus/index.js';
import { httpJsonRpc } from '../src/chain/consensus/transport.js';
import type { RpcBlock } from '../src/chain/types.js';
import { NODE_FLAGS } from '../src/cli/node-flags.js';
import { loadConfig } from '../src/config.js';
import { generateLoad } from '../src/demo/activity/load.js';
import { finalityVerifySeconds } from '../src/ops/metrics.js';
import { readFinalityState } from '../src/store/chain/index.js';
import { readStats } from '../src/store/chain/query.js';
import { openStore } from '../src/store/db.js';
import { storageUsage } from '../src/store/maintenance.js';
import { testGenesisOutcome, testKey } from '../test/helpers/consensus.js';
import { ownCpuSeconds } from './lib/cpu.js';
import { writeResults } from './lib/load.js';
import { ensureNodeFlags } from './lib/node-flags.js';

// The collector runs in this process: with the V8 flags `paywatch` starts with.
ensureNodeFlags(import.meta.url);

const { values } = parseArgs({
  options: {
    transactions: { type: 'string', default: '20000' },
    'per-block': { type: 'string', default: '10' },
    rounds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    loop: { type: 'string', default: '10' },
  },
});
const TX = Number(values.transactions);
const PER_BLOCK = Number(values['per-block']);
const ROUNDS = Number(values.rounds);
const WARMUP = Number(values.warmup);
const LOOP = Number(values.loop);

/** One epoch for the whole chain (no boundary inside it: the spacing alone decides the checks). */
const EPOCH_LENGTH = 1_000_000;
const KEY_LABEL = 'paywatch finality bench';
const GENESIS = testGenesisOutcome(testKey(KEY_LABEL));

interface Run {
  checks: boolean;
  /** CPU seconds of this process (all threads) from the collector's start to the end of its certificate checks. */
  cpu_s: number;
  wall_s: number;
  transactions: number;
  /** Certificates verified during the run (the collector's histogram). */
  verifications: number;
  /** Sum of their verifyFinality wall times, ms. */
  verify_ms: number;
  /** The store's finality counters after the run. */
  verified_observations: number;
  last_verified_height: number | null;
}

/** Starts the loopback consensus node in its own process; resolves with its URL and a stop function. */
async function consensusNode(upstream: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [
      'bin/run-ts.js',
      'bench/lib/consensus-node.ts',
      '--upstream',
      upstream,
      '--key-label',
      KEY_LABEL,
      '--epoch-length',
      String(EPOCH_LENGTH),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /READY (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`consensus node exited (${code}) before it listened`)));
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await done;
    },
  };
}

const histogram = async () => {
  const m = await finalityVerifySeconds.get();
  const sum = m.values.find((v) => v.metricName === 'paywatch_finality_verify_seconds_sum')?.value ?? 0;
  const count = m.values.find((v) => v.metricName === 'paywatch_finality_verify_seconds_count')?.value ?? 0;
  return { sum, count };
};

/** Collects the chain at `rpcUrl` into a fresh SQLite store, with or without certificate checks. */
async function collectRound(rpcUrl: string, consensusRpc: string | null, keepAs: string | null): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'paywatch-finality-'));
  const db = `sqlite:${keepAs ?? join(dir, 'store.sqlite')}`;
  if (keepAs) for (const f of [keepAs, `${keepAs}-wal`, `${keepAs}-shm`]) rmSync(f, { force: true });
  const config = loadConfig({
    db,
    rpcUrl,
    from: 1,
    logLevel: 'silent',
    ...(consensusRpc ? { consensusRpc, consensusGenesis: GENESIS, consensusEpochLength: EPOCH_LENGTH } : {}),
  });
  const store = await openStore(db);
  let tx = 0;
  try {
    const launched = await launchCollector(config, store, pino({ level: 'silent' }), {
      once: true,
      onProgress: (p) => {
        tx += p.transactions;
      },
    });
    // The writer thread's one-off load is not counted (as in bench/ingest.ts).
    await launched.collector.whenReady();
    const h0 = await histogram();
    const cpu0 = ownCpuSeconds();
    const t0 = performance.now();
    await launched.collector.run();
    await launched.finality.idle();
    const cpu_s = ownCpuSeconds() - cpu0;
    const wall_s = (performance.now() - t0) / 1000;
    const h1 = await histogram();
    await launched.release();
    const state = await readFinalityState(store.db);
    return {
      checks: consensusRpc !== null,
      cpu_s: Number(cpu_s.toFixed(3)),
      wall_s: Number(wall_s.toFixed(3)),
      transactions: tx,
      verifications: h1.count - h0.count,
      verify_ms: Number(((h1.sum - h0.sum) * 1000).toFixed(1)),
      verified_observations: state.verified,
      last_verified_height: state.last_verified_height,
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** CPU ms per verifyFinality of the certificate served for `height` (LOOP times in a row, nothing else running). */
async function verificationLoop(consensusUrl: string, height: number): Promise<{ cpu_ms: number; wall_ms: number; status: string }> {
  const request = httpJsonRpc(consensusUrl);
  const answer = await readFinalization(request, { height }, { timeoutMs: 10_000 });
  if (answer.kind !== 'certified') throw new Error(`no certificate for ${height}: ${answer.kind}`);
  // As the collector does (src/chain/collector/finality.ts): the served header with the hash the store holds.
  const block = (await request('eth_getBlockByNumber', [`0x${height.toString(16)}`, false], {
    signal: AbortSignal.timeout(10_000),
    maxBytes: 1 << 20,
  })) as { hash: string };
  const header = { ...answer.block.header, hash: block.hash } as unknown as RpcBlock;
  const keyChain = anchorKeyChain(GENESIS, 'bench');
  const input = { certificate: answer.block.certificate, ...finalityBlock(header) };
  let status = '';
  const cpu0 = ownCpuSeconds();
  const t0 = performance.now();
  for (let i = 0; i < LOOP; i++) status = verifyFinality(input, { keyChain, epochLength: EPOCH_LENGTH }).status;
  if (status !== 'verified') throw new Error(`the head's certificate did not verify: ${status}`);
  return {
    cpu_ms: Number((((ownCpuSeconds() - cpu0) * 1000) / LOOP).toFixed(1)),
    wall_ms: Number(((performance.now() - t0) / LOOP).toFixed(1)),
    status,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load0 = loadavg();
const node = await startAnvil();
try {
  const t0 = performance.now();
  const load = await generateLoad(node.rpcUrl, { transactions: TX, perBlock: PER_BLOCK });
  const generate_s = (performance.now() - t0) / 1000;
  const consensus = await consensusNode(node.rpcUrl);
  try {
    const pairs: { without: Run; with: Run; added: number }[] = [];
    const warm: Run[] = [];
    const keep = 'bench/tmp/finality.sqlite';
    for (let r = 0; r < WARMUP + ROUNDS; r++) {
      const counted = r >= WARMUP;
      const last = r === WARMUP + ROUNDS - 1;
      // Alternating order, so a drift in the box's other load falls on both alike.
      const order = r % 2 === 0 ? [false, true] : [true, false];
      const runs: Partial<Record<'with' | 'without', Run>> = {};
      for (const checks of order) {
        const run = await collectRound(node.rpcUrl, checks ? consensus.url : null, checks && last ? keep : null);
        if (checks && run.verified_observations !== run.transactions)
          throw new Error(`with checks: ${run.verified_observations}/${run.transactions} observations verified`);
        runs[checks ? 'with' : 'without'] = run;
        process.stderr.write(
          `round ${r}${counted ? '' : ' (warm-up)'} ${checks ? 'with' : 'without'}: CPU ${run.cpu_s} s, wall ${run.wall_s} s, ${run.verifications} verifications (${run.verify_ms} ms)\n`,
        );
      }
      if (!counted) {
        warm.push(runs.without!, runs.with!);
        continue;
      }
      const added = Number(((runs.with!.cpu_s / runs.without!.cpu_s - 1) * 100).toFixed(2));
      pairs.push({ without: runs.without!, with: runs.with!, added });
    }
    const head = pairs[0]!.with.last_verified_height!;
    const loop = await verificationLoop(consensus.url, head);
    const addedMedian = median(pairs.map((p) => p.added));
    const cpuWithout = median(pairs.map((p) => p.without.cpu_s));
    const cpuWith = median(pairs.map((p) => p.with.cpu_s));
    const verifications = pairs[0]!.with.verifications;
    const verifyMs = Number(
      (pairs.reduce((s, p) => s + p.with.verify_ms, 0) / pairs.reduce((s, p) => s + p.with.verifications, 0)).toFixed(1),
    );
    // Bytes per observation of the last store collected with checks (blocks table and certificates included).
    const store = await openStore(`sqlite:${keep}`);
    const n = (await readStats(store.db)).count;
    const objects = await storageUsage(store);
    await store.close();
    const total = objects.reduce((s, o) => s + o.bytes, 0);
    const blocks = objects.filter((o) => o.table === 'blocks');
    const blocksBytes = blocks.reduce((s, o) => s + o.bytes, 0);
    const size = {
      observations: n,
      total_per_observation: Math.round(total / Math.max(1, n)),
      blocks_table_bytes: blocksBytes,
      blocks_per_observation: Math.round(blocksBytes / Math.max(1, n)),
      blocks_objects: blocks,
    };
    const result = {
      transactions_generated: load.hashes,
      generate_s: Number(generate_s.toFixed(1)),
      epoch_length: EPOCH_LENGTH,
      node_flags: NODE_FLAGS,
      rounds: ROUNDS,
      warmup_rounds: WARMUP,
      load_average_start: load0,
      load_average_end: loadavg(),
      pairs,
      warmup: warm,
      median_cpu_s: { without: cpuWithout, with: cpuWith },
      added_cpu_percent_median: addedMedian,
      verifications_per_run: verifications,
      verify_ms_mean_in_collector: verifyMs,
      verification_loop: { rounds: LOOP, ...loop },
      store: size,
      target: '≤ 5% added CPU',
      pass: addedMedian <= 5,
    };
    const la = (l: number[]) => l.map((x) => x.toFixed(1)).join(' / ');
    const md = [
      '# Finality benchmark: the collector with and without certificate checks',
      '',
      `Command: \`node bin/run-ts.js bench/finality.ts ${process.argv.slice(2).join(' ')}\`. Anvil in Tempo mode on loopback, ${load.hashes} transactions in ${PER_BLOCK} per block (generated in ${generate_s.toFixed(0)} s), collected from block 1 into a fresh SQLite store in process per run; with checks: \`--consensus-rpc\` a loopback node in its own process serving certificates signed by a test key (test/helpers/consensus-rpc.ts), \`--consensus-genesis\` planting its identity, epoch length ${EPOCH_LENGTH} (no boundary), the shipped spacing (one per 1,000 blocks or 60 s, one at the head when caught up); without: the default settings against anvil (\`consensus_*\` answers method-not-found: finality unknown). ${WARMUP} warm-up pair(s), then ${ROUNDS} pairs in alternating order. CPU: user + system of this process, all threads (the SQLite writer thread included), from the collector's start to the end of its last certificate check. ${cpus().length} cores shared with other work; load average (1 / 5 / 15 min) ${la(load0)} at the start, ${la(loadavg())} at the end. Node ${process.version}, flags ${NODE_FLAGS.join(' ')}. Run at ${new Date().toISOString()}.`,
      '',
      '| pair | CPU s without | CPU s with | added CPU | verifications | verify ms (sum) | wall s without / with |',
      '|---:|---:|---:|---:|---:|---:|---|',
      ...pairs.map(
        (p, i) =>
          `| ${i + 1} | ${p.without.cpu_s} | ${p.with.cpu_s} | ${p.added}% | ${p.with.verifications} | ${p.with.verify_ms} | ${p.without.wall_s} / ${p.with.wall_s} |`,
      ),
      '',
      `Median added CPU: **${addedMedian}%** (median CPU ${cpuWithout} s without, ${cpuWith} s with) — target ≤ 5%: ${addedMedian <= 5 ? 'met' : 'NOT met'}. Every run with checks ended with all ${pairs[0]!.with.transactions} observations verified (last verified height ${head}).`,
      '',
      `Per verification: **${verifyMs} ms** in the collector (mean wall time of verifyFinality, its histogram \`paywatch_finality_verify_seconds\`, over ${pairs.reduce((s, p) => s + p.with.verifications, 0)} verifications); ${loop.cpu_ms} ms CPU (${loop.wall_ms} ms wall) in a loop of ${LOOP} verifications of the head's certificate (${loop.status}).`,
      '',
      `Store (the last run with checks): ${size.total_per_observation} bytes per observation, every table and index, of which the \`blocks\` table ${size.blocks_per_observation} (${size.blocks_table_bytes} bytes: ${blocks.map((o) => `${o.name} ${o.bytes}`).join(', ')}).`,
      '',
      `Warm-up (not counted), CPU s without / with: ${warm.map((w) => w.cpu_s).join(' / ')}.`,
      '',
    ].join('\n');
    writeResults('finality', result, md);
    process.stdout.write(md);
  } finally {
    await consensus.stop();
  }
} finally {
  await node.stop();
}
