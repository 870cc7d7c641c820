/**
 * Intake benchmark: signed POST /api/protocol-events deliveries per second and p50/p99 latency,
 * against `paywatch serve` in its own process on SQLite and PostgreSQL, beside a bare Fastify route (POST, a
 * fixed body of the receipt's size) in the same run. Every request is a distinct, correctly signed first
 * delivery (a shared counter in autocannon's setupRequest), so each one verifies an HMAC and inserts a row.
 * Target: at least 0.25 of the bare route's req/s, judged at the highest concurrency measured (default 32
 * connections; 10 is reported beside it). Why two: every delivery waits for its own durable commit, so with few
 * clients the intake is bound by commit latency and the server sits partly idle, while the bare route is
 * CPU-bound from the start; deliveries per second means capacity, which needs enough clients to saturate the
 * server (docs/decisions.md). Results: bench/results/intake.{json,md}.
 * At the judged concurrency the bare/intake pair is measured `--rounds` times (default 3) and the median share
 * counts, every round reported: one pair moved by ±0.05 with the machine's load.
 * Run: node bin/run-ts.js bench/intake.ts [--dialect sqlite|postgres] [--duration S] [--connections N …] [--rounds N]
 */
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import type autocannon from 'autocannon';
import { openStore } from '../src/store/db.js';
import { KeyVault } from '../src/intake/keys.js';
import { issueSender } from '../src/intake/operator.js';
import { signDelivery } from '../src/intake/signature.js';
import { MasterSecret } from '../src/secrets/index.js';
import { createTestDb } from '../test/helpers/db.js';
import { measure, servePaywatch, startBareRoute, writeResults, type LoadResult } from './lib/load.js';

const { values } = parseArgs({
  options: {
    dialect: { type: 'string', multiple: true },
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', multiple: true },
    rounds: { type: 'string', default: '3' },
  },
});
const DURATION = Number(values.duration);
/** Concurrencies measured, ascending; the target is judged at the last (highest). */
const CONNECTIONS = (values.connections?.length ? values.connections.map(Number) : [10, 32]).sort((a, b) => a - b);
const JUDGED = CONNECTIONS[CONNECTIONS.length - 1];
/** Bare-then-intake pairs at the judged concurrency; the target uses their median share (load on a 2-core box swings). */
const ROUNDS = Number(values.rounds);
const DIALECTS = (values.dialect?.length ? values.dialect : ['sqlite', 'postgres']) as ('sqlite' | 'postgres')[];
const SECRET = randomBytes(32).toString('hex');
const TARGET = 0.25;

/** An envelope of about the size applications send (an MCP tools/call record). */
function body(n: number): string {
  return JSON.stringify({
    schema: 'paywatch.protocol.v1',
    protocol: 'mcp',
    event_id: `bench-${n}`,
    event_type: 'tools/call',
    event_time: Math.floor(Date.now() / 1000),
    environment: 'test',
    record: {
      jsonrpc: '2.0',
      id: n,
      method: 'tools/call',
      params: { name: 'search_providers', arguments: { q: 'weather api', limit: 10 } },
    },
  });
}

/** The body and headers of delivery number `n`, signed now. */
function signed(conn: { id: string; key: string }, n: number): { body: string; headers: Record<string, string> } {
  const b = body(n);
  const ts = Math.floor(Date.now() / 1000);
  return {
    body: b,
    headers: {
      'content-type': 'application/json',
      'x-svc-connection': conn.id,
      'x-svc-timestamp': String(ts),
      'x-svc-signature': signDelivery(conn.key, ts, b),
    },
  };
}

/** autocannon requests that each send the next distinct signed delivery (the counter is shared by all connections). */
function signedRequests(conn: { id: string; key: string }, start: number): autocannon.Request[] {
  let n = start;
  return [{ method: 'POST', setupRequest: (req) => ({ ...req, ...signed(conn, n++) }) }];
}

/** Bare route and intake at one concurrency, measured one after the other. */
interface Pair {
  connections: number;
  round: number;
  bare: LoadResult;
  intake: LoadResult;
  share_of_bare: number;
}

interface DialectReport {
  dialect: string;
  /** Pairs by concurrency, ascending (ROUNDS of them at the judged, highest one). */
  runs: Pair[];
  /** Rows stored after the runs (warm-ups included); every 2xx answer was a 201 first delivery. */
  stored_events: number;
  /** The median share of the pairs at the highest concurrency (capacity), which the target is judged on. */
  share_of_bare: number;
  target: string;
  pass: boolean;
  /** The machine's 1-minute load average before and after this dialect's runs (other work skews every figure). */
  load_1m: [number, number];
}

async function benchDialect(dialect: 'sqlite' | 'postgres'): Promise<DialectReport> {
  const loadBefore = loadavg()[0];
  // A fresh store per run (the test helper: a temporary SQLite file or a new PostgreSQL database).
  const { url: db, drop } = await createTestDb(dialect);
  const store = await openStore(db);
  const conn = await issueSender(store, new KeyVault(MasterSecret.parse(SECRET)), 'connection', 'bench', 'mcp', 'test');
  const server = await servePaywatch(db, { PAYWATCH_SECRET: SECRET, PAYWATCH_INTAKE_RATE_LIMIT: '1000000000' });
  try {
    const probe = await fetch(`${server.url}/api/protocol-events`, { method: 'POST', ...signed(conn, -1) });
    const receipt = await probe.text();
    if (probe.status !== 201) throw new Error(`probe delivery answered ${probe.status}: ${receipt}`);
    const bare = await startBareRoute(Buffer.byteLength(receipt));
    const runs: Pair[] = [];
    // Event numbers never repeat across runs, so every intake request is a first delivery.
    let next = 0;
    try {
      for (const connections of CONNECTIONS) {
        const rounds = connections === JUDGED ? ROUNDS : 1;
        for (let round = 1; round <= rounds; round++) {
          // The bare route gets the same kind of request (same size, same headers) but does nothing with it.
          const bareResult = await measure(`bare POST route, ${connections} connections`, bare.bareUrl, {
            duration: DURATION,
            connections,
            requests: signedRequests(conn, 0),
          });
          next += 10_000_000;
          const intake = await measure(
            `signed protocol event (${dialect}), ${connections} connections`,
            `${server.url}/api/protocol-events`,
            {
              duration: DURATION,
              connections,
              requests: signedRequests(conn, next),
            },
          );
          runs.push({
            connections,
            round,
            bare: bareResult,
            intake,
            share_of_bare: Number((intake.req_per_s / bareResult.req_per_s).toFixed(3)),
          });
        }
      }
    } finally {
      await bare.stop();
    }
    const stored = Number(
      (
        await store.db
          .selectFrom('intake_protocol_events')
          .select((eb) => eb.fn.countAll<string | number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const judged = runs
      .filter((p) => p.connections === JUDGED)
      .map((p) => p.share_of_bare)
      .sort((a, b) => a - b);
    const share = judged[Math.floor(judged.length / 2)];
    const load: [number, number] = [Number(loadBefore.toFixed(2)), Number(loadavg()[0].toFixed(2))];
    return {
      dialect,
      runs,
      stored_events: stored,
      share_of_bare: share,
      target: `median ≥ ${TARGET} of bare req/s at ${JUDGED} connections`,
      pass: share >= TARGET,
      load_1m: load,
    };
  } finally {
    await server.stop();
    await store.close();
    await drop();
  }
}

const reports: DialectReport[] = [];
for (const d of DIALECTS) {
  process.stderr.write(`intake benchmark on ${d}…\n`);
  reports.push(await benchDialect(d));
}
const md = [
  '# Intake benchmark',
  '',
  `Signed POST /api/protocol-events, every request a distinct first delivery (HMAC verified on the raw body, envelope and record checked, row inserted and committed before the answer), at ${CONNECTIONS.join(' and ')} connections, ${DURATION} s each after a 1 s warm-up, \`paywatch serve\` in its own process on loopback, beside a bare Fastify POST route returning a body of the receipt's size, measured just before at the same concurrency. The target is judged on the median of ${ROUNDS} pairs at ${JUDGED} connections: with fewer, each delivery's durable commit bounds the rate and the server sits partly idle (docs/decisions.md). Run: \`node bin/run-ts.js bench/intake.ts\`. Measured ${new Date().toISOString()}.`,
  '',
  ...reports.flatMap((r) => [
    `## ${r.dialect}`,
    '',
    '| connections | round | case | req/s | share of bare | p50 ms | p99 ms | non-2xx | errors |',
    '|---:|---:|---|---:|---:|---:|---:|---:|---:|',
    ...r.runs.flatMap((p) =>
      [p.bare, p.intake].map(
        (x) =>
          `| ${p.connections} | ${p.round} | ${x.name.replace(/, \d+ connections$/, '')} | ${x.req_per_s} | ${(x.req_per_s / p.bare.req_per_s).toFixed(2)} | ${x.p50_ms} | ${x.p99_ms} | ${x.non2xx} | ${x.errors} |`,
      ),
    ),
    '',
    `Median share of bare at ${JUDGED} connections: ${r.share_of_bare} (target ${r.target}): ${r.pass ? 'pass' : 'FAIL'}. Rows stored: ${r.stored_events}. Machine load (1 min) ${r.load_1m[0]} before, ${r.load_1m[1]} after.`,
    '',
  ]),
].join('\n');
writeResults('intake', { measured_at: new Date().toISOString(), connections: CONNECTIONS, duration_s: DURATION, reports }, md);
process.stdout.write(md);
process.exit(0);
