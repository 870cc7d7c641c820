/**
 * V8 flags paywatch runs with: `bin/paywatch.js`'s shebang and the npm scripts pass them (they cannot import
 * this file; test/unit/node-flags.test.ts keeps them in step), and the ingest benchmark re-runs itself with them
 * so it measures the collector as shipped.
 *
 * `--max-semi-space-size=64` (MiB): the collector keeps several runs of parsed blocks (15–25 MB) alive while it
 * decodes, which overflowed V8's default 16 MiB semi-space on every scavenge and promoted them to the old
 * generation; with 64 MiB, garbage collection went from about 32 to 20 µs of CPU per transaction collected
 * (bench/tmp runs, session 4). The young generation only grows to that size under such allocation rates.
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
