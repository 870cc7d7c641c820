/**
 * Bundles the compiled CLI (dist/, from tsc) into dist/bundle/ with esbuild: the CLI entry and each worker thread's
 * body as entries, the code they share as chunks, each command's module a chunk of its own still loaded only when
 * that command runs (dynamic imports become split points). A command then loads a few dozen files where the
 * unbundled tree made Node's ESM loader resolve, read and compile some 1,500 (kysely and viem alone ~600), which
 * was most of a command's start (bench/README.md, "A bundled CLI"). bin/paywatch.js runs the bundle when present.
 * Outputs are `.mjs` two folders below the repository (dist/bundle/), as dist/*\/ modules are: the relative reads
 * of package.json and dist/web/ resolve alike; src/threads/start.ts starts a worker body from its bundled entry.
 * Usage: node scripts/bundle.mjs (after `tsc -p tsconfig.build.json`).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

/** Worker bodies, started by file (src/threads/start.ts): each is an entry of its own, named as its source. */
const WORKERS = ['dist/store/chain/writer-thread.js', 'dist/store/chain/reader-thread.js', 'dist/chain/collector/worker.js'];

/** Native addons and optional peers loaded from node_modules at run time, never bundled. */
const EXTERNAL = [
  'better-sqlite3',
  'pg-native',
  'bufferutil',
  'utf-8-validate',
  'keccak',
  'cpu-features',
  'playwright-core',
  'tsx',
  'typescript',
];

rmSync('dist/bundle', { recursive: true, force: true });
const { metafile } = await build({
  entryPoints: ['dist/cli/main.js', ...WORKERS],
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outExtension: { '.js': '.mjs' },
  entryNames: '[name]',
  chunkNames: '[name]-[hash]',
  external: EXTERNAL,
  // CommonJS packages inside an ES module bundle still call require (of node: builtins and of the externals).
  banner: { js: "import { createRequire as __paywatchRequire } from 'node:module'; const require = __paywatchRequire(import.meta.url);" },
  logLevel: 'warning',
  legalComments: 'none',
  metafile: true,
});
// Which compiled modules each output holds: test/e2e/cli-start.test.ts reads what a command loaded through it.
writeFileSync('dist/bundle/meta.json', JSON.stringify(metafile));
