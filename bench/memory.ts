/**
 * Memory bounded by bytes: what 5,000 distinct 100-row list pages leave behind. On the 1,000,000-observation
 * SQLite store (bench/lib/seeded.ts):
 * - in this process (run with --expose-gc): the real app (buildApp + inject) answers 5,000 distinct pages, then a
 *   full collection; reported: retained heap growth over the idle app, and what the page memo holds by its count;
 * - as a user sees it: `paywatch serve` in its own process answers the same 5,000 pages over HTTP; reported: RSS
 *   before, peak and after.
 * Run: node --expose-gc bin/run-ts.js bench/memory.ts [--pages N]   Results: bench/results/memory.{json,md}.
 */
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { buildApp } from '../src/api/app.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/store/db.js';
import { seededStore } from './lib/seeded.js';
import { sampleChildRss, servePaywatch, writeResults } from './lib/load.js';

const { values } = parseArgs({ options: { pages: { type: 'string', default: '5000' }, count: { type: 'string', default: '1000000' } } });
const PAGES = Number(values.pages);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const mb = (b: number) => Number((b / 1024 / 1024).toFixed(1));
/** Distinct pages: a fixed `until` per page, so each is its own remembered answer. */
const pagePath = (i: number) => `/api/transactions?limit=100&until=${1_767_225_600 + 100_000 + i}`;

const { db } = await seededStore('sqlite', Number(values.count));

// In process: retained heap.
const store = await openStore(db);
const app = await buildApp(
  { store, config: loadConfig({ db, rateLimitPerMinute: 100_000_000 }, {}), components: new Map() },
  { logger: false },
);
// Over a real socket (light-my-request's inject keeps its responses reachable, which would be counted too).
await app.listen({ host: '127.0.0.1', port: 0 });
const local = new Pool(`http://127.0.0.1:${(app.server.address() as { port: number }).port}`, { connections: 1 });
const fetchPage = async (i: number) => {
  const r = await local.request({ method: 'GET', path: pagePath(i) });
  await r.body.text();
  if (r.statusCode !== 200) throw new Error(`page ${i}: ${r.statusCode}`);
};
await fetchPage(-1);
gc();
const idle = process.memoryUsage().heapUsed;
const started = Date.now();
for (let i = 0; i < PAGES; i++) await fetchPage(i);
const seconds = (Date.now() - started) / 1000;
gc();
gc();
const retained = process.memoryUsage().heapUsed - idle;
await local.close();
await app.close();
await store.close();

// As a user sees it: a separate `paywatch serve`.
const server = await servePaywatch(db);
let rss: { before: number; peak_growth: number; after: number };
try {
  const pool = new Pool(server.url, { connections: 4 });
  await (await pool.request({ method: 'GET', path: pagePath(-1) })).body.text();
  const before = server.rss();
  const sampler = sampleChildRss(server);
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < PAGES) {
        const r = await pool.request({ method: 'GET', path: pagePath(next++) });
        await r.body.text();
      }
    }),
  );
  const peak = sampler.stop();
  rss = { before, peak_growth: peak, after: server.rss() };
  await pool.close();
} finally {
  await server.stop();
}

const data = {
  at: new Date().toISOString(),
  pages: PAGES,
  store: db,
  in_process: { retained_heap_mb: mb(retained), idle_heap_mb: mb(idle), seconds },
  serve_rss_mb: { before: mb(rss.before), peak_growth: mb(rss.peak_growth), after: mb(rss.after) },
};
const md = [
  `# Memory after ${PAGES.toLocaleString('en-US')} distinct 100-row pages`,
  ``,
  `${data.at}; store ${db}. Command: \`node --expose-gc bin/run-ts.js bench/memory.ts\``,
  ``,
  `| measure | value |`,
  `|---|---|`,
  `| in-process retained heap growth after a full GC (idle heap ${data.in_process.idle_heap_mb} MB) | ${data.in_process.retained_heap_mb} MB |`,
  `| \`paywatch serve\` RSS before / peak growth / after | ${data.serve_rss_mb.before} / ${data.serve_rss_mb.peak_growth} / ${data.serve_rss_mb.after} MB |`,
].join('\n');
writeResults('memory', data, md);
process.stdout.write(`${md}\n`);
