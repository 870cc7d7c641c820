/**
 * Payments analytics benchmark (docs/payments.md): a store of `--count` payments (default 1,000,000) to
 * `--services` services (10,000) from `--payers` payers (50,000) over 30 days, written through the real writer
 * (so the rollups are kept as the collector keeps them), on SQLite and PostgreSQL. Measures, in process:
 * - the services ranking by distinct payers over the last 30 days, uncached (rankRollups): p50 / p99 over `--runs`;
 * - a page of the newest 30 payments of one service (the service_id index), uncached: p50 / p99;
 * - with `--http`: `paywatch serve` (compiled dist/: run `npm run build` first) answering the remembered ranking
 *   against the bare route with a body of the same size (req/s share);
 * - bytes per observation, every table and index, and the rollups' share of it;
 * - with `--exclude`: exclude=self_payment,self_funded (docs/api-chain.md), uncached p50 / p99, runs with and without interleaved: the recipients ranking
 *   with and without it, and /api/metrics over the window (aggregateMetrics, the latest 50,000) with and without it.
 * Targets: ranking uncached p99 ≤ 250 ms; remembered ≥ 0.5 × bare; filtered list p99 ≤ 50 ms.
 * `--reuse` keeps a store seeded by an earlier run with the same `--count` (bench/tmp or the bench database), even
 * one stopped part way, and times it again, migrating it first when the code added migrations (seeding 1,000,000
 * takes 25 min to 2 h under load).
 * Results: bench/results/payments.json and .md.
 */
import { parseArgs } from 'node:util';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { openStore, type Store } from '../src/store/db.js';
import type { PreparedBlock, SerializedObservation } from '../src/store/chain/rows.js';
import { writeBlocksBatched } from './lib/seeded.js';
import { rankRollups, type RankingSpent } from '../src/store/chain/rankings.js';
import { aggregateMetrics } from '../src/store/chain/reads.js';
import { METRICS_WINDOW } from '../src/domain/metrics.js';
import type { Exclusion } from '../src/domain/filters.js';
import { ROLLUP_TABLES } from '../src/store/chain/rollups.js';
import { refreshPlannerStatistics, storageUsage } from '../src/store/maintenance.js';
import { benchStore } from './lib/db.js';
import { hexOf, prng } from '../src/seed/chain.js';
import { measure, servePaywatch, startBareRoute, writeResults } from './lib/load.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '1000000' },
    services: { type: 'string', default: '10000' },
    payers: { type: 'string', default: '50000' },
    dialect: { type: 'string', default: 'both' },
    runs: { type: 'string', default: '30' },
    http: { type: 'boolean', default: false },
    duration: { type: 'string', default: '5' },
    reuse: { type: 'boolean', default: false },
    exclude: { type: 'boolean', default: false },
    // A store name of one's own (bench/tmp/NAME.sqlite, database NAME) when others bench the same count meanwhile.
    name: { type: 'string' },
  },
});
const COUNT = Number(values.count);
const SERVICES = Number(values.services);
const PAYERS = Number(values.payers);
const RUNS = Number(values.runs);
const DAYS = 30;
/** Uncounted rankings before the timed ones (the first one's time is reported on its own). */
const RANKING_WARMUP = 3;
const PATH_USD = '0x20c0000000000000000000000000000000000000';

const serviceId = (k: number) => createHash('sha256').update(`service:${k}`).digest('hex');

/** The synthetic payments as prepared blocks of 50, times spread evenly over the 30 days ending at `end`. */
function* blocks(end: number): Generator<PreparedBlock> {
  const rnd = prng(7);
  const start = end - DAYS * 86_400;
  const perBlock = 50;
  const payers = Array.from({ length: PAYERS }, (_, i) => hexOf(`payer:${i}`, 20));
  for (let h = 0; h * perBlock < COUNT; h++) {
    const time = start + Math.floor((h * perBlock * DAYS * 86_400) / COUNT);
    const observations: SerializedObservation[] = [];
    for (let i = 0; i < perBlock && h * perBlock + i < COUNT; i++) {
      // Popularity skewed like a real market: a few services take most payments.
      const k = Math.floor(SERVICES * rnd() ** 3);
      const payTo = hexOf(`payto:${k}`, 20);
      const self = rnd() < 0.01;
      const payer = self ? payTo : payers[Math.floor(PAYERS * rnd() ** 2)];
      const hash = hexOf(`tx:${h}:${i}`, 32);
      const amount = (Math.floor(rnd() * 100_000) / 1e6).toString();
      const mpp = rnd() < 0.7;
      observations.push({
        hash,
        time,
        row: {
          hash,
          time,
          height: 1_000_000 + h,
          tx_index: i,
          chain_id: 4217,
          sender: payer,
          recipient: payTo,
          asset: 'pathUSD',
          asset_contract: PATH_USD,
          amount,
          nominal_parts: JSON.stringify([[PATH_USD, amount]]),
          fee: '0.001',
          exchange: null,
          protocol: mpp ? 'mpp' : 'x402',
          category: 'payment',
          execution: 'success',
          decode: 'full',
          payer,
          self_payment: self ? 1 : 0,
          client_fingerprint: mpp ? hexOf(`client:${payer}`, 10) : null,
          server_fingerprint: mpp ? hexOf(`server:${k}`, 10) : null,
          service_id: serviceId(k),
          provider: `p${k % 2000}.example`,
          attribution_method: mpp ? 'memo_and_pay_to' : 'pay_to',
          attribution_ambiguous: 0,
          integrity: '{"score":2,"maximum":5}',
        },
        detail: '{}',
        legRecipients: [],
      });
    }
    yield { height: 1_000_000 + h, hash: hexOf(`block:${h}`, 32), time, observations };
  }
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 10) / 10;
};

/**
 * p50 / p99 ms of `runs` calls of `fn` after `warmup` uncounted ones (a fresh process compiles the ranking's code
 * over its first few calls: on PostgreSQL its first three took 678, 343 and 437 ms against ~210 after), and the
 * first call's ms on its own.
 */
async function timed(runs: number, fn: () => Promise<unknown>, warmup = 1) {
  const ms: number[] = [];
  const t0 = performance.now();
  await fn();
  const first_ms = Math.round(performance.now() - t0);
  for (let i = 1; i < warmup; i++) await fn();
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return { p50_ms: pct(ms, 50), p99_ms: pct(ms, 99), first_ms };
}

/** timed for two requests compared with each other, their runs interleaved so a drift of the load hits both alike. */
async function timedPair(runs: number, a: () => Promise<unknown>, b: () => Promise<unknown>) {
  const ms: [number[], number[]] = [[], []];
  await a();
  await b();
  for (let i = 0; i < runs; i++)
    for (const [k, fn] of [a, b].entries()) {
      const t0 = performance.now();
      await fn();
      ms[k].push(performance.now() - t0);
    }
  return ms.map((xs) => ({ p50_ms: pct(xs, 50), p99_ms: pct(xs, 99) }));
}

async function seed(store: Store, end: number) {
  return writeBlocksBatched(store, blocks(end));
}

const results: Record<string, unknown>[] = [];
const end = Math.floor(Date.now() / 86_400_000) * 86_400;
for (const dialect of values.dialect === 'both' ? (['sqlite', 'postgres'] as const) : [values.dialect as 'sqlite' | 'postgres']) {
  const name = values.name ?? `payments_${COUNT}`;
  const reuse = values.reuse && (dialect === 'postgres' || existsSync(`bench/tmp/${name}.sqlite`));
  if (dialect === 'sqlite' && !reuse) {
    mkdirSync('bench/tmp', { recursive: true });
    rmSync(`bench/tmp/${name}.sqlite`, { force: true });
    rmSync(`bench/tmp/${name}.sqlite-wal`, { force: true });
  }
  const db = await benchStore(dialect, name, { fresh: !reuse });
  const store = await openStore(db);
  const stored = async () =>
    Number((await store.db.selectFrom('chain_stats').select('observation_count').executeTakeFirst())?.observation_count ?? 0);
  // A seed stopped part way is reusable too (its blocks are whole transactions): the figures name the count held.
  if (reuse && (await stored()) === 0) throw new Error(`--reuse: ${db} holds no observations; run without --reuse`);
  const seeded_s = reuse ? null : await seed(store, end);
  // A reused store was migrated or written since: time it with fresh planner statistics, as autovacuum would leave it.
  if (reuse) await refreshPlannerStatistics(store);
  const n = await stored();
  let rollupRows = 0;
  for (const table of ROLLUP_TABLES)
    rollupRows += Number(
      (
        await store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const req = { kind: 'services' as const, since: end - DAYS * 86_400, until: end, by: 'distinct_payers' as const, limit: 20, offset: 0 };
  const spent: RankingSpent = { window_sums: 0, distinct_payers: 0, covered_window: 0, top_payer: 0 };
  const parts: RankingSpent[] = [];
  const ranking = await timed(
    RUNS,
    async () => {
      for (const k of Object.keys(spent) as (keyof RankingSpent)[]) spent[k] = 0;
      await rankRollups(store, req, spent);
      parts.push({ ...spent });
    },
    RANKING_WARMUP,
  );
  // Per part, p50 / p99 over the timed runs (the warm-up runs left out).
  const ranking_parts = Object.fromEntries(
    (Object.keys(spent) as (keyof RankingSpent)[]).map((k) => {
      const xs = parts.slice(RANKING_WARMUP).map((p) => p[k]);
      return [k, { p50_ms: pct(xs, 50), p99_ms: pct(xs, 99) }];
    }),
  );
  const top = await rankRollups(store, req);
  const sid = top.rows[Math.min(10, top.rows.length - 1)].service_id!;
  const list = await timed(RUNS * 3, () =>
    store.db
      .selectFrom('observations')
      .selectAll()
      .where('service_id', '=', sid)
      .orderBy('time', 'desc')
      .orderBy('hash', 'asc')
      .limit(30)
      .execute(),
  );
  let exclusions: Record<string, unknown> | null = null;
  if (values.exclude) {
    const exclude: Exclusion[] = ['self_payment', 'self_funded'];
    const recipients = { ...req, kind: 'recipients' as const, by: 'nominal' as const };
    const window = { since: req.since, until: req.until };
    const [recipients_ranking, recipients_ranking_excluding] = await timedPair(
      RUNS,
      () => rankRollups(store, recipients),
      () => rankRollups(store, { ...recipients, exclude }),
    );
    const [metrics, metrics_excluding] = await timedPair(
      RUNS,
      () => aggregateMetrics(store, window, METRICS_WINDOW),
      () => aggregateMetrics(store, { ...window, exclude }, METRICS_WINDOW),
    );
    exclusions = { recipients_ranking, recipients_ranking_excluding, metrics, metrics_excluding };
  }
  const usage = await storageUsage(store);
  const total = usage.reduce((s, o) => s + o.bytes, 0);
  const rollupBytes = usage.filter((o) => (ROLLUP_TABLES as readonly string[]).includes(o.table)).reduce((s, o) => s + o.bytes, 0);
  let http: Record<string, unknown> | null = null;
  await store.close();
  if (values.http) {
    const server = await servePaywatch(db);
    const url = `${server.url}/api/rankings/services?by=distinct_payers&since=${req.since}&until=${req.until}`;
    const bytes = (await (await fetch(url)).text()).length;
    const bare = await startBareRoute(bytes);
    try {
      const b = await measure('bare route', bare.bareUrl, { duration: Number(values.duration), cpuPid: bare.pid });
      const r = await measure('ranking (remembered)', url, { duration: Number(values.duration), cpuPid: server.pid });
      // CPU per request survives the machine's load; req/s shares swing with it (bench/README.md).
      const us = (x: number | null | undefined) => (x == null ? null : Math.round(x * 1000));
      http = {
        bare_req_s: b.req_per_s,
        ranking_req_s: r.req_per_s,
        bare_cpu_us_per_req: us(b.server_cpu_ms_per_req),
        ranking_cpu_us_per_req: us(r.server_cpu_ms_per_req),
        share: Math.round((r.req_per_s / b.req_per_s) * 100) / 100,
        ranking_p99_ms: r.p99_ms,
      };
    } finally {
      await server.stop();
      await bare.stop();
    }
  }
  results.push({
    dialect,
    observations: n,
    rollup_rows: rollupRows,
    seeded_s,
    ranking_uncached: ranking,
    ranking_parts,
    service_list_uncached: list,
    bytes_per_observation: Math.round(total / n),
    rollup_bytes_per_observation: Math.round(rollupBytes / n),
    // Per rollup table (indexes included), bytes per observation: what dropping one would save.
    rollup_bytes_by_table: Object.fromEntries(
      ROLLUP_TABLES.map((t) => [t, Math.round(usage.filter((o) => o.table === t).reduce((s, o) => s + o.bytes, 0) / n)]),
    ),
    http,
    exclusions,
  });
  console.log(JSON.stringify(results[results.length - 1]));
}

const fmt = (r: Record<string, any>) =>
  `| ${r.dialect} | ${r.observations} | ${r.rollup_rows} | ${r.ranking_uncached.p50_ms} / **${r.ranking_uncached.p99_ms}** (a fresh process's first: ${r.ranking_uncached.first_ms}) | ${r.service_list_uncached.p50_ms} / **${r.service_list_uncached.p99_ms}** | ${r.http ? `${r.http.ranking_req_s} / ${r.http.bare_req_s} = **${r.http.share}**` : 'not run'} | ${r.bytes_per_observation} (rollups ${r.rollup_bytes_per_observation}) | ${r.seeded_s ?? 'reused'} |`;
writeResults(
  values.exclude ? 'payments-exclude' : 'payments',
  { count: COUNT, services: SERVICES, payers: PAYERS, results },
  [
    '# Payments analytics',
    '',
    `Command: \`node bin/run-ts.js bench/payments.ts ${process.argv.slice(2).join(' ')}\`. Run at ${new Date().toISOString()}. ${COUNT} payments, ${SERVICES} services, ${PAYERS} payers over 30 days. Uncached figures are in process (the store functions, no HTTP); remembered is \`paywatch serve\` against the bare route.`,
    '',
    '| dialect | observations | rollup rows | ranking by distinct_payers uncached p50 / p99 ms (≤ 250) | service_id list uncached p50 / p99 ms (≤ 50) | remembered req/s / bare (≥ 0.5) | bytes per observation | seeded in s |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map(fmt),
    ...(values.exclude
      ? [
          '',
          '| dialect | recipients ranking p50 / p99 ms | same, exclude=self_payment,self_funded | metrics (latest 50,000) p50 / p99 ms | same, exclude=self_payment,self_funded |',
          '|---|---:|---:|---:|---:|',
          ...results.map((r: Record<string, any>) => {
            const x = r.exclusions;
            const f = (m: { p50_ms: number; p99_ms: number }) => `${m.p50_ms} / **${m.p99_ms}**`;
            return `| ${r.dialect} | ${f(x.recipients_ranking)} | ${f(x.recipients_ranking_excluding)} | ${f(x.metrics)} | ${f(x.metrics_excluding)} |`;
          }),
        ]
      : []),
  ].join('\n'),
);
