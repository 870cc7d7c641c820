/**
 * Finality benchmark: what certificate checks add to the collector's CPU on the ingest benchmark's chain (a local
 * anvil in Tempo mode holding 20,000 transactions in 2,000 blocks, bench/ingest.ts). Each round collects that chain
 * into an empty SQLite store in process, to the finalized head, three ways:
 * - `none`: the collector with no finality step at all (its hook left out), the reference;
 * - `default`: the default settings against anvil, which answers `consensus_*` with method-not-found (what a node
 *   without the namespace gives: finality stays unknown, the step records that at the spacing's heights);
 * - `checks`: `--consensus-rpc` a loopback node serving certificates signed by a test key whose identity is the
 *   `--consensus-genesis` outcome (test/helpers/consensus-rpc.ts, in a process of its own so its signing is not
 *   counted), at the shipped spacing (one per 1,000 blocks or 60 s, one at the head when caught up).
 * The order rotates between rounds, after WARMUP uncounted rounds.
 * Figure: CPU time (user + system, all threads) of this process from the collector's start to the end of its last
 * certificate check (`finality.idle()`), not wall time: the box is shared. Target ≤ 5% added CPU, `checks` over
 * `none` (median of the rounds' ratios). Also: ms per verification (the collector's own histogram, wall time of the
 * synchronous verifyFinality; and CPU time over a loop of verifications of one served certificate), and the
 * store's bytes per observation for the last store of each way (the `blocks` table and its certificates included).
 * Then the figure a user sees: `node bin/paywatch.js collect --once` as a user runs it (compiled dist/, built
 * first; process start included), into a fresh SQLite store against the same anvil, `default` (no consensus
 * settings: anvil answers method-not-found) and `checks` (`--consensus-rpc` the loopback node,
 * `--consensus-genesis`, `--consensus-epoch-length`), CLI_ROUNDS pairs in alternating order; CPU (user + system)
 * of the child from /usr/bin/time.
 * Results: bench/results/finality.{json,md}.
 * Run: node bin/run-ts.js bench/finality.ts [--transactions N] [--per-block N] [--rounds N] [--warmup N] [--loop N]
 *   [--cli-rounds N]
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
import { type StoredObject, storageUsage } from '../src/store/maintenance.js';
import { testGenesisOutcome, testKey } from '../test/helpers/consensus.js';
import { buildDist, collectOnceCli } from './lib/cli-collect.js';
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
    'cli-rounds': { type: 'string', default: '3' },
  },
});
const CLI_ROUNDS = Number(values['cli-rounds']);
const TX = Number(values.transactions);
const PER_BLOCK = Number(values['per-block']);
const ROUNDS = Number(values.rounds);
const WARMUP = Number(values.warmup);
const LOOP = Number(values.loop);

/** One epoch for the whole chain (no boundary inside it: the spacing alone decides the checks). */
const EPOCH_LENGTH = 1_000_000;
const KEY_LABEL = 'paywatch finality bench';
const GENESIS = testGenesisOutcome(testKey(KEY_LABEL));

/** How a run treats finality (see the module comment). */
type Way = 'none' | 'default' | 'checks';
const WAYS: readonly Way[] = ['none', 'default', 'checks'];

interface Run {
  way: Way;
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

/** Collects the chain at `rpcUrl` into a fresh SQLite store, one way (`consensusRpc`: the loopback node's URL). */
async function collectRound(rpcUrl: string, way: Way, consensusRpc: string, keepAs: string | null): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'paywatch-finality-'));
  const db = `sqlite:${keepAs ?? join(dir, 'store.sqlite')}`;
  if (keepAs) for (const f of [keepAs, `${keepAs}-wal`, `${keepAs}-shm`]) rmSync(f, { force: true });
  const config = loadConfig({
    db,
    rpcUrl,
    from: 1,
    logLevel: 'silent',
    ...(way === 'checks' ? { consensusRpc, consensusGenesis: GENESIS, consensusEpochLength: EPOCH_LENGTH } : {}),
  });
  const store = await openStore(db);
  let tx = 0;
  try {
    const launched = await launchCollector(config, store, pino({ level: 'silent' }), {
      once: true,
      onProgress: (p) => {
        tx += p.transactions;
      },
      // `none`: the collector calls its finality hook only when it has one (src/chain/collector/collector.ts).
      ...(way === 'none' ? ({ finality: undefined } as object) : {}),
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
      way,
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
  const answer = await readFinalization(request, { height }, { timeoutMs: 60_000 });
  if (answer.kind !== 'certified') throw new Error(`no certificate for ${height}: ${answer.kind} (${answer.reason})`);
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

/** One `paywatch collect --once` as a user runs it (see the module comment). */
interface CliRun {
  way: 'default' | 'checks';
  /** User + system CPU seconds of the child (/usr/bin/time), process start included. */
  cpu_s: number;
  wall_s: number;
  max_rss_kb: number;
  verified_observations: number;
  observations: number;
}

/** Runs `node bin/paywatch.js collect --once` into a fresh SQLite store; CPU from /usr/bin/time (./lib/cli-collect.ts). */
async function collectCli(rpcUrl: string, way: CliRun['way'], consensusRpc: string): Promise<CliRun> {
  const consensus = way === 'checks' ? ['--consensus-rpc', consensusRpc, '--consensus-epoch-length', String(EPOCH_LENGTH)] : [];
  // The genesis outcome through its variable (as a service file would set it).
  const env: Record<string, string> = way === 'checks' ? { PAYWATCH_CONSENSUS_GENESIS: GENESIS } : {};
  const r = await collectOnceCli(rpcUrl, consensus, env, async (store) => ({
    verified: (await readFinalityState(store.db)).verified,
    count: (await readStats(store.db)).count,
  }));
  return {
    way,
    cpu_s: r.cpu_s,
    wall_s: r.wall_s,
    max_rss_kb: r.max_rss_kb,
    verified_observations: r.inspected.verified,
    observations: r.inspected.count,
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
    const rounds: Record<Way, Run>[] = [];
    const warm: Record<Way, Run>[] = [];
    const keep = (way: Way) => `bench/tmp/finality-${way}.sqlite`;
    for (let r = 0; r < WARMUP + ROUNDS; r++) {
      const counted = r >= WARMUP;
      const last = r === WARMUP + ROUNDS - 1;
      // A rotating order, so a drift in the box's other load falls on every way alike.
      const order = WAYS.map((_, i) => WAYS[(i + r) % WAYS.length]!);
      const runs = {} as Record<Way, Run>;
      for (const way of order) {
        const run = await collectRound(node.rpcUrl, way, consensus.url, last ? keep(way) : null);
        if (way === 'checks' && run.verified_observations !== run.transactions)
          throw new Error(`with checks: ${run.verified_observations}/${run.transactions} observations verified`);
        runs[way] = run;
        process.stderr.write(
          `round ${r}${counted ? '' : ' (warm-up)'} ${way}: CPU ${run.cpu_s} s, wall ${run.wall_s} s, ${run.verifications} verifications (${run.verify_ms} ms)\n`,
        );
      }
      (counted ? rounds : warm).push(runs);
    }
    /** Per round, CPU of `a` over `b` minus one, in percent. */
    const added = (a: Way, b: Way) => rounds.map((x) => Number(((x[a].cpu_s / x[b].cpu_s - 1) * 100).toFixed(2)));
    const addedChecks = added('checks', 'none');
    const addedDefault = added('default', 'none');
    // The certificate checks alone: both ways run the finality step, only `checks` reads and verifies certificates.
    const checksOverDefault = added('checks', 'default');
    const addedMedian = median(addedChecks);
    const cpuMedian = Object.fromEntries(WAYS.map((w) => [w, median(rounds.map((x) => x[w].cpu_s))])) as Record<Way, number>;
    // The CLI as a user runs it: compiled first (bin/paywatch.js runs dist/), then pairs in alternating order.
    buildDist();
    const cliRounds: { default: CliRun; checks: CliRun }[] = [];
    for (let r = 0; r < CLI_ROUNDS; r++) {
      const pair = {} as { default: CliRun; checks: CliRun };
      for (const way of r % 2 ? (['checks', 'default'] as const) : (['default', 'checks'] as const)) {
        const run = await collectCli(node.rpcUrl, way, consensus.url);
        if (way === 'checks' && run.verified_observations !== run.observations)
          throw new Error(`CLI with checks: ${run.verified_observations}/${run.observations} observations verified`);
        pair[way] = run;
        process.stderr.write(`cli round ${r} ${way}: CPU ${run.cpu_s} s, wall ${run.wall_s} s, ${run.verified_observations} verified\n`);
      }
      cliRounds.push(pair);
    }
    const cliAdded = cliRounds.map((x) => Number(((x.checks.cpu_s / x.default.cpu_s - 1) * 100).toFixed(2)));
    const cliMedian = cliRounds.length ? median(cliAdded) : null;
    const checkRuns = rounds.map((x) => x.checks);
    const head = checkRuns[0]!.last_verified_height!;
    const loop = await verificationLoop(consensus.url, head);
    const verifications = checkRuns[0]!.verifications;
    const verificationsAll = checkRuns.reduce((s, p) => s + p.verifications, 0);
    const verifyMs = Number((checkRuns.reduce((s, p) => s + p.verify_ms, 0) / verificationsAll).toFixed(1));
    // Bytes per observation of the last store of each way (blocks table and certificates included).
    const sizes = {} as Record<Way, { observations: number; total_per_observation: number; objects: StoredObject[] }>;
    for (const way of WAYS) {
      const store = await openStore(`sqlite:${keep(way)}`);
      const n = (await readStats(store.db)).count;
      const objects = await storageUsage(store);
      await store.close();
      sizes[way] = {
        observations: n,
        total_per_observation: Math.round(objects.reduce((s, o) => s + o.bytes, 0) / Math.max(1, n)),
        objects,
      };
    }
    const perObs = (way: Way, table: string) =>
      Math.round(
        sizes[way].objects.filter((o) => o.table === table).reduce((s, o) => s + o.bytes, 0) / Math.max(1, sizes[way].observations),
      );
    const sizeTables = [...new Set(WAYS.flatMap((w) => sizes[w].objects.filter((o) => o.bytes >= 65_536).map((o) => o.table)))];
    const result = {
      transactions_generated: load.hashes,
      generate_s: Number(generate_s.toFixed(1)),
      epoch_length: EPOCH_LENGTH,
      node_flags: NODE_FLAGS,
      rounds: ROUNDS,
      warmup_rounds: WARMUP,
      load_average_start: load0,
      load_average_end: loadavg(),
      runs: rounds,
      warmup: warm,
      median_cpu_s: cpuMedian,
      added_cpu_percent: { checks_over_none: addedChecks, default_over_none: addedDefault, checks_over_default: checksOverDefault },
      added_cpu_percent_median: addedMedian,
      verifications_per_run: verifications,
      verify_ms_mean_in_collector: verifyMs,
      verification_loop: { rounds: LOOP, ...loop },
      cli: { runs: cliRounds, added_cpu_percent: cliAdded, added_cpu_percent_median: cliMedian },
      store: sizes,
      target: '≤ 5% added CPU (checks over none)',
      pass: addedMedian <= 5,
    };
    const la = (l: number[]) => l.map((x) => x.toFixed(1)).join(' / ');
    const md = [
      '# Finality benchmark: the collector with and without certificate checks',
      '',
      `Command: \`node bin/run-ts.js bench/finality.ts ${process.argv.slice(2).join(' ')}\`. Anvil in Tempo mode on loopback, ${load.hashes} transactions, ${PER_BLOCK} per block (generated in ${generate_s.toFixed(0)} s), collected from block 1 into a fresh SQLite store in process per run, three ways: **none**, the collector without its finality step (the reference); **default**, the default settings against anvil (\`consensus_*\` answers method-not-found: finality unknown, recorded at the spacing's heights); **checks**, \`--consensus-rpc\` a loopback node in its own process serving certificates signed by a test key (test/helpers/consensus-rpc.ts), \`--consensus-genesis\` planting its identity, epoch length ${EPOCH_LENGTH} (no boundary), the shipped spacing (one per 1,000 blocks or 60 s, one at the head when caught up). ${WARMUP} warm-up round(s), then ${ROUNDS} rounds, the order of the three rotating. CPU: user + system of this process, all threads (the SQLite writer thread included), from the collector's start to the end of its last certificate check. ${cpus().length} cores shared with other work; load average (1 / 5 / 15 min) ${la(load0)} at the start, ${la(loadavg())} at the end. Node ${process.version}, flags ${NODE_FLAGS.join(' ')}. Run at ${new Date().toISOString()}.`,
      '',
      '| round | CPU s none | CPU s default | CPU s checks | checks over none | default over none | verifications | verify ms (sum, wall) | wall s none / default / checks |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|---|',
      ...rounds.map(
        (x, i) =>
          `| ${i + 1} | ${x.none.cpu_s} | ${x.default.cpu_s} | ${x.checks.cpu_s} | ${addedChecks[i]}% | ${addedDefault[i]}% | ${x.checks.verifications} | ${x.checks.verify_ms} | ${x.none.wall_s} / ${x.default.wall_s} / ${x.checks.wall_s} |`,
      ),
      '',
      `Median added CPU, checks over none: **${addedMedian}%** (rounds ${addedChecks.join(', ')}; median CPU none ${cpuMedian.none} s, default ${cpuMedian.default} s, checks ${cpuMedian.checks} s; default over none: median ${median(addedDefault)}%; checks over default: median ${median(checksOverDefault)}%, rounds ${checksOverDefault.join(', ')}) — target ≤ 5%: ${addedMedian <= 5 ? 'met' : 'NOT met'}. Every run with checks ended with all ${checkRuns[0]!.transactions} observations verified (last verified height ${head}), ${verifications} certificates verified per run.`,
      '',
      `Per verification: **${verifyMs} ms** in the collector (mean wall time of verifyFinality, its histogram \`paywatch_finality_verify_seconds\`, over ${verificationsAll} verifications, on the loaded box); **${loop.cpu_ms} ms CPU** (${loop.wall_ms} ms wall) in a loop of ${LOOP} verifications of the head's certificate (${loop.status}) after the rounds.`,
      '',
      `The CLI as a user runs it (\`node bin/paywatch.js collect --once --db sqlite:FRESH --rpc ANVIL --from 1\`, compiled, process start included; \`checks\` adds \`--consensus-rpc LOOPBACK --consensus-epoch-length ${EPOCH_LENGTH}\` and PAYWATCH_CONSENSUS_GENESIS; CPU user + system of the child from /usr/bin/time), ${CLI_ROUNDS} pairs in alternating order:`,
      '',
      '| pair | CPU s default | CPU s checks | checks over default | wall s default / checks | max RSS MB default / checks | verified (checks) |',
      '|---:|---:|---:|---:|---|---|---:|',
      ...cliRounds.map(
        (x, i) =>
          `| ${i + 1} | ${x.default.cpu_s} | ${x.checks.cpu_s} | ${cliAdded[i]}% | ${x.default.wall_s} / ${x.checks.wall_s} | ${Math.round(x.default.max_rss_kb / 1024)} / ${Math.round(x.checks.max_rss_kb / 1024)} | ${x.checks.verified_observations}/${x.checks.observations} |`,
      ),
      '',
      `Median added CPU of the CLI, checks over default: **${cliMedian}%**.`,
      '',
      'Store, the last run of each way: bytes per observation, every table and index (tables of 64 KiB or more named; a table with its indexes):',
      '',
      `| table | ${WAYS.join(' | ')} |`,
      `|---|${WAYS.map(() => '---:').join('|')}|`,
      `| **total** | ${WAYS.map((w) => sizes[w].total_per_observation).join(' | ')} |`,
      ...sizeTables.map((t) => `| ${t} | ${WAYS.map((w) => perObs(w, t)).join(' | ')} |`),
      '',
      `Warm-up (not counted), CPU s none / default / checks: ${warm.map((w) => WAYS.map((x) => w[x].cpu_s).join(' / ')).join('; ')}.`,
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
