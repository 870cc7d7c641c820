/**
 * `npm run bench`: runs every benchmark in turn, each in its own process (so one's memory and event loop do not
 * colour the next; with paywatch's V8 flags, src/cli/node-flags.ts), and stops at the first that fails. Each writes bench/results/NAME.{json,md}; bench/README.md
 * summarises them. Usage: npm run bench [-- NAME …]   (names: startup decode consensus ingest finality api compression isolation memory intel intake trust explorer mcp rpc-limits)
 */
import { spawnSync } from 'node:child_process';
import { NODE_FLAGS } from '../src/cli/node-flags.js';

const ALL = [
  'startup',
  'decode',
  'consensus',
  'ingest',
  'finality',
  'api',
  'compression',
  'isolation',
  'memory',
  'intel',
  'intake',
  'trust',
  'explorer',
  'mcp',
  'rpc-limits',
];
/** Node flags a benchmark needs besides paywatch's own. */
const EXTRA_FLAGS: Record<string, string[]> = { memory: ['--expose-gc'] };
const chosen = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = chosen.length ? chosen : ALL;
for (const n of names) {
  if (!ALL.includes(n)) {
    process.stderr.write(`unknown benchmark ${n}; choose from ${ALL.join(', ')}\n`);
    process.exit(2);
  }
}
for (const n of names) {
  process.stderr.write(`\n== bench/${n}.ts\n`);
  const started = Date.now();
  const r = spawnSync(process.execPath, [...NODE_FLAGS, ...(EXTRA_FLAGS[n] ?? []), 'bin/run-ts.js', `bench/${n}.ts`], { stdio: 'inherit' });
  process.stderr.write(`== bench/${n}.ts finished in ${((Date.now() - started) / 1000).toFixed(0)} s (exit ${r.status})\n`);
  if (r.status !== 0) process.exit(r.status ?? 1);
}
