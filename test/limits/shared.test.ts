/**
 * Per-client limits shared through a real Redis (test/helpers/redis-server.ts): two API apps on one store and one
 * Redis allow the configured limit between them, not twice it; a Redis killed mid-test leaves both apps answering
 * (limits counted per process, /readyz saying so, a warning logged once) and counting is shared again once it is
 * back; failed authentications count across apps; the Redis password never reaches /readyz or the log.
 */
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config.js';
import { FailedAuthLimiter } from '../../src/limits/failed-auth.js';
import { SharedLimits } from '../../src/limits/shared.js';
import { openStore, type Store } from '../../src/store/db.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

const PASSWORD = 'hunter2-not-for-logs';
const LIMIT = 10;
let db: TestDb;
let store: Store;
let redis: RedisServer;
const logLines: string[] = [];
const apps: FastifyInstance[] = [];
const limits: SharedLimits[] = [];

/** An API app counting in `redis`, its log lines captured. */
async function app(): Promise<{ app: FastifyInstance; limits: SharedLimits }> {
  const config = loadConfig({ db: db.url, rateLimitPerMinute: LIMIT, redis: redis.url, logLevel: 'info' }, {});
  const stream = new Writable({
    write: (chunk, _enc, done) => {
      logLines.push(chunk.toString());
      done();
    },
  });
  const { default: pino } = await import('pino');
  const log = pino({ level: 'info' }, stream);
  const l = await SharedLimits.connect(redis.url, log);
  const a = await buildApp({ store, config, limits: l, components: new Map(), log }, { logger: false });
  apps.push(a);
  limits.push(l);
  return { app: a, limits: l };
}

const status = async (a: FastifyInstance, from: string) =>
  (await a.inject({ method: 'GET', url: '/api/status', remoteAddress: from })).statusCode;
const readyLimits = async (a: FastifyInstance) => (await a.inject({ method: 'GET', url: '/readyz' })).json().limits;

async function until(check: () => Promise<boolean> | boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  db = await createTestDb('sqlite');
  store = await openStore(db.url);
  redis = await startRedis({ password: PASSWORD });
});
afterAll(async () => {
  for (const a of apps) await a.close();
  for (const l of limits) await l.close();
  await redis?.stop();
  await store?.close();
  await db?.drop();
});

describe('shared per-client limits', () => {
  let a: FastifyInstance;
  let b: FastifyInstance;
  let la: SharedLimits;

  beforeAll(async () => {
    ({ app: a, limits: la } = await app());
    ({ app: b } = await app());
    await until(() => la.usingRedis && limits[1]!.usingRedis, 5000, 'both apps connected to Redis');
  });

  it('two apps on one Redis allow the limit between them; the rest is 429 with Retry-After', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 30; i++) codes.push(await status(i % 2 ? a : b, '198.51.100.7'));
    expect(codes.filter((c) => c === 200)).toHaveLength(LIMIT);
    expect(codes.filter((c) => c === 429)).toHaveLength(30 - LIMIT);
    const limited = await a.inject({ method: 'GET', url: '/api/status', remoteAddress: '198.51.100.7' });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json().error).toMatch(/rate limited/);
    // Another client has its own bucket.
    expect(await status(b, '198.51.100.8')).toBe(200);
  });

  it('shows the shared store in /readyz without the password or the address', async () => {
    const l = await readyLimits(a);
    expect(l).toEqual({ store: 'redis', shared: true, error: null });
    const body = JSON.stringify(await (await a.inject({ method: 'GET', url: '/readyz' })).json());
    expect(body).not.toContain(PASSWORD);
    expect(body).not.toContain(String(redis.port));
  });

  it('a Redis that refuses the password (wrong or missing) is not shared, with the reason, in /readyz', async () => {
    for (const url of [redis.url.replace(encodeURIComponent(PASSWORD), 'wrong-password'), `redis://127.0.0.1:${redis.port}`]) {
      const config = loadConfig({ db: db.url, redis: url }, {});
      const l = await SharedLimits.connect(url);
      limits.push(l);
      const c = await buildApp({ store, config, limits: l, components: new Map() }, { logger: false });
      apps.push(c);
      await until(async () => (await readyLimits(c)).error?.includes('refused authentication') === true, 5000, `the refusal of ${url}`);
      // Held for a while: the server closing the connection afterwards does not hide the reason.
      await new Promise((r) => setTimeout(r, 500));
      const ready = await c.inject({ method: 'GET', url: '/readyz' });
      expect(ready.json().limits).toEqual({
        store: 'redis',
        shared: false,
        error: expect.stringMatching(/^Redis refused authentication \(/),
      });
      expect(ready.body).not.toContain(String(redis.port));
      expect(await status(c, '198.51.100.9')).toBe(200); // counted per process meanwhile
    }
  });

  it('counts failed authentications across processes', async () => {
    const one = new FailedAuthLimiter(3, 'API keys', { shared: la });
    const two = new FailedAuthLimiter(3, 'API keys', { shared: limits[1] });
    await one.fail('203.0.113.9');
    await two.fail('203.0.113.9');
    await one.check('203.0.113.9');
    await two.fail('203.0.113.9');
    await expect(one.check('203.0.113.9')).rejects.toMatchObject({ code: 'limit_exceeded', retryAfterSeconds: 60 });
    await expect(two.check('203.0.113.10')).resolves.toBeUndefined();
  });

  it('keeps answering while Redis is down (per-process limits, /readyz and the log say so) and shares again when it is back', async () => {
    await redis.stop();
    await until(async () => (await readyLimits(a)).shared === false, 5000, '/readyz to show the outage');
    const down = await a.inject({ method: 'GET', url: '/readyz' });
    expect(down.statusCode).toBe(200);
    expect(down.json()).toMatchObject({
      status: 'ready',
      limits: { store: 'redis', shared: false, error: expect.stringMatching(/Redis unavailable/) },
    });
    // A fresh client: each app now counts alone, so each allows the whole limit.
    const codes = { a: [] as number[], b: [] as number[] };
    for (let i = 0; i < LIMIT + 2; i++) {
      codes.a.push(await status(a, '198.51.100.20'));
      codes.b.push(await status(b, '198.51.100.20'));
    }
    for (const c of [codes.a, codes.b]) {
      expect(c.filter((s) => s === 200)).toHaveLength(LIMIT);
      expect(c.filter((s) => s === 429)).toHaveLength(2);
    }
    expect(logLines.filter((l) => l.includes('Redis unavailable')).length).toBeGreaterThanOrEqual(1);

    await redis.start();
    await until(
      async () => (await readyLimits(a)).shared === true && (await readyLimits(b)).shared === true,
      10_000,
      'both apps back on Redis',
    );
    const again: number[] = [];
    for (let i = 0; i < 2 * LIMIT; i++) again.push(await status(i % 2 ? a : b, '198.51.100.21'));
    expect(again.filter((c) => c === 200)).toHaveLength(LIMIT);
    expect(logLines.some((l) => l.includes('shared again'))).toBe(true);
  }, 30_000);

  it('never logs the Redis password', () => {
    expect(logLines.length).toBeGreaterThan(0);
    for (const l of logLines) expect(l).not.toContain(PASSWORD);
  });
});
