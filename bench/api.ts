/**
 * API benchmark: a store seeded with 1,000,000 synthetic observations, served by `paywatch serve`
 * in its own process, measured with autocannon on loopback beside a bare Fastify route returning a body of the
 * same size, on SQLite and PostgreSQL. Results: bench/results/api.{json,md}.
 * Run: node bin/run-ts.js bench/api.ts [--count N] [--dialect sqlite|postgres] [--duration S] [--only WORD…]
 * `--only export` (repeatable) runs just the cases whose name contains a word, beside the bare route, and
 * prints the table without writing bench/results (a partial run is for iterating, not for the record).
 * The seeded stores are kept (bench/tmp/, database paywatch_bench) and reused when they hold N rows.
 */
import { parseArgs } from 'node:util';
import { seededStore } from './lib/seeded.js';
import { loadTable, measure, sampleChildRss, servePaywatch, startBareRoute, writeResults, type LoadResult } from './lib/load.js';

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
  /** Null when the export case was not run (--only). */
  export_peak_rss_growth_mb: number | null;
  targets: Record<string, { value: number; target: string; pass: boolean }>;
}

async function benchDialect(dialect: 'sqlite' | 'postgres'): Promise<DialectReport> {
  const { db, seeded_s } = await seededStore(dialect, COUNT);
  const server = await servePaywatch(db);
  try {
    const api = `${server.url}/api`;
    const first = (await (await fetch(`${api}/transactions?limit=30`)).json()) as { rows: { hash: string; asset_contract: string | null }[] };
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
      let exportGrowth: number | null = null;
      if (selected('GET /api/export')) {
        const rss = sampleChildRss(server);
        results.push(await run('GET /api/export', `${api}/export`, 2));
        exportGrowth = rss.stop();
      }
      const byName = (n: string) => results.find((r) => r.name === n);
      const share = (n: string) => byName(n)!.req_per_s / bareResult.req_per_s;
      const targets: DialectReport['targets'] = {};
      for (const [label, n] of [['default list', 'GET /api/transactions'], ['detail', 'GET /api/transactions/{hash}']] as const) {
        if (byName(n)) targets[`${label} ≥ 0.4 × bare req/s`] = { value: Number(share(n).toFixed(2)), target: '≥ 0.4', pass: share(n) >= 0.4 };
      }
      const deep = byName('GET /api/transactions?offset=1000000');
      const list = byName('GET /api/transactions');
      if (deep && list) {
        const p99Ratio = deep.p99_ms / Math.max(list.p99_ms, 1);
        targets['offset=1000000 p99 < 10 × default p99'] = { value: Number(p99Ratio.toFixed(2)), target: '< 10', pass: p99Ratio < 10 };
      }
      const mb = exportGrowth === null ? null : Number((exportGrowth / 2 ** 20).toFixed(1));
      if (mb !== null) targets['export peak RSS growth < 64 MB'] = { value: mb, target: '< 64', pass: mb < 64 };
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
  `Command: \`node bin/run-ts.js bench/api.ts --count ${COUNT}\` (autocannon, ${DURATION} s per case after a 1 s warm-up, 10 connections; metrics 4, export 2). Server: \`paywatch serve\` in its own process. Machine: ${process.platform} ${process.arch}, 2 cores, Node ${process.version}. Run at ${new Date().toISOString()}.`,
  ``,
  ...reports.flatMap((r) => [
    `## ${r.dialect} (${r.rows.toLocaleString('en')} observations${r.seeded_s ? `, seeded in ${r.seeded_s.toFixed(0)} s` : ''})`,
    ``,
    loadTable([r.bare, ...r.results], r.bare),
    ``,
    ...(r.export_peak_rss_growth_mb === null ? [] : [`Export peak RSS growth of the server: ${r.export_peak_rss_growth_mb} MB.`, ``]),
    `| target | value | pass |`,
    `|---|---:|---|`,
    ...Object.entries(r.targets).map(([k, v]) => `| ${k} | ${v.value} | ${v.pass ? 'yes' : 'NO'} |`),
    ``,
  ]),
].join('\n');
if (!ONLY.length) writeResults('api', reports, md);
process.stdout.write(md);
