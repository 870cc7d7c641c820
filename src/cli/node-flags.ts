/**
 * V8 flags paywatch runs with: `bin/paywatch.js`'s shebang and the npm scripts pass them (they cannot import
 * this file; test/cli/node-flags.test.ts keeps them in step), and the ingest benchmark re-runs itself with them
 * so it measures the collector as shipped.
 *
 * `--max-semi-space-size=32` (MiB), a compromise between the collector and the API, which share the process
 * under `paywatch start`. The collector keeps several runs of parsed blocks and serialized rows (15–25 MB) alive
 * while it decodes and writes, and every young-generation collection copies them, so it gains from a large
 * young generation; but the young generation grows to its limit under concurrent CSV exports too, against the
 * export's 64 MB bound (figures: docs/decisions.md, bench/README.md). 32 keeps that bound; a process that only
 * collects can be given more by starting node itself: `node --max-semi-space-size=256 bin/paywatch.js collect`.
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];
