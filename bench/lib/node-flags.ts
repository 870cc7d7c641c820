/**
 * Benchmarks that run paywatch code in their own process (the ingest benchmark runs the collector in-process)
 * must run it with paywatch's V8 flags (src/cli/node-flags.ts), as `paywatch` itself starts with them.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from '../../src/cli/node-flags.js';

/**
 * Returns when this process already runs with NODE_FLAGS; otherwise runs the benchmark `moduleUrl` again in a
 * child node with them (same arguments, same stdio) and exits with its status. Call it first.
 * @param moduleUrl the benchmark's `import.meta.url`
 */
export function ensureNodeFlags(moduleUrl: string): void {
  if (NODE_FLAGS.every((f) => process.execArgv.includes(f))) return;
  const runTs = fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url));
  const r = spawnSync(process.execPath, [...NODE_FLAGS, runTs, fileURLToPath(moduleUrl), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
