/**
 * Every failure is `{error}`, on both listeners built on src/http/fastify.ts (the public API and the trust check):
 * 405 with Allow for a wrong method on a known path, 501 for a method Node does not know, 414 for an over-long URL
 * or path parameter, 431 for oversized headers (answered by Node's parser, before Fastify), and a client that
 * leaves mid-request logged as a disconnect, not as a store outage; every answer's access log line carries its
 * request id (X-Request-Id honoured when sane, else generated, echoed). Real stores, real sockets on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { MAX_PARAM_LENGTH, MAX_URL_LENGTH } from '../../src/http/errors.js';
import { loadConfig } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/db.js';
import { buildVerifyApp } from '../../src/trust/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { apiFixture, type ApiFixture } from './helpers.js';
import { finishCollectRun, startCollectRun } from '../../src/store/intel/index.js';

/** Log lines of an app, as parsed pino records. */
function logSink(): { stream: Writable; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { stream, lines };
}

/** A parsed raw HTTP answer. */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends `text` as is over a new TCP connection and reads the answer until the server closes it. */
function rawRequest(port: number, text: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d) => (data += d));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, ...rest] = data.split('\r\n\r\n');
      const [statusLine, ...fields] = head.split('\r\n');
      const headers = Object.fromEntries(fields.map((f) => [f.slice(0, f.indexOf(':')).toLowerCase(), f.slice(f.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.end(text);
  });
}

const request = (method: string, target: string, extra = '') =>
  `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}Connection: close\r\n\r\n`;

describe.each(['api', 'trust'] as const)('every failure is {error} on the %s listener', (listener) => {
  let t: TestDb;
  let store: Store;
  let app: FastifyInstance;
  let port: number;
  const log = logSink();
  /** A GET path that exists on this listener, and the methods it takes. */
  // OPTIONS: CORS preflight is answered on every public path, and for the explorer's origin on the trust check's
  // key and check routes (src/http/cors.ts).
  const known = listener === 'api' ? { path: '/api/status', allow: 'GET, HEAD, OPTIONS' } : { path: '/v1/check', allow: 'OPTIONS, POST' };
  const wrong = listener === 'api' ? 'POST' : 'GET';
  beforeAll(async () => {
    t = await createTestDb('sqlite');
    store = await openStore(t.url);
    const ctx = { store, config: loadConfig({ db: t.url }, {}), components: new Map() };
    const logger = { level: 'debug', stream: log.stream };
    app = listener === 'api' ? await buildApp(ctx, { logger }) : await buildVerifyApp(ctx, { logger });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await t?.drop();
  });

  it('answers a wrong method on a known path 405 with Allow, and an unknown path 404', async () => {
    const r = await app.inject({ method: wrong, url: known.path });
    expect(r.statusCode).toBe(405);
    expect(r.headers.allow).toBe(known.allow);
    expect(r.json()).toEqual({ error: `method ${wrong} not allowed here; use ${known.allow}` });
    const propfind = await app.inject({ method: 'PROPFIND', url: `${known.path}?x=1` });
    expect(propfind.statusCode).toBe(405);
    expect(propfind.headers.allow).toBe(known.allow);
    const missing = await app.inject({ method: 'POST', url: '/nothing/here' });
    expect(missing.statusCode).toBe(404);
    expect(Object.keys(missing.json())).toEqual(['error']);
  });

  it('answers a method Node does not know 501 {error} (Node parser, real socket)', async () => {
    const r = await rawRequest(port, request('FROB', known.path));
    expect(r.status).toBe(501);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(r.body)).toEqual({ error: 'unknown HTTP method' });
  });

  it('answers oversized headers 431 {error} (Node parser, real socket)', async () => {
    const r = await rawRequest(port, request('GET', known.path, `X-Big: ${'a'.repeat(20_000)}\r\n`));
    expect(r.status).toBe(431);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(r.body)).toEqual({
      error: 'request header fields too large: the request line and headers may take at most 16384 bytes together',
    });
  });

  it(`answers a URL over ${MAX_URL_LENGTH} characters 414 {error}, below and above Node's header limit (real socket)`, async () => {
    for (const length of [MAX_URL_LENGTH + 10, 20_000]) {
      const r = await rawRequest(port, request('GET', `${known.path}?q=${'a'.repeat(length)}`));
      expect(r.status, String(length)).toBe(414);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(r.body)).toEqual({ error: `URL too long: at most ${MAX_URL_LENGTH} characters` });
    }
  });

  it('answers a path that is not valid percent-encoding 400 {error}', async () => {
    const r = await rawRequest(port, request('GET', '/api/transactions/%E0%A4%A'));
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toEqual({ error: 'invalid URL: the path is not valid percent-encoded UTF-8' });
  });

  it('echoes a sane X-Request-Id and logs the answer under it; an unsafe or over-long one is replaced, in the log too', async () => {
    const before = log.lines.length;
    const given = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': `trace-${listener}.1` } });
    expect(given.headers['x-request-id']).toBe(`trace-${listener}.1`);
    const long = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'x'.repeat(129) } });
    const unsafe = await app.inject({ method: 'GET', url: '/nothing', headers: { 'x-request-id': '"><script>' } });
    for (const r of [long, unsafe])
      expect(r.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const access = log.lines.slice(before).filter((l) => l.msg === 'request');
    expect(access.map((l) => [l.request_id, l.route, l.status])).toEqual([
      [`trace-${listener}.1`, '/healthz', 200],
      [long.headers['x-request-id'], '/healthz', 200],
      [unsafe.headers['x-request-id'], 'unmatched', 404],
    ]);
  });

  it('logs a client that leaves mid-body as a disconnect, not as a store outage', async () => {
    const path = listener === 'api' ? '/api/mcp' : '/v1/check';
    const before = log.lines.length;
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":`,
        );
        setTimeout(() => socket.resetAndDestroy(), 100);
      });
      socket.on('error', () => {});
      socket.on('close', () => resolve());
    });
    const msgs = () => log.lines.slice(before).map((l) => l.msg);
    for (let i = 0; i < 40 && !msgs().includes('client disconnected before the answer'); i++) await new Promise((r) => setTimeout(r, 25));
    expect(msgs()).toContain('client disconnected before the answer');
    expect(msgs()).not.toContain('store unavailable');
  });
});

describe('path parameters', () => {
  let f: ApiFixture;
  beforeAll(async () => {
    f = await apiFixture('sqlite', []);
    // A provider profile is looked up (404 when not listed) once a collection run has finished; before, it is 503.
    await finishCollectRun(f.store, await startCollectRun(f.store), { services: 0, snapshots: 0, changes: 0, error: null });
  });
  afterAll(async () => {
    await f?.close();
  });

  it(`answers a path parameter over ${MAX_PARAM_LENGTH} characters 414 {error}, and a long valid domain is looked up`, async () => {
    const long = await f.app.inject(`/api/providers/${'a'.repeat(MAX_PARAM_LENGTH + 1)}.example`);
    expect(long.statusCode).toBe(414);
    expect(long.json()).toEqual({ error: `path parameter too long: at most ${MAX_PARAM_LENGTH} characters` });
    // 250 characters: longer than Fastify's default limit of 100, within the domain rule (260).
    const domain = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.example`;
    const r = await f.app.inject(`/api/providers/${domain}`);
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual({ error: `provider ${domain} is not listed` });
  });
});
