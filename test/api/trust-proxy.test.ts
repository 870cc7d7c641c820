/**
 * Behind a real reverse proxy (HAProxy, from Debian's package; .ci/run installs it) with `option forwardfor`:
 * with PAYWATCH_TRUST_PROXY naming the proxy, rate limits and the trust check's free-key limit key on each real
 * client (clients bind distinct loopback addresses, 127.0.0.2 and 127.0.0.3); without it, every client shares the
 * proxy's bucket; and a client cannot pick its bucket by sending its own X-Forwarded-For, through the proxy or
 * around it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { freePort } from '../../src/chain/anvil.js';
import { loadConfig } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/db.js';
import { buildVerifyApp } from '../../src/trust/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

const HAPROXY = spawnSync('sh', ['-c', 'command -v haproxy']).stdout.toString().trim();
const dir = mkdtempSync(join(tmpdir(), 'paywatch-proxy-'));
let db: TestDb;
let store: Store;
const running: { proxy: ChildProcess; app: FastifyInstance }[] = [];

beforeAll(async () => {
  db = await createTestDb('sqlite');
  store = await openStore(db.url);
});
afterAll(async () => {
  for (const r of running) {
    r.proxy.kill('SIGKILL');
    await r.app.close();
  }
  await store?.close();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** A request from `from` (a loopback source address) to `port`: its status. */
function hit(port: number, path: string, from: string, opts: { method?: string; headers?: Record<string, string> } = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: opts.method ?? 'GET',
        localAddress: from,
        headers: { connection: 'close', ...opts.headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Starts `listener` with `trustProxy` and HAProxy in front of it; @returns the proxy's and the app's ports */
async function behindHaproxy(listener: 'api' | 'verify', trustProxy: string): Promise<{ proxy: number; direct: number }> {
  const config = loadConfig({ db: db.url, rateLimitPerMinute: 3, verifyKeysPerHour: 1, trustProxy }, {});
  const ctx = { store, config, components: new Map() };
  const app = listener === 'api' ? await buildApp(ctx, { logger: false }) : await buildVerifyApp(ctx, { logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const direct = (app.server.address() as AddressInfo).port;
  const port = await freePort();
  const cfg = join(dir, `${listener}-${trustProxy}.cfg`);
  writeFileSync(
    cfg,
    [
      'defaults',
      '  mode http',
      '  timeout connect 5s',
      '  timeout client 30s',
      '  timeout server 30s',
      'frontend f',
      `  bind 127.0.0.1:${port}`,
      '  option forwardfor',
      '  default_backend b',
      'backend b',
      `  server s 127.0.0.1:${direct}`,
      '',
    ].join('\n'),
  );
  const proxy = spawn(HAPROXY, ['-db', '-f', cfg], { stdio: 'ignore' });
  running.push({ proxy, app });
  for (let i = 0; i < 100; i++) {
    if (
      await hit(port, '/healthz', '127.0.0.1').then(
        () => true,
        () => false,
      )
    )
      return { proxy: port, direct };
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('haproxy did not start');
}

/** Statuses of `n` GET /api/status from `from` through `port`. */
const statuses = async (port: number, from: string, n: number, headers: Record<string, string> = {}) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await hit(port, '/api/status', from, { headers }));
  return out;
};

// Skipped only when the haproxy binary is absent, saying so (the runner does not list skipped names by default).
if (!HAPROXY)
  console.warn('trust-proxy: the HAProxy tests are SKIPPED: haproxy is not installed (apt-get install -y haproxy; .ci/run does)');
describe.skipIf(!HAPROXY)(
  HAPROXY ? 'behind HAProxy' : 'behind HAProxy: SKIPPED, haproxy is not installed (apt-get install -y haproxy)',
  () => {
    it('trusting the proxy, each client has its own rate-limit bucket, whatever X-Forwarded-For it sends', async () => {
      const { proxy, direct } = await behindHaproxy('api', '127.0.0.1');
      expect(await statuses(proxy, '127.0.0.2', 4)).toEqual([200, 200, 200, 429]);
      expect(await statuses(proxy, '127.0.0.3', 1)).toEqual([200]);
      // A forged X-Forwarded-For is kept by HAProxy but the proxy appends the real address, which is what counts.
      expect(await statuses(proxy, '127.0.0.2', 2, { 'x-forwarded-for': '203.0.113.9' })).toEqual([429, 429]);
      // Around the proxy, 127.0.0.4 is not a trusted proxy: its X-Forwarded-For is ignored.
      expect(await statuses(direct, '127.0.0.4', 4, { 'x-forwarded-for': '203.0.113.10' })).toEqual([200, 200, 200, 429]);
      expect(await statuses(direct, '127.0.0.4', 1, { 'x-forwarded-for': '203.0.113.11' })).toEqual([429]);
    });

    it('not trusting it (the default), every client behind the proxy shares one bucket, and X-Forwarded-For is ignored', async () => {
      const { proxy, direct } = await behindHaproxy('api', 'false');
      expect(await statuses(proxy, '127.0.0.2', 3)).toEqual([200, 200, 200]);
      expect(await statuses(proxy, '127.0.0.3', 1)).toEqual([429]);
      // A client forging X-Forwarded-For through the untrusted proxy still lands in the proxy's bucket.
      expect(await statuses(proxy, '127.0.0.3', 1, { 'x-forwarded-for': '203.0.113.20' })).toEqual([429]);
      // Straight to the listener, a fresh forged address per request does not buy a fresh bucket.
      const forged = [];
      for (let i = 0; i < 4; i++) forged.push(...(await statuses(direct, '127.0.0.5', 1, { 'x-forwarded-for': `203.0.113.${30 + i}` })));
      expect(forged).toEqual([200, 200, 200, 429]);
    });

    it('trusting one hop, the free-key limit of the trust check is per real client', async () => {
      const { proxy } = await behindHaproxy('verify', '1');
      const key = (from: string) => hit(proxy, '/v1/keys', from, { method: 'POST' });
      expect(await key('127.0.0.2')).toBe(201);
      expect(await key('127.0.0.2')).toBe(429);
      expect(await key('127.0.0.3')).toBe(201);
    });
  },
);

describe('PAYWATCH_TRUST_PROXY values', () => {
  it('takes off, a hop count or addresses and CIDRs, and refuses anything else with one line', () => {
    expect(loadConfig({}, {}).trustProxy).toBe(false);
    expect(loadConfig({}, { PAYWATCH_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({}, { PAYWATCH_TRUST_PROXY: '10.0.0.0/8, ::1' }).trustProxy).toEqual(['10.0.0.0/8', '::1']);
    for (const bad of ['true', 'proxy.example', '10.0.0.0/40', '1,2']) {
      expect(() => loadConfig({}, { PAYWATCH_TRUST_PROXY: bad }), bad).toThrow(/^invalid PAYWATCH_TRUST_PROXY: /);
    }
  });
});
