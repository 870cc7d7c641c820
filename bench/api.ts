/**
 * API benchmark: a store seeded with 1,000,000 synthetic observations, served by `paywatch serve`
 * in its own process, measured with autocannon on loopback beside a bare Fastify route returning a body of the
 * same size, on SQLite and PostgreSQL; the export's peak server RSS growth, identity and gzip (bound < 64 MB).
 * Results: bench/results/api.{json,md}.
 * Run: node bin/run-ts.js bench/api.ts [--count N] [--dialect sqlite|postgres] [--duration S] [--only WORD…]
 * `--only export` (repeatable) runs just the cases whose name contains a word, beside the bare route, and
 * prints the table without writing bench/results (a partial run is for iterating, not for the record).
 * The seeded stores are kept (bench/tmp/, database paywatch_bench) and reused when they hold N rows.
 */
import { parseArgs } from 'node:util';
import { seededStore } from './lib/seeded.js';
import { exportMemory, loadTable, measure, servePaywatch, startBareRoute, writeResults, type LoadResult } from './lib/load.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '1000000' },
    dialect: { type: 'string', multiple: true },
    duration: { type: 'string', default: '8' },
    only: { type: 'string', multiple: true },
  },
});
const COUNT = Number(values.count);
const DURATION = Number(values.duration);
const DIALECTS = (values.dialect?.length ? values.dialect : ['sqlite', 'postgres']) as ('sqlite' | 'postgres')[];
const ONLY = values.only ?? [];
/** True when case `name` is part of this run. */
const selected = (name: string) => !ONLY.length || ONLY.some((w) => name.includes(w));

interface DialectReport {
  dialect: string;
  rows: number;
  seeded_s: number | null;
  bare: LoadResult;
  results: LoadResult[];
  /**
   * MB: a fresh, warmed-up server's peak RSS growth under 2 concurrent exports, per Accept-Encoding, and over its
   * warm-up (`warm_up`); null when not run (--only).
   */
  export_peak_rss_growth_mb: { warm_up: { identity: number; gzip: number }; identity: number; gzip: number } | null;
  targets: Record<string, { value: number; target: string; pass: boolean }>;
}

async function benchDialect(dialect: 'sqlite' | 'postgres'): Promise<DialectReport> {
  const { db, seeded_s } = await seededStore(dialect, COUNT);
  const server = await servePaywatch(db);
  try {
    const api = `${server.url}/api`;
    const first = (await (await fetch(`${api}/transactions?limit=30`)).json()) as {
      rows: { hash: string; asset_contract: string | null }[];
    };
    const body = await (await fetch(`${api}/transactions`)).text();
    const hash = first.rows[0].hash;
    const asset = first.rows.find((r) => r.asset_contract)?.asset_contract ?? '';
    const bare = await startBareRoute(Buffer.byteLength(body));
    const run = (name: string, url: string, connections = 10) => measure(name, url, { duration: DURATION, connections });
    try {
      const bareResult = await run('bare route (same body size)', bare.bareUrl);
      const results: LoadResult[] = [];
      const cases: [string, string, number?][] = [
        ['GET /api/transactions', `${api}/transactions`],
        ['GET /api/transactions?asset=CONTRACT', `${api}/transactions?asset=${asset}`],
        ['GET /api/transactions?offset=100000', `${api}/transactions?offset=100000`],
        ['GET /api/transactions?offset=1000000', `${api}/transactions?offset=1000000`],
        ['GET /api/transactions/{hash}', `${api}/transactions/${hash}`],
        ['GET /api/metrics', `${api}/metrics`, 4],
      ];
      for (const [name, url, connections] of cases) if (selected(name)) results.push(await run(name, url, connections));
      let mb: DialectReport['export_peak_rss_growth_mb'] = null;
      if (selected('GET /api/export')) {
        // The export streams through the compressor when the client takes gzip: its bound must hold both ways.
        const identity = await exportMemory(db, 'GET /api/export', { 'accept-encoding': 'identity' }, DURATION);
        const gzip = await exportMemory(db, 'GET /api/export (Accept-Encoding: gzip)', { 'accept-encoding': 'gzip' }, DURATION);
        if (!(gzip.bytes_per_req < identity.bytes_per_req / 2))
          throw new Error(`the gzip export was not compressed (${gzip.bytes_per_req} vs ${identity.bytes_per_req} bytes)`);
        results.push(identity, gzip);
        mb = {
          warm_up: { identity: identity.warm_up_rss_growth_mb, gzip: gzip.warm_up_rss_growth_mb },
          identity: identity.peak_rss_growth_mb,
          gzip: gzip.peak_rss_growth_mb,
        };
      }
      const byName = (n: string) => results.find((r) => r.name === n);
      const share = (n: string) => byName(n)!.req_per_s / bareResult.req_per_s;
      const targets: DialectReport['targets'] = {};
      for (const [label, n] of [
        ['default list', 'GET /api/transactions'],
        ['detail', 'GET /api/transactions/{hash}'],
      ] as const) {
        if (byName(n))
          targets[`${label} ≥ 0.4 × bare req/s`] = { value: Number(share(n).toFixed(2)), target: '≥ 0.4', pass: share(n) >= 0.4 };
      }
      const deep = byName('GET /api/transactions?offset=1000000');
      const list = byName('GET /api/transactions');
      if (deep && list) {
        const p99Ratio = deep.p99_ms / Math.max(list.p99_ms, 1);
        targets['offset=1000000 p99 < 10 × default p99'] = { value: Number(p99Ratio.toFixed(2)), target: '< 10', pass: p99Ratio < 10 };
      }
      if (mb !== null) {
        targets['export peak RSS growth < 64 MB'] = { value: mb.identity, target: '< 64', pass: mb.identity < 64 };
        targets['export (gzip) peak RSS growth < 64 MB'] = { value: mb.gzip, target: '< 64', pass: mb.gzip < 64 };
      }
      return {
        dialect,
        rows: COUNT,
        seeded_s,
        bare: bareResult,
        results,
        export_peak_rss_growth_mb: mb,
        targets,
      };
    } finally {
      await bare.stop();
    }
  } finally {
    await server.stop();
  }
}

const reports: DialectReport[] = [];
for (const d of DIALECTS) reports.push(await benchDialect(d));

const md = [
  `# API benchmark`,
  ``,
  `Command: \`node bin/run-ts.js bench/api.ts --count ${COUNT}\` (autocannon, ${DURATION} s per case after a 1 s warm-up, 10 connections; metrics 4, export 2, identity and \`Accept-Encoding: gzip\`). Server: \`paywatch serve\` in its own process. Machine: ${process.platform} ${process.arch}, 2 cores, Node ${process.version}. Run at ${new Date().toISOString()}.`,
  ``,
  ...reports.flatMap((r) => [
    `## ${r.dialect} (${r.rows.toLocaleString('en')} observations${r.seeded_s ? `, seeded in ${r.seeded_s.toFixed(0)} s` : ''})`,
    ``,
    loadTable([r.bare, ...r.results], r.bare),
    ``,
    ...(r.export_peak_rss_growth_mb === null
      ? []
      : [
          `Export peak RSS growth under 2 concurrent exports, each encoding on a fresh server warmed up alike (3 s of 100-row pages, then one export): ${r.export_peak_rss_growth_mb.identity} MB identity, ${r.export_peak_rss_growth_mb.gzip} MB with Accept-Encoding: gzip. Growth over the warm-up itself: ${r.export_peak_rss_growth_mb.warm_up.identity} / ${r.export_peak_rss_growth_mb.warm_up.gzip} MB.`,
          ``,
        ]),
    `| target | value | pass |`,
    `|---|---:|---|`,
    ...Object.entries(r.targets).map(([k, v]) => `| ${k} | ${v.value} | ${v.pass ? 'yes' : 'NO'} |`),
    ``,
  ]),
].join('\n');
if (!ONLY.length) writeResults('api', reports, md);
process.stdout.write(md);
