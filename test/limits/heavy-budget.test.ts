/**
 * The per-client budget of expensive requests. Over real sockets on 127.0.0.1: a client with its budget in flight
 * is refused with 429 + Retry-After while another address (127.0.0.2, also loopback) is served, and the budget
 * comes back when the held answer is done or its connection closes. On the real app (both dialects): metrics,
 * exports and filtered lists take from the budget, unfiltered lists do not.
 */
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeavyBudget } from '../../src/limits/heavy-budget.js';
import { installErrorHandling } from '../../src/http/errors.js';
import { DIALECTS } from '../helpers/db.js';
import { makeBlocks } from '../helpers/observations.js';
import { apiFixture, type ApiFixture } from '../api/helpers.js';

/** A GET from `from` (a loopback source address); resolves with the response head, the body left unread. */
function open(port: number, path: string, from: string): Promise<{ req: ClientRequest; res: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, localAddress: from, agent: false }, (res) => resolve({ req, res }));
    req.on('error', reject);
    req.end();
  });
}

async function get(
  port: number,
  path: string,
  from = '127.0.0.1',
): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  const { res } = await open(port, path, from);
  let body = '';
  for await (const chunk of res) body += chunk;
  return { status: res.statusCode!, headers: res.headers, body };
}

describe('HeavyBudget over real sockets', () => {
  let app: FastifyInstance;
  let port: number;
  const budget = new HeavyBudget(2);
  let release: () => void = () => {};
  let gate = new Promise<void>((r) => (release = r));
  beforeAll(async () => {
    app = Fastify();
    installErrorHandling(app);
    app.get('/slow', { preHandler: budget.hook() }, async () => {
      await gate;
      return { ok: true };
    });
    app.get('/cheap', { preHandler: budget.hook(() => false) }, async () => ({ ok: true }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(async () => app?.close());

  it('lets `max` through per client, refuses the next with 429 + Retry-After, and serves another address', async () => {
    const first = [get(port, '/slow'), get(port, '/slow')];
    for (let i = 0; i < 100 && budget.held('127.0.0.1') < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(budget.held('127.0.0.1')).toBe(2);
    const third = await get(port, '/slow');
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toBe('1');
    expect(JSON.parse(third.body).error).toMatch(
      /at most 2 metrics, export or filtered-list requests run at once per client; retry after 1 s/,
    );
    expect((await get(port, '/cheap')).status).toBe(200);
    const other = get(port, '/slow', '127.0.0.2');
    for (let i = 0; i < 100 && budget.held('127.0.0.2') < 1; i++) await new Promise((r) => setTimeout(r, 10));
    release();
    expect((await other).status).toBe(200);
    expect((await Promise.all(first)).map((r) => r.status)).toEqual([200, 200]);
    expect(budget.held('127.0.0.1')).toBe(0);
  });

  it('gives the budget back when the client goes away before the answer', async () => {
    gate = new Promise<void>((r) => (release = r));
    const held = await new Promise<ClientRequest>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/slow', agent: false });
      req.on('error', () => {});
      req.end();
      setTimeout(() => resolve(req), 50);
    });
    for (let i = 0; i < 100 && budget.held('127.0.0.1') < 1; i++) await new Promise((r) => setTimeout(r, 10));
    expect(budget.held('127.0.0.1')).toBe(1);
    held.destroy();
    for (let i = 0; i < 100 && budget.held('127.0.0.1') > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(budget.held('127.0.0.1')).toBe(0);
    release();
  });
});

describe.each(DIALECTS)('expensive chain requests per client on %s', (dialect) => {
  let fx: ApiFixture;
  beforeAll(async () => {
    fx = await apiFixture(dialect, makeBlocks({ count: 3000, seed: 31, maxTxPerBlock: 20 }), { heavyPerClient: 1 });
  }, 120_000);
  afterAll(async () => fx?.close());

  const burst = (paths: string[]) => Promise.all(paths.map((url) => fx.app.inject({ method: 'GET', url, remoteAddress: '127.0.0.1' })));

  it.each([
    ['metrics', (i: number) => `/api/metrics?since=${1_767_225_600 + i}`],
    ['filtered lists', (i: number) => `/api/transactions?execution=success&since=${1_767_225_600 + i}`],
    ['exports', (i: number) => `/api/export?since=${1_767_225_600 + i}`],
  ])('%s from one client beyond the budget get 429 with Retry-After', async (_what, path) => {
    const answers = await burst(Array.from({ length: 6 }, (_, i) => path(i)));
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses[0]).toBe(200);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    for (const a of answers.filter((x) => x.statusCode === 429)) {
      expect(a.headers['retry-after']).toBe('1');
      expect(a.json().error).toMatch(/at most 1 metrics, export or filtered-list requests/);
    }
  });

  it('does not budget unfiltered or time-only lists', async () => {
    const answers = await burst(Array.from({ length: 6 }, (_, i) => `/api/transactions?until=${1_767_226_600 + i}`));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(6).fill(200));
  });
});
