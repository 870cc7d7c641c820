/**
 * `paywatch collect --once` as a user runs it: `node bin/paywatch.js` (the compiled dist/; build it first with
 * buildDist), process start included, into a fresh SQLite store; CPU, wall time and peak memory of the child from
 * /usr/bin/time. Used by bench/finality.ts and bench/rpc-limits.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/db.js';
import type { Store } from '../../src/store/store.js';

/** What one `collect --once` cost, as /usr/bin/time saw it. */
export interface CliCollect {
  /** User + system CPU seconds of the child, process start included. */
  cpu_s: number;
  /** Wall seconds from spawn to exit. */
  wall_s: number;
  max_rss_kb: number;
}

/**
 * Compiles src/ to dist/ and bundles it (dist/bundle/, what bin/paywatch.js runs).
 * @param opts.bundle false: no bundle (dist/bundle/ removed), so bin/paywatch.js runs the tree tsc wrote
 * @throws Error with tsc's or esbuild's output when either fails
 */
export function buildDist(opts: { bundle?: boolean } = {}): void {
  const build = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`build failed: ${build.stdout}${build.stderr}`);
  if (opts.bundle === false) {
    rmSync('dist/bundle', { recursive: true, force: true });
    return;
  }
  const bundle = spawnSync(process.execPath, ['scripts/bundle.mjs'], { encoding: 'utf8' });
  if (bundle.status !== 0) throw new Error(`bundle failed: ${bundle.stdout}${bundle.stderr}`);
}

/**
 * Runs `node bin/paywatch.js collect --once --db sqlite:FRESH --rpc RPC_URL --from 1 ...args` and hands the
 * filled store to `inspect` before it is removed. With PAYWATCH_BENCH_CPU_PROF=DIR in this process's environment the
 * child writes V8 CPU profiles of its threads to DIR (`node --cpu-prof`), for a look at where its time goes.
 * @param env added to this process's environment (PAYWATCH_LOG_LEVEL is `warn` unless set here)
 * @throws Error with the end of the child's stderr when it exits non-zero
 */
export async function collectOnceCli<T>(
  rpcUrl: string,
  args: readonly string[],
  env: Record<string, string>,
  inspect: (store: Store) => Promise<T>,
): Promise<CliCollect & { inspected: T }> {
  const dir = mkdtempSync(join(tmpdir(), 'paywatch-cli-collect-'));
  const db = `sqlite:${join(dir, 'store.sqlite')}`;
  const timeFile = join(dir, 'time.txt');
  try {
    const r = spawnSync(
      '/usr/bin/time',
      [
        '-o',
        timeFile,
        '-f',
        '%U %S %e %M',
        process.execPath,
        ...(process.env.PAYWATCH_BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PAYWATCH_BENCH_CPU_PROF}`] : []),
        'bin/paywatch.js',
        'collect',
        '--once',
        '--db',
        db,
        '--rpc',
        rpcUrl,
        '--from',
        '1',
        ...args,
      ],
      { encoding: 'utf8', env: { ...process.env, PAYWATCH_LOG_LEVEL: 'warn', ...env }, maxBuffer: 64 << 20 },
    );
    if (r.status !== 0) throw new Error(`paywatch collect --once exited ${r.status}: ${r.stderr.slice(-500)}`);
    const [user, system, wall, rss] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
    const store = await openStore(db);
    try {
      return { cpu_s: Number((user! + system!).toFixed(2)), wall_s: wall!, max_rss_kb: rss!, inspected: await inspect(store) };
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
