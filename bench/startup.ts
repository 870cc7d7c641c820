/**
 * Start-up benchmark: wall time of the real command as a user runs it, process start included, beside `node -e 0`
 * in the same run: `paywatch --help`, `--version`, and `collect --once` on a store already at the finalized head
 * of a local anvil node (nothing to fetch), each through `node bin/paywatch.js` (the shebang's flags) and
 * `npx paywatch`. RUNS runs per case, interleaved (one of each case per round), after one uncounted round.
 * Targets: `--help` median ≤ 0.5 s; `collect --once` with nothing to do ≤ 1.0 s.
 * Results: bench/results/startup.{json,md}.
 * Run: node bin/run-ts.js bench/startup.ts [--runs N]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startAnvil } from '../src/chain/anvil.js';
import { NODE_FLAGS } from '../src/cli/node-flags.js';
import { writeResults } from './lib/load.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' } } });
const RUNS = Number(values.runs);

/** Runs `cmd args` to its end; @returns its wall time in seconds @throws when it exits non-zero */
function timed(cmd: string, args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: { ...process.env, PAYWATCH_LOG_LEVEL: 'warn' } });
  const s = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr.trim().split('\n').at(-1)}`);
  return s;
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;

const node = await startAnvil();
const dir = mkdtempSync(join(tmpdir(), 'paywatch-startup-'));
try {
  await fetch(node.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x40'] }),
  });
  const db = `sqlite:${join(dir, 'store.sqlite')}`;
  const collect = ['collect', '--once', '--db', db, '--rpc', node.rpcUrl];
  timed(process.execPath, ['bin/paywatch.js', ...collect, '--from', '1']); // the store reaches the head here
  const cases: { name: string; cmd: string; args: string[]; target?: number }[] = [
    { name: '`node -e 0` (reference)', cmd: process.execPath, args: [...NODE_FLAGS, '-e', '0'] },
    { name: '`node bin/paywatch.js --help`', cmd: process.execPath, args: [...NODE_FLAGS, 'bin/paywatch.js', '--help'], target: 0.5 },
    { name: '`npx paywatch --help`', cmd: 'npx', args: ['paywatch', '--help'], target: 0.5 },
    { name: '`node bin/paywatch.js --version`', cmd: process.execPath, args: [...NODE_FLAGS, 'bin/paywatch.js', '--version'], target: 0.5 },
    {
      name: '`node bin/paywatch.js collect --once`, nothing to do',
      cmd: process.execPath,
      args: [...NODE_FLAGS, 'bin/paywatch.js', ...collect],
      target: 1.0,
    },
    { name: '`npx paywatch collect --once`, nothing to do', cmd: 'npx', args: ['paywatch', ...collect], target: 1.0 },
  ];
  const times = cases.map(() => [] as number[]);
  for (let round = 0; round <= RUNS; round++) {
    cases.forEach((c, i) => {
      const s = timed(c.cmd, c.args);
      if (round > 0) times[i]!.push(s);
    });
  }
  const rows = cases.map((c, i) => {
    const median = quantile(times[i]!, 0.5);
    return {
      case: c.name,
      runs: RUNS,
      median_s: Number(median.toFixed(3)),
      min_s: Number(Math.min(...times[i]!).toFixed(3)),
      max_s: Number(Math.max(...times[i]!).toFixed(3)),
      target_s: c.target ?? null,
      met: c.target === undefined ? null : median <= c.target,
    };
  });
  const md = [
    '# Start-up benchmark',
    '',
    `Command: \`node bin/run-ts.js bench/startup.ts --runs ${RUNS}\`. Wall time of each command as a user runs it (a new process each time, process start included), ${RUNS} runs per case interleaved after one uncounted round; \`collect --once\` over a SQLite store already at the finalized head of a local anvil node (nothing to fetch). Run at ${new Date().toISOString()}, ${process.platform} ${process.arch}, ${cpus().length} cores, Node ${process.version}.`,
    '',
    '| case | median s | min s | max s | target | met |',
    '|---|---:|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ${r.case} | ${r.median_s} | ${r.min_s} | ${r.max_s} | ${r.target_s === null ? '–' : `≤ ${r.target_s} s`} | ${r.met === null ? '–' : r.met ? 'yes' : 'NO'} |`,
    ),
  ].join('\n');
  writeResults('startup', { runs: RUNS, node_flags: NODE_FLAGS, rows }, md);
  process.stdout.write(`${md}\n`);
  if (rows.some((r) => r.met === false)) process.exitCode = 1;
} finally {
  await node.stop();
  rmSync(dir, { recursive: true, force: true });
}
