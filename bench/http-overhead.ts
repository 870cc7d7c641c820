/**
 * What every request costs `paywatch serve` beyond its route's own work: remembered answers of three routes against
 * the bare route with a body of the same size (bench/lib/load.ts), in the same run, on a store seeded by
 * bench/payments.ts. Routes: GET /healthz, the default list page /api/transactions and the services ranking by
 * distinct payers over the last 30 days (remembered after the first request). For each: req/s, share of bare, and
 * the server's CPU µs per request (load-independent), the bare server's beside it.
 * Usage: node bin/run-ts.js bench/http-overhead.ts --db sqlite:bench/tmp/NAME.sqlite [--duration 5] [--label L]
 * [--rounds N] [--before DIR] (`npm run build` first: it starts the compiled `paywatch serve`; with `--before`, the
 * built checkout in DIR is measured too, route by route right after this one, both against the same bare run).
 * BENCH_CPU_PROF=DIR profiles the servers.
 * Results: bench/results/http-overhead-LABEL.json and .md.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { type LoadResult, measure, servePaywatch, startBareRoute, writeResults } from './lib/load.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    duration: { type: 'string', default: '5' },
    label: { type: 'string', default: 'run' },
    rounds: { type: 'string', default: '1' },
    before: { type: 'string' },
  },
});
if (!values.db) throw new Error('--db is required (a store seeded by bench/payments.ts)');
const DURATION = Number(values.duration);
const ROUNDS = Number(values.rounds);
const end = Math.floor(Date.now() / 86_400_000) * 86_400;
const ROUTES = {
  healthz: '/healthz',
  list: '/api/transactions',
  ranking: `/api/rankings/services?by=distinct_payers&since=${end - 30 * 86_400}&until=${end}`,
} as const;

interface Row {
  server: string;
  route: string;
  round: number;
  bytes: number;
  bare: LoadResult;
  paywatch: LoadResult;
  share: number;
  load: string;
}

const rows: Row[] = [];
const servers = [{ name: 'this', server: await servePaywatch(values.db) }];
if (values.before) servers.push({ name: 'before', server: await servePaywatch(values.db, {}, `${values.before}/bin/paywatch.js`) });
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [route, path] of Object.entries(ROUTES)) {
      let bytes = 0;
      for (const { server } of servers) {
        const res = await fetch(server.url + path);
        if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
        bytes = (await res.text()).length;
      }
      const bare = await startBareRoute(bytes);
      try {
        const b = await measure('bare', bare.bareUrl, { duration: DURATION, cpuPid: bare.pid });
        // Alternate which server goes first from round to round, so neither always runs right after the bare route.
        const order = round % 2 === 1 ? servers : [...servers].reverse();
        for (const { name, server } of order) {
          const p = await measure(route, server.url + path, { duration: DURATION, cpuPid: server.pid });
          const load = loadavg()
            .map((x) => x.toFixed(2))
            .join(' ');
          const share = Math.round((p.req_per_s / b.req_per_s) * 100) / 100;
          rows.push({ server: name, route, round, bytes, bare: b, paywatch: p, share, load });
          console.log(
            `${name} ${route} round ${round}: ${p.req_per_s} / ${b.req_per_s} req/s = ${share}; CPU µs/req ${Math.round((p.server_cpu_ms_per_req ?? 0) * 1000)} vs bare ${Math.round((b.server_cpu_ms_per_req ?? 0) * 1000)}; load ${load}`,
          );
        }
      } finally {
        await bare.stop();
      }
    }
  }
} finally {
  for (const { server } of servers) await server.stop();
}
const us = (r: LoadResult) => Math.round((r.server_cpu_ms_per_req ?? 0) * 1000);
writeResults(
  `http-overhead-${values.label}`,
  { db: values.db.replace(/\/\/[^@]*@/, '//'), duration_s: DURATION, rows },
  [
    `Command: \`node bin/run-ts.js bench/http-overhead.ts ${process.argv.slice(2).join(' ')}\`. Run at ${new Date().toISOString()}.`,
    '',
    '| server | route | round | bytes | paywatch req/s | bare req/s | share | paywatch CPU µs/req | bare CPU µs/req | load average |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ${r.server} | ${r.route} | ${r.round} | ${r.bytes} | ${r.paywatch.req_per_s} | ${r.bare.req_per_s} | **${r.share}** | ${us(r.paywatch)} | ${us(r.bare)} | ${r.load} |`,
    ),
  ].join('\n'),
);
