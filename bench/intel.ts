/**
 * Intelligence benchmarks. Results: bench/results/intel.{json,md}.
 * 1. Probe throughput: 1,000 local x402 v2 services in one process (10 ports × 100 routes, bench/lib/many-services.ts)
 *    probed by the real Prober with its default politeness (allowLoopback only); services/s, total seconds and the
 *    most requests any one host (port) had in flight, counted at the server (target ≤ 1).
 * 2. API at scale: a store seeded with 10,000 providers, 100,000 services, 500,000 snapshots, 1,000,000 offer rows and
 *    some changes (src/seed/intel.ts), served by `paywatch serve` in its own process; autocannon on loopback
 *    against the provider and intelligence lists and one MCP tool call, each beside a bare Fastify route answering a
 *    body of the same size, on SQLite and PostgreSQL. Target: each list ≥ 0.3 × bare req/s.
 * Run: node bin/run-ts.js bench/intel.ts [--providers N] [--dialect sqlite|postgres]… [--duration S] [--skip-probe] [--skip-api]
 * The seeded stores are kept (bench/tmp/intel-N.sqlite, database paywatch_bench_intel_N) and reused.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { sql } from 'kysely';
import { openStore } from '../src/store/db.js';
import { seedIntel, seedDomain, SEED_WORDS } from '../src/seed/intel.js';
import { Prober } from '../src/intel/probe/index.js';
import { startManyServices } from './lib/many-services.js';
import { measure, servePaywatch, startBareRoute, writeResults, type LoadOptions, type LoadResult } from './lib/load.js';

const { values } = parseArgs({
  options: {
    providers: { type: 'string', default: '10000' },
    dialect: { type: 'string', multiple: true },
    duration: { type: 'string', default: '8' },
    'probe-ports': { type: 'string', default: '10' },
    'probe-routes': { type: 'string', default: '100' },
    'skip-probe': { type: 'boolean', default: false },
    'skip-api': { type: 'boolean', default: false },
  },
});
const PROVIDERS = Number(values.providers);
const DURATION = Number(values.duration);
const DIALECTS = (values.dialect?.length ? values.dialect : ['sqlite', 'postgres']) as ('sqlite' | 'postgres')[];
const PG_ADMIN = process.env.PAYWATCH_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Milliseconds each local service holds its answer (see bench/lib/many-services.ts). */
const PROBE_DELAY_MS = 5;
/** Offer rows per provider with the seeder's defaults (10 services × 5 checks × 2 offers). */
const OFFERS_PER_PROVIDER = 100;

// ---- 1. probe throughput ----------------------------------------------------------------------------------------

interface ProbeReport {
  services: number;
  hosts: number;
  total_s: number;
  services_per_s: number;
  max_in_flight_per_host: number;
  outcomes: Record<string, number>;
  offers_parsed: number;
  requests_at_servers: number;
  prober_settings: string;
  targets: Record<string, { value: number; target: string; pass: boolean }>;
}

async function benchProbe(): Promise<ProbeReport> {
  const ports = Number(values['probe-ports']);
  const farm = await startManyServices(ports, Number(values['probe-routes']), PROBE_DELAY_MS);
  try {
    // Default politeness (overall concurrency 8, one request per host at a time, default timeout and size cap);
    // loopback is allowed because the services are local.
    const prober = new Prober({ allowLoopback: true });
    const t0 = performance.now();
    const results = await prober.probeAll(farm.services);
    const total_s = (performance.now() - t0) / 1000;
    const outcomes: Record<string, number> = {};
    for (const r of results) outcomes[r.snapshot.outcome] = (outcomes[r.snapshot.outcome] ?? 0) + 1;
    const stats = farm.stats();
    const maxInFlight = Math.max(...stats.map((s) => s.maxInFlight));
    const ok = outcomes.payment_required ?? 0;
    return {
      services: farm.services.length,
      hosts: ports,
      total_s: Number(total_s.toFixed(2)),
      services_per_s: Math.round(farm.services.length / total_s),
      max_in_flight_per_host: maxInFlight,
      outcomes,
      offers_parsed: results.reduce((n, r) => n + r.snapshot.offers.length, 0),
      requests_at_servers: stats.reduce((n, s) => n + s.requests, 0),
      prober_settings: 'new Prober({ allowLoopback: true }): defaults (concurrency 8, per-host 1, fetcher timeout and size cap)',
      targets: {
        'max requests in flight at any one host ≤ 1': { value: maxInFlight, target: '≤ 1', pass: maxInFlight <= 1 },
        'every service answered payment_required with its offer': {
          value: ok,
          target: `= ${farm.services.length}`,
          pass: ok === farm.services.length,
        },
      },
    };
  } finally {
    await farm.stop();
  }
}

// ---- 2. API at scale --------------------------------------------------------------------------------------------

/** Returns a store location seeded with PROVIDERS providers (and the rest), seeding it when empty. */
async function seededStore(
  dialect: 'sqlite' | 'postgres',
): Promise<{ db: string; seeded_s: number | null; counts: Record<string, number> }> {
  let db = `sqlite:bench/tmp/intel-${PROVIDERS}.sqlite`;
  if (dialect === 'postgres') {
    const name = `paywatch_bench_intel_${PROVIDERS}`;
    const admin = new pg.Client({ connectionString: PG_ADMIN });
    await admin.connect();
    const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (!exists.rowCount) await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const u = new URL(PG_ADMIN);
    u.pathname = `/${name}`;
    db = u.toString();
  }
  const store = await openStore(db);
  const count = async (table: string) =>
    Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(store.db)).rows[0].n);
  const finishedRuns = Number(
    (await sql<{ n: number }>`select count(*) as n from intel_collect_runs where finished_at is not null`.execute(store.db)).rows[0].n,
  );
  const offers = await count('intel_offers');
  let seeded_s: number | null = null;
  if (finishedRuns === 0 || offers !== PROVIDERS * OFFERS_PER_PROVIDER) {
    if (offers > 0 || finishedRuns > 0)
      throw new Error(
        `${store.location} holds ${offers} offers, not ${PROVIDERS * OFFERS_PER_PROVIDER} (or was seeded partly): delete it and run again`,
      );
    process.stderr.write(`seeding ${PROVIDERS} providers into ${store.location}…\n`);
    const r = await seedIntel(store, {
      providers: PROVIDERS,
      onProgress: (n) => n % 100_000 === 0 && process.stderr.write(`  ${n} offers\n`),
    });
    seeded_s = Number(r.seconds.toFixed(1));
  }
  await sql`analyze`.execute(store.db); // fresh planner statistics in both dialects
  const counts: Record<string, number> = {};
  for (const t of ['intel_providers', 'intel_services', 'intel_snapshots', 'intel_offers', 'intel_changes']) counts[t] = await count(t);
  await store.close();
  return { db, seeded_s, counts };
}

interface Case {
  name: string;
  path: string;
  /** A list endpoint (the ≥ 0.3 × bare target applies). */
  list: boolean;
  opts?: LoadOptions;
}

interface CaseResult {
  case: string;
  bytes: number;
  bare: LoadResult;
  result: LoadResult;
  share: number;
}

interface DialectReport {
  dialect: string;
  counts: Record<string, number>;
  seeded_s: number | null;
  cases: CaseResult[];
  targets: Record<string, { value: number; target: string; pass: boolean }>;
}

async function benchDialect(dialect: 'sqlite' | 'postgres'): Promise<DialectReport> {
  const { db, seeded_s, counts } = await seededStore(dialect);
  const server = await servePaywatch(db);
  try {
    const api = `${server.url}/api`;
    const domain = seedDomain(0); // provider 0: its services include price changes (every 5th service)
    const first = (await (await fetch(`${api}/providers?q=${domain}`)).json()) as { providers: { services: { service_id: string }[] }[] };
    const serviceId = first.providers[0].services[0].service_id;
    const mcpBody = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_service_offers', arguments: { service_id: serviceId } },
    });
    const cases: Case[] = [
      { name: 'GET /api/providers', path: '/providers', list: true },
      { name: `GET /api/providers?q=${SEED_WORDS[0]}`, path: `/providers?q=${SEED_WORDS[0]}`, list: true },
      { name: 'GET /api/intelligence/offers?service_id=…', path: `/intelligence/offers?service_id=${serviceId}`, list: true },
      { name: 'GET /api/intelligence/changes?domain=…', path: `/intelligence/changes?domain=${domain}`, list: true },
      {
        name: 'POST /api/mcp tools/call get_service_offers',
        path: '/mcp',
        list: false,
        opts: {
          method: 'POST',
          body: mcpBody,
          headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
        },
      },
    ];
    const out: CaseResult[] = [];
    for (const c of cases) {
      const url = `${api}${c.path}`;
      const res = await fetch(url, { method: c.opts?.method ?? 'GET', headers: c.opts?.headers, body: c.opts?.body });
      const body = await res.text();
      if (res.status !== 200 || body.includes('"isError":true')) throw new Error(`${c.name}: ${res.status} ${body.slice(0, 300)}`);
      const bytes = Buffer.byteLength(body);
      const bare = await startBareRoute(bytes);
      try {
        const bareResult = await measure(`bare route (${bytes} B, ${c.opts?.method ?? 'GET'})`, bare.bareUrl, {
          duration: DURATION,
          method: c.opts?.method,
          body: c.opts?.body,
          headers: c.opts?.headers,
        });
        const result = await measure(c.name, url, { duration: DURATION, ...c.opts });
        out.push({
          case: c.name,
          bytes,
          bare: bareResult,
          result,
          share: Number((result.req_per_s / Math.max(bareResult.req_per_s, 1)).toFixed(2)),
        });
        process.stderr.write(
          `  ${dialect} ${c.name}: ${result.req_per_s} req/s (bare ${bareResult.req_per_s}), p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms\n`,
        );
      } finally {
        await bare.stop();
      }
    }
    const targets: DialectReport['targets'] = {};
    cases.forEach((c, i) => {
      if (c.list) targets[`${c.name} ≥ 0.3 × bare req/s`] = { value: out[i].share, target: '≥ 0.3', pass: out[i].share >= 0.3 };
    });
    return { dialect, counts, seeded_s, cases: out, targets };
  } finally {
    await server.stop();
  }
}

const probe = values['skip-probe'] ? null : await benchProbe();
if (probe)
  process.stderr.write(
    `probe: ${probe.services} services in ${probe.total_s} s (${probe.services_per_s}/s), max in flight per host ${probe.max_in_flight_per_host}\n`,
  );
const reports: DialectReport[] = [];
if (!values['skip-api']) for (const d of DIALECTS) reports.push(await benchDialect(d));

const targetRows = (t: Record<string, { value: number; target: string; pass: boolean }>) => [
  `| target | value | pass |`,
  `|---|---:|---|`,
  ...Object.entries(t).map(([k, v]) => `| ${k} | ${v.value} | ${v.pass ? 'yes' : 'NO'} |`),
];
const COMMAND = ['node bin/run-ts.js bench/intel.ts', ...process.argv.slice(2)].join(' ');
const md = [
  `# Intelligence benchmarks`,
  ``,
  `Command: \`${COMMAND}\`. Machine: ${process.platform} ${process.arch}, 2 cores shared with other work, Node ${process.version}. Run at ${new Date().toISOString()}.`,
  ``,
  ...(probe
    ? [
        `## Probe throughput`,
        ``,
        `${probe.services} local x402 v2 services (${probe.hosts} loopback ports × ${probe.services / probe.hosts} routes, one process, each answer held ${PROBE_DELAY_MS} ms as a service's own latency) probed by ${probe.prober_settings}.`,
        ``,
        `| services | hosts | total s | services/s | max in flight at one host | offers parsed | outcomes |`,
        `|---:|---:|---:|---:|---:|---:|---|`,
        `| ${probe.services} | ${probe.hosts} | ${probe.total_s} | ${probe.services_per_s} | ${probe.max_in_flight_per_host} | ${probe.offers_parsed} | ${Object.entries(
          probe.outcomes,
        )
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')} |`,
        ``,
        ...targetRows(probe.targets),
        ``,
      ]
    : []),
  ...reports.flatMap((r) => [
    `## API at scale: ${r.dialect}`,
    ``,
    `Store: ${Object.entries(r.counts)
      .map(([t, n]) => `${t.replace('intel_', '')} ${n.toLocaleString('en')}`)
      .join(
        ', ',
      )}${r.seeded_s ? ` (seeded in ${r.seeded_s} s)` : ' (reused)'}. \`paywatch serve\` in its own process; autocannon ${DURATION} s per case after a 1 s warm-up, 10 connections; each case right after a bare Fastify route answering a body of the same size.`,
    ``,
    `| case | body bytes | req/s | bare req/s (same size) | share | p50 ms | p99 ms |`,
    `|---|---:|---:|---:|---:|---:|---:|`,
    ...r.cases.map(
      (c) =>
        `| ${c.case} | ${c.bytes} | ${c.result.req_per_s} | ${c.bare.req_per_s} | ${c.share} | ${c.result.p50_ms} | ${c.result.p99_ms} |`,
    ),
    ``,
    ...targetRows(r.targets),
    ``,
  ]),
].join('\n');
writeResults('intel', { command: COMMAND, probe, api: reports }, md);
process.stdout.write(md);
