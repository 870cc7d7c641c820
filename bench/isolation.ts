/**
 * Isolation benchmark: can one client stall the public API for everybody else? On the 1,000,000-observation store
 * (bench/lib/seeded.ts), `paywatch serve` runs in its own process; one address (127.0.0.1) keeps 8 distinct
 * metrics queries in flight at about 300 a minute (inside the default 600/min rate limit; each query misses the
 * remembered answers, so each aggregates 50,000 rows), while a bystander on other addresses (127.0.0.2) polls the
 * default list. Reported: the bystander's latency alone and under the flood, p50/p99/max, and what the flooding
 * client got (200, 429, 503), for "before" (heavy reads inline on the main thread, no per-client budget:
 * PAYWATCH_READERS=0, PAYWATCH_HEAVY_PER_CLIENT=64) and "after" (the defaults), on SQLite and PostgreSQL.
 * Target: on SQLite, "after", the bystander's p99 under the flood ≤ 100 ms.
 * Run: node bin/run-ts.js bench/isolation.ts [--count N] [--dialect sqlite|postgres] [--duration S]
 * Results: bench/results/isolation.{json,md}.
 */
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { seededStore } from './lib/seeded.js';
import { servePaywatch, writeResults } from './lib/load.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '1000000' },
    dialect: { type: 'string', multiple: true },
    duration: { type: 'string', default: '20' },
  },
});
const COUNT = Number(values.count);
const DURATION_MS = Number(values.duration) * 1000;
const DIALECTS = (values.dialect?.length ? values.dialect : ['sqlite', 'postgres']) as ('sqlite' | 'postgres')[];
/** Flooding client: metrics queries in flight at once, and its pace (8 × 1 per 1.6 s = 300 a minute). */
const FLOOD_CONCURRENCY = 8;
const FLOOD_INTERVAL_MS = 1600;
/** Bystander: one request at a time, this long apart. */
const POLL_GAP_MS = 20;

const MODES = {
  before: { PAYWATCH_READERS: '0', PAYWATCH_HEAVY_PER_CLIENT: '64' },
  // The shipped defaults, stated: servePaywatch lifts the budget for load generators.
  after: { PAYWATCH_READERS: '2', PAYWATCH_HEAVY_PER_CLIENT: '2' },
} as const;

interface Latency {
  requests: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** Answers other than 200. */
  errors: number;
}

function summarize(ms: number[], errors: number): Latency {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => (s.length ? Number(s[Math.min(s.length - 1, Math.floor(q * s.length))].toFixed(1)) : NaN);
  return { requests: s.length, p50_ms: at(0.5), p99_ms: at(0.99), max_ms: Number((s[s.length - 1] ?? NaN).toFixed(1)), errors };
}

/** Polls `path` one request at a time from 127.0.0.2 until `until`; latency of each answer. */
async function bystander(url: string, path: string, until: number): Promise<Latency> {
  const pool = new Pool(url, { connections: 1, connect: { localAddress: '127.0.0.2' } });
  const ms: number[] = [];
  let errors = 0;
  try {
    while (Date.now() < until) {
      const t = performance.now();
      const r = await pool.request({ method: 'GET', path });
      await r.body.text();
      ms.push(performance.now() - t);
      if (r.statusCode !== 200) errors++;
      await sleep(POLL_GAP_MS);
    }
  } finally {
    await pool.close();
  }
  return summarize(ms, errors);
}

/** FLOOD_CONCURRENCY loops of distinct metrics queries from 127.0.0.1, honouring Retry-After, until `until`. */
async function flood(url: string, until: number): Promise<Record<string, number>> {
  const pool = new Pool(url, { connections: FLOOD_CONCURRENCY, connect: { localAddress: '127.0.0.1' } });
  const statuses: Record<string, number> = {};
  let n = 0;
  const loop = async () => {
    while (Date.now() < until) {
      const started = Date.now();
      // A distinct `since` every time: every query misses the remembered answers.
      const r = await pool.request({ method: 'GET', path: `/api/metrics?since=${1_000_000 + n++}` });
      await r.body.text();
      statuses[r.statusCode] = (statuses[r.statusCode] ?? 0) + 1;
      const retry = Number(r.headers['retry-after'] ?? 0) * 1000;
      await sleep(Math.max(FLOOD_INTERVAL_MS - (Date.now() - started), retry, 0));
    }
  };
  try {
    await Promise.all(Array.from({ length: FLOOD_CONCURRENCY }, loop));
  } finally {
    await pool.close();
  }
  return statuses;
}

interface ModeReport {
  mode: keyof typeof MODES;
  env: Record<string, string>;
  alone: Latency;
  flooded: Latency;
  flood_statuses: Record<string, number>;
}

async function benchMode(db: string, mode: keyof typeof MODES): Promise<ModeReport> {
  const server = await servePaywatch(db, MODES[mode]);
  try {
    const path = '/api/transactions?limit=30';
    await bystander(server.url, path, Date.now() + 2000); // warm-up (reader threads load, first page remembered)
    const alone = await bystander(server.url, path, Date.now() + 5000);
    const until = Date.now() + DURATION_MS;
    const [flooded, flood_statuses] = await Promise.all([bystander(server.url, path, until), flood(server.url, until)]);
    return { mode, env: { ...MODES[mode] }, alone, flooded, flood_statuses };
  } finally {
    await server.stop();
  }
}

const reports: { dialect: string; rows: number; modes: ModeReport[] }[] = [];
for (const dialect of DIALECTS) {
  const { db } = await seededStore(dialect, COUNT);
  const modes: ModeReport[] = [];
  for (const mode of Object.keys(MODES) as (keyof typeof MODES)[]) {
    process.stderr.write(`${dialect} ${mode}…\n`);
    modes.push(await benchMode(db, mode));
  }
  reports.push({ dialect, rows: COUNT, modes });
}

const sqliteAfter = reports.find((r) => r.dialect === 'sqlite')?.modes.find((m) => m.mode === 'after');
const target = sqliteAfter ? { value: sqliteAfter.flooded.p99_ms, target: '≤ 100 ms', pass: sqliteAfter.flooded.p99_ms <= 100 } : null;
const lines = [
  `# Isolation: a metrics flood from one address, a bystander polling the default list`,
  ``,
  `${new Date().toISOString()}; ${COUNT.toLocaleString('en-US')} observations; flood: ${FLOOD_CONCURRENCY} distinct metrics queries in flight from 127.0.0.1, about ${Math.round((FLOOD_CONCURRENCY * 60_000) / FLOOD_INTERVAL_MS)} a minute; bystander: GET /api/transactions?limit=30 from 127.0.0.2, one at a time, ${POLL_GAP_MS} ms apart; ${DURATION_MS / 1000} s under the flood.`,
  `Command: \`node bin/run-ts.js bench/isolation.ts\``,
  ``,
  `| store | mode | bystander alone p50 / p99 / max (ms) | bystander under flood p50 / p99 / max (ms) | bystander requests (errors) | flood answers |`,
  `|---|---|---|---|---|---|`,
  ...reports.flatMap((r) =>
    r.modes.map(
      (m) =>
        `| ${r.dialect} | ${m.mode} | ${m.alone.p50_ms} / ${m.alone.p99_ms} / ${m.alone.max_ms} | ${m.flooded.p50_ms} / ${m.flooded.p99_ms} / ${m.flooded.max_ms} | ${m.flooded.requests} (${m.flooded.errors}) | ${Object.entries(
          m.flood_statuses,
        )
          .map(([s, n]) => `${s}: ${n}`)
          .join(', ')} |`,
    ),
  ),
  ``,
  target ? `Target (SQLite, after, bystander p99 under the flood ≤ 100 ms): ${target.value} ms — ${target.pass ? 'met' : 'NOT met'}.` : '',
];
writeResults('isolation', { at: new Date().toISOString(), count: COUNT, reports, target }, lines.join('\n'));
process.stdout.write(`${lines.join('\n')}\n`);
