/**
 * V8 flags paywatch runs with: `bin/paywatch.js`'s shebang and the npm scripts pass them (they cannot import
 * this file; test/unit/node-flags.test.ts keeps them in step), and the ingest benchmark re-runs itself with them
 * so it measures the collector as shipped.
 *
 * `--max-semi-space-size=256` (MiB): the collector keeps several runs of parsed blocks and serialized rows
 * (15–25 MB) alive while it decodes and writes, and every young-generation collection copies them; each costs
 * about the same whatever the semi-space size, so a larger one means fewer of them per transaction. V8's default
 * 16 MiB promoted them on every scavenge (GC ~32 µs of CPU per transaction collected); 64 MiB took it to ~20
 * (session 4); 256 MiB to ~8 on the main thread, and the warm collector from a median 7,395 to 8,347 tx/s in
 * five alternating pairs (scratch bench/tmp-collect, session 5), for about 160 MB more peak RSS during a
 * backfill (678 → 839 MB in that run). The young generation only grows to that size under such allocation rates.
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=256'];
