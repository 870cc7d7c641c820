/**
 * Retention benchmark: how long one retention batch (src/store/chain/retention.ts dropBatch, 500 observations with
 * their details, leg recipients and blocks) holds the store, i.e. how long a collector write can wait behind it.
 * A fresh store per dialect is filled with N synthetic observations written as the collector writes them (blocks
 * with parent hashes, so `blocks` rows exist), then the older half is dropped batch by batch.
 * Figures: wall milliseconds per batch (p50, p99, max) and this process's CPU milliseconds per batch (PostgreSQL's
 * server time is not in it); compare dialects and runs within one sitting, with the load average beside them.
 * Results: bench/results/retention.{json,md}.
 * Run: node bin/run-ts.js bench/retention.ts [--count N] [--dialect sqlite|postgres]
 */
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import { mkdirSync, rmSync } from 'node:fs';
import { openStore } from '../src/store/db.js';
import { prepareBlock, writePreparedBlocks } from '../src/store/chain/index.js';
import { dropBatch, RETENTION_BATCH } from '../src/store/chain/retention.js';
import { syntheticBlocks } from '../src/seed/chain.js';
import { benchStore, dropBenchDatabase } from './lib/db.js';
import { writeResults } from './lib/load.js';

const { values } = parseArgs({
  options: { count: { type: 'string', default: '50000' }, dialect: { type: 'string', multiple: true } },
});
const COUNT = Number(values.count);
const DIALECTS = (values.dialect?.length ? values.dialect : ['sqlite', 'postgres']) as ('sqlite' | 'postgres')[];

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const round = (x: number) => Number(x.toFixed(2));

const results = [];
for (const dialect of DIALECTS) {
  mkdirSync('bench/tmp', { recursive: true });
  rmSync('bench/tmp/retention.sqlite', { force: true });
  const url = await benchStore(dialect, dialect === 'sqlite' ? 'retention' : 'paywatch_bench_retention', { fresh: true });
  const store = await openStore(url);
  try {
    const blocks = [...syntheticBlocks({ count: COUNT, seed: 3 })];
    for (let i = 0; i < blocks.length; i += 200) {
      const part = blocks
        .slice(i, i + 200)
        .map((b) => ({ ...prepareBlock(b), parentHash: `0x${(b.height - 1).toString(16).padStart(64, '0')}` }));
      await writePreparedBlocks(store, part, { height: part.at(-1)!.height, hash: part.at(-1)!.hash });
    }
    const cutoff = blocks[Math.floor(blocks.length / 2)].time;
    const wall: number[] = [];
    const cpu: number[] = [];
    let dropped = 0;
    for (;;) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const b = await dropBatch(store, cutoff);
      wall.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
      dropped += b.observations;
      if (b.done) break;
    }
    results.push({
      dialect,
      observations: COUNT,
      dropped,
      batches: wall.length,
      batch_rows: RETENTION_BATCH,
      wall_ms: { p50: round(pct(wall, 0.5)), p99: round(pct(wall, 0.99)), max: round(Math.max(...wall)) },
      cpu_ms: { p50: round(pct(cpu, 0.5)), max: round(Math.max(...cpu)) },
      load_average: loadavg().map((x) => round(x)),
    });
  } finally {
    await store.close();
    if (dialect === 'postgres') await dropBenchDatabase('paywatch_bench_retention');
    else rmSync('bench/tmp/retention.sqlite', { force: true });
  }
}

const md = [
  '# Retention benchmark',
  '',
  `Command: \`node bin/run-ts.js bench/retention.ts ${process.argv.slice(2).join(' ')}\`. Run at ${new Date().toISOString()}. A fresh store of ${COUNT} synthetic observations (with blocks), the older half dropped by dropBatch (${RETENTION_BATCH} observations a batch); wall and this process's CPU milliseconds per batch.`,
  '',
  '| dialect | dropped | batches | wall p50 ms | wall p99 ms | wall max ms | CPU p50 ms | load average (1, 5, 15 min) |',
  '|---|---:|---:|---:|---:|---:|---:|---|',
  ...results.map(
    (r) =>
      `| ${r.dialect} | ${r.dropped} | ${r.batches} | ${r.wall_ms.p50} | ${r.wall_ms.p99} | ${r.wall_ms.max} | ${r.cpu_ms.p50} | ${r.load_average.join(', ')} |`,
  ),
  '',
].join('\n');
writeResults('retention', { results }, md);
process.stdout.write(`${md}\n`);
