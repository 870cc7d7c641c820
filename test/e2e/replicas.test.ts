/**
 * The deployment of docs/deploy.md on this machine, every part real: a throwaway PostgreSQL server
 * (test/helpers/pg-cluster.ts, Debian's PostgreSQL tools), a Redis server of the test's own
 * (test/helpers/redis-server.ts), two `paywatch serve` replicas and two `paywatch verify` processes sharing both,
 * and HAProxy (Debian's package, installed by .ci/run) in front of the replicas with the configuration of
 * examples/deploy/haproxy.mjs. It shows that:
 * - a client over its limit through either replica gets 429 with Retry-After, and the replicas together allow
 *   the configured limit once (±1), not once each;
 * - with Redis killed the replicas keep answering (limits per process, /readyz says so), and share again when
 *   it is back;
 * - 200 concurrent deliveries of one intake event through both replicas store it once;
 * - a free key at 990 of 1,000 hit by 50 parallel checks split across both verify processes gets exactly 10;
 * - while the PostgreSQL server restarts under load (pg_ctl restart -m fast, as pg_ctlcluster restart does),
 *   no answer is a 5xx other than 503 with Retry-After, and no intake delivery is lost or duplicated.
 * The collector's side of a primary restart (it resumes, nothing lost or duplicated) is in read-replica.test.ts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { haproxyConfig } from '../../examples/deploy/haproxy.mjs';
import { freePort } from '../../src/chain/anvil.js';
import { startBadServers, type BadServers } from '../helpers/bad-servers.js';
import { KeyVault } from '../../src/intake/keys.js';
import { issueSender } from '../../src/intake/operator.js';
import { MasterSecret } from '../../src/secrets/index.js';
import { openStore, type Store } from '../../src/store/db.js';
import { setUsage, usageCounter } from '../../src/store/trust/index.js';
import { issueApiKey } from '../../src/trust/keys.js';
import { utcMonth } from '../../src/trust/metering.js';
import { createPgPair, type PgPair } from '../helpers/pg-cluster.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { SECRET, deliver, envelope } from '../intake/helpers.js';
import { startCli } from './cli.js';

const HAPROXY = spawnSync('sh', ['-c', 'command -v haproxy']).stdout.toString().trim();
const LIMIT = 20;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

let pair: PgPair;
let redis: RedisServer;
let bad: BadServers;
let dbUrl: string;
let store: Store;
let proxy: ChildProcess;
let proxyPort: number;
const dir = mkdtempSync(join(tmpdir(), 'paywatch-replicas-'));
const procs: ReturnType<typeof startCli>[] = [];
/** The two `serve` replicas: base URL and metrics URL. */
const replicas: { url: string; metrics: string }[] = [];
/** The two `verify` processes' base URLs. */
const verifiers: string[] = [];

/**
 * Starts `paywatch` with the arguments `start` builds from `count` free ports, and waits until GET on the URL it
 * names answers 200. A port another test's process took between freePort and the child's listen (EADDRINUSE: the
 * test files run in parallel) is picked again, at most 3 times.
 * @returns the ports the process listens on
 */
async function startReady(
  count: number,
  start: (ports: number[]) => { args: string[]; ready: string },
  env: Record<string, string>,
): Promise<number[]> {
  for (let attempt = 1; ; attempt++) {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) ports.push(await freePort());
    const { args, ready } = start(ports);
    const p = startCli(args, { PAYWATCH_SECRET: SECRET, PAYWATCH_REDIS_URL: redis.url, ...env });
    procs.push(p);
    let exited: string | null = null;
    for (let i = 0; i < 300 && exited === null; i++) {
      if (p.child.exitCode !== null) exited = (await p.done).stderr;
      else if (
        // A time limit: the port's other holder may accept and never answer.
        await fetch(ready, { signal: AbortSignal.timeout(1000) }).then(
          (r) => r.ok,
          () => false,
        )
      )
        return ports;
      else await pause(100);
    }
    if (exited === null) throw new Error(`paywatch ${args[0]} did not become ready`);
    if (!exited.includes('EADDRINUSE') || attempt === 3) throw new Error(`paywatch ${args[0]} exited: ${exited}`);
  }
}

/** One request through `port` from the loopback address `from`: status and Retry-After. */
function hit(port: number, path: string, from: string): Promise<{ status: number; retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, localAddress: from, headers: { connection: 'close' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] as string | undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** paywatch_http_requests_total of one replica for GET /api/status with `status`. */
async function statusRequests(metrics: string, status: string): Promise<number> {
  const families = parsePrometheusTextFormat(await (await fetch(`${metrics}/metrics`)).text());
  const m = families
    .find((f) => f.name === 'paywatch_http_requests_total')
    ?.metrics.find((s) => s.labels?.route === '/api/status' && s.labels?.status === status && s.labels?.listener === 'api');
  return Number(m?.value ?? 0);
}

const readyLimits = async (base: string) =>
  ((await (await fetch(`${base}/readyz`)).json()) as { limits: { shared: boolean; store: string } }).limits;

beforeAll(async () => {
  if (!HAPROXY) throw new Error('haproxy is not installed (apt-get install haproxy; .ci/run installs it)');
  [pair, redis, bad] = await Promise.all([createPgPair(), startRedis(), startBadServers()]);
  dbUrl = pair.primary.url(await pair.createDb('pw_replicas'));
  store = await openStore(dbUrl); // migrates once, before the replicas start
  for (let i = 0; i < 2; i++) {
    const [port, metricsPort] = await startReady(
      2,
      ([port, metricsPort]) => ({
        args: ['serve', '--db', dbUrl, '--port', String(port), '--trust-proxy', '127.0.0.1', '--metrics-port', String(metricsPort)],
        ready: `http://127.0.0.1:${port}/readyz`,
      }),
      { PAYWATCH_RATE_LIMIT: String(LIMIT), PAYWATCH_INTAKE_RATE_LIMIT: '100000' },
    );
    replicas.push({ url: `http://127.0.0.1:${port}`, metrics: `http://127.0.0.1:${metricsPort}` });
    const [verifyPort] = await startReady(
      1,
      ([verifyPort]) => ({
        args: ['verify', '--db', dbUrl, '--verify-port', String(verifyPort)],
        ready: `http://127.0.0.1:${verifyPort}/readyz`,
      }),
      // Slots above the 50 parallel checks of the metering case, so the quota (not the per-client cap) answers.
      {
        PAYWATCH_VERIFY_ALLOW_LOOPBACK: '1',
        PAYWATCH_RATE_LIMIT: '100000',
        PAYWATCH_VERIFY_MAX_IN_FLIGHT: '100',
        PAYWATCH_VERIFY_MAX_IN_FLIGHT_PER_CLIENT: '60',
      },
    );
    verifiers.push(`http://127.0.0.1:${verifyPort}`);
  }
  proxyPort = await freePort();
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(
    cfg,
    haproxyConfig(
      proxyPort,
      replicas.map((r) => Number(new URL(r.url).port)),
    ),
  );
  proxy = spawn(HAPROXY, ['-db', '-f', cfg], { stdio: 'ignore' });
  for (
    let i = 0;
    !(await hit(proxyPort, '/healthz', '127.0.0.1').then(
      () => true,
      () => false,
    ));
    i++
  ) {
    if (i > 100) throw new Error('haproxy did not start');
    await pause(50);
  }
}, 240_000);

afterAll(async () => {
  proxy?.kill('SIGKILL');
  for (const p of procs) p.child.kill('SIGTERM');
  await Promise.all(procs.map((p) => p.done));
  await store?.close();
  await bad?.stop();
  await redis?.stop();
  pair?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('two replicas behind HAProxy, one PostgreSQL, one Redis', () => {
  it('allow a client the configured limit once between them; over it, 429 with Retry-After through either replica', async () => {
    const before = await Promise.all(replicas.map((r) => statusRequests(r.metrics, '200')));
    const answers = [];
    for (let i = 0; i < 3 * LIMIT; i++) answers.push(await hit(proxyPort, '/api/status', '127.0.0.2'));
    const allowed = answers.filter((a) => a.status === 200).length;
    expect(allowed).toBeGreaterThanOrEqual(LIMIT - 1);
    expect(allowed).toBeLessThanOrEqual(LIMIT + 1);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(answers.length - allowed);
    for (const a of limited) expect(Number(a.retryAfter)).toBeGreaterThan(0);
    // Both replicas answered some of them (round robin), so neither alone enforced the limit.
    const after = await Promise.all(replicas.map((r) => statusRequests(r.metrics, '200')));
    expect(after[0]! - before[0]!).toBeGreaterThan(0);
    expect(after[1]! - before[1]!).toBeGreaterThan(0);
    for (const r of replicas) expect(await readyLimits(r.url)).toMatchObject({ store: 'redis', shared: true });
  });

  it('keep answering with Redis down (per-process limits, shown in /readyz) and share the limit again once it is back', async () => {
    await redis.stop();
    for (const r of replicas) await expect.poll(async () => (await readyLimits(r.url)).shared, { timeout: 5000 }).toBe(false);
    const down = [];
    for (let i = 0; i < 3 * LIMIT; i++) down.push(await hit(proxyPort, '/api/status', '127.0.0.3'));
    expect(down.every((a) => a.status === 200 || a.status === 429)).toBe(true);
    // Each replica counts alone meanwhile: up to twice the limit gets through.
    expect(down.filter((a) => a.status === 200).length).toBeGreaterThan(LIMIT + 1);

    await redis.start();
    for (const r of replicas) await expect.poll(async () => (await readyLimits(r.url)).shared, { timeout: 10_000 }).toBe(true);
    const again = [];
    for (let i = 0; i < 2 * LIMIT; i++) again.push(await hit(proxyPort, '/api/status', '127.0.0.4'));
    const allowed = again.filter((a) => a.status === 200).length;
    expect(allowed).toBeGreaterThanOrEqual(LIMIT - 1);
    expect(allowed).toBeLessThanOrEqual(LIMIT + 1);
  }, 60_000);

  it('store one intake event once for 200 concurrent deliveries through both replicas', async () => {
    const conn = await issueSender(store, new KeyVault(MasterSecret.parse(SECRET)), 'connection', 'replicas', 'mcp', 'test');
    const body = envelope('mcp', 'across-replicas-1');
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => deliver(replicas[i % 2]!.url, { senderId: conn.id, key: conn.key, body })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(199);
    const rows = await store.db
      .selectFrom('intake_protocol_events')
      .select(['event_id', 'received_at', 'body_sha256'])
      .where('connection_id', '=', conn.id)
      .execute();
    expect(rows).toHaveLength(1);
    for (const r of results)
      expect(r.body).toEqual({ event_id: 'across-replicas-1', received_at: rows[0]!.received_at, body_sha256: rows[0]!.body_sha256 });
  }, 60_000);

  it('meter a free key at 990 of 1,000 exactly across two verify processes: 50 parallel checks, 10 answers', async () => {
    const { key, row } = await issueApiKey(store, 'free', 'operator');
    const month = utcMonth();
    await setUsage(store, row.id, month, 990);
    const check = (base: string) =>
      fetch(`${base}/v1/check`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ url: `${bad.origin}/free` }),
      }).then(async (r) => ({ status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.text() }));
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => check(verifiers[i % 2]!)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
    for (const r of results.filter((x) => x.status === 429)) expect(Number(r.retryAfter)).toBeGreaterThan(0);
    expect(await usageCounter(store, row.id, month)).toMatchObject({ used: 1000, reserved: 0 });
  }, 60_000);

  it('answer only 2xx, 429 or 503 with Retry-After while PostgreSQL restarts under load, and lose or duplicate no intake delivery', async () => {
    const conn = await issueSender(store, new KeyVault(MasterSecret.parse(SECRET)), 'connection', 'restart', 'mcp', 'test');
    const answers: { status: number; retryAfter: string | undefined; path: string }[] = [];
    let stop = false;
    let n = 0;
    const paths = ['/api/status', '/api/transactions?limit=5', '/api/coverage', '/api/providers', '/readyz'];
    const reader = async (w: number) => {
      while (!stop) {
        const i = n++;
        const path = paths[i % paths.length]!;
        // Many client addresses, so the load is not all 429.
        const a = await hit(proxyPort, path, `127.0.${10 + w}.${1 + (i % 250)}`);
        answers.push({ ...a, path });
      }
    };
    // Each event is delivered until it is acknowledged, as a producer retries (on 503, after a short wait).
    const EVENTS = 120;
    const acked = new Map<string, Record<string, unknown>>();
    const deliveries: number[] = [];
    const producer = async (w: number) => {
      for (let e = w; e < EVENTS; e += 4) {
        const body = envelope('mcp', `restart-${e}`);
        for (let attempt = 0; ; attempt++) {
          if (attempt > 200) throw new Error(`restart-${e} was never acknowledged`);
          const r = await deliver(replicas[(e + attempt) % 2]!.url, { senderId: conn.id, key: conn.key, body });
          deliveries.push(r.status);
          if (r.status === 201 || r.status === 200) {
            acked.set(`restart-${e}`, r.body);
            break;
          }
          expect(r.status, JSON.stringify(r.body)).toBe(503);
          expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
          await pause(100);
        }
        await pause(20);
      }
    };
    const readers = Array.from({ length: 4 }, (_, w) => reader(w));
    const producers = Array.from({ length: 4 }, (_, w) => producer(w));
    await pause(500);
    const beforeRestart = answers.length;
    await pair.primary.restart();
    const afterRestart = answers.length;
    await Promise.all(producers);
    await pause(500);
    stop = true;
    await Promise.all(readers);

    expect(beforeRestart).toBeGreaterThan(0);
    expect(answers.length).toBeGreaterThan(afterRestart);
    const bad = answers.filter((a) => ![200, 304, 429, 503].includes(a.status) || (a.status === 503 && !(Number(a.retryAfter) > 0)));
    expect(bad, JSON.stringify(bad.slice(0, 5))).toEqual([]);
    expect(deliveries.every((s) => [200, 201, 503].includes(s))).toBe(true);

    const rows = await store.db
      .selectFrom('intake_protocol_events')
      .select(['event_id', 'received_at', 'body_sha256'])
      .where('connection_id', '=', conn.id)
      .execute();
    expect(rows).toHaveLength(EVENTS);
    expect(new Set(rows.map((r) => r.event_id)).size).toBe(EVENTS);
    for (const r of rows)
      expect(acked.get(r.event_id)).toEqual({ event_id: r.event_id, received_at: r.received_at, body_sha256: r.body_sha256 });
    // The replicas are ready again.
    for (const r of replicas) await expect.poll(async () => (await fetch(`${r.url}/readyz`)).status, { timeout: 10_000 }).toBe(200);
    console.log(
      `primary restart under load: ${answers.length} reads (${answers.filter((a) => a.status === 503).length} × 503), ${deliveries.length} deliveries (${deliveries.filter((s) => s === 503).length} × 503) for ${EVENTS} events`,
    );
  }, 120_000);
});
