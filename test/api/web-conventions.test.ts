/**
 * The web's conventions on the public listener, over a real socket on 127.0.0.1 (Node's fetch as the client):
 * CORS for any origin on public reads and the MCP endpoint (their errors and 429s included), none on the private
 * intake and operator routes (preflight included, every route their plugins register); br and gzip compression by Accept-Encoding with one weak ETag per answer and 304 for any
 * encoding; the CSV export compressed while it streams; X-Request-Id honoured when sane, generated otherwise,
 * echoed back.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { loadConfig } from '../../src/config.js';
import { buildVerifyApp } from '../../src/trust/app.js';
import { privateRoutePlugins } from '../../src/api/routes/index.js';
import { makeBlocks } from '../helpers/observations.js';
import { apiFixture, type ApiFixture } from './helpers.js';

/** A raw GET (Node's fetch would decode the body and hide Content-Encoding): status, headers and body bytes. */
function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('public listener conventions (sqlite, real socket)', () => {
  let f: ApiFixture;
  let port: number;
  beforeAll(async () => {
    f = await apiFixture('sqlite', makeBlocks({ count: 300, seed: 3 }), { rateLimitPerMinute: 100_000 });
    await f.app.listen({ host: '127.0.0.1', port: 0 });
    port = (f.app.server.address() as AddressInfo).port;
  }, 120_000);
  afterAll(async () => {
    await f?.close();
  });

  it('answers public reads and their preflight with CORS for any origin', async () => {
    const r = await get(port, '/api/transactions?limit=5', { origin: 'https://elsewhere.example' });
    expect(r.status).toBe(200);
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(String(r.headers['access-control-expose-headers'])).toMatch(/ETag/);
    const pre = await get(
      port,
      '/api/mcp',
      {
        origin: 'https://elsewhere.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, mcp-protocol-version',
      },
      'OPTIONS',
    );
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(String(pre.headers['access-control-allow-headers'])).toMatch(/Mcp-Session-Id/);
    expect(String(pre.headers['access-control-allow-headers'])).toMatch(/Mcp-Protocol-Version/);
    expect(String(pre.headers['access-control-allow-methods'])).toMatch(/POST/);
  });

  it('answers public errors, validators and preflight only for existing routes with CORS', async () => {
    const origin = { origin: 'https://elsewhere.example' };
    const bad = await get(port, '/api/transactions?limit=nope', origin);
    expect(bad.status).toBe(400);
    expect(bad.headers['access-control-allow-origin']).toBe('*');
    // Not /api/status: its lag_seconds moves every second, so two reads may straddle a change of ETag.
    const first = await get(port, '/api/coverage', origin);
    const again = await get(port, '/api/coverage', { ...origin, 'if-none-match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.headers['access-control-allow-origin']).toBe('*');
    // A preflight for a path that does not exist (or not under the method asked) grants nothing.
    const nowhere = await get(port, '/api/nothing', { ...origin, 'access-control-request-method': 'GET' }, 'OPTIONS');
    expect(nowhere.status).toBe(404);
    expect(nowhere.headers['access-control-allow-origin']).toBeUndefined();
    const wrong = await get(port, '/api/status', { ...origin, 'access-control-request-method': 'DELETE' }, 'OPTIONS');
    expect(wrong.status).toBe(405);
    expect(wrong.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers no CORS on any private intake or operator route, preflight included (405 with Allow)', async () => {
    // Every route the private plugins register, whatever they add later.
    const routes: { url: string; method: string }[] = [];
    const probe = Fastify();
    probe.setValidatorCompiler(validatorCompiler);
    probe.addHook('onRoute', (r) => {
      for (const method of [r.method].flat()) if (method !== 'HEAD') routes.push({ url: r.url, method });
    });
    for (const plugin of privateRoutePlugins)
      await probe.register(plugin, { store: f.store, config: loadConfig({ db: f.db.url }, {}), components: new Map() });
    await probe.ready();
    await probe.close();
    expect(routes.map((r) => r.url).sort()).toEqual([
      '/api/intelligence/outcomes',
      '/api/operator/costs',
      '/api/operator/events',
      '/api/operator/outcomes',
      '/api/protocol-events',
    ]);
    for (const { url, method } of routes) {
      const pre = await get(port, url, { origin: 'https://elsewhere.example', 'access-control-request-method': method }, 'OPTIONS');
      expect(pre.headers['access-control-allow-origin'], url).toBeUndefined();
      expect(pre.status, url).toBe(405);
      expect(String(pre.headers.allow), url).toContain(method);
      expect(Object.keys(JSON.parse(pre.body.toString())), url).toEqual(['error']);
      const real = await get(port, url, { origin: 'https://elsewhere.example' }, method);
      expect(real.status, url).toBeGreaterThanOrEqual(400);
      expect(real.headers['access-control-allow-origin'], url).toBeUndefined();
      expect(real.headers['access-control-expose-headers'], url).toBeUndefined();
    }
  });

  it('compresses JSON with br or gzip by Accept-Encoding, one weak ETag for every encoding, 304 for any of them', async () => {
    const plain = await get(port, '/api/transactions?limit=100');
    const gz = await get(port, '/api/transactions?limit=100', { 'accept-encoding': 'gzip' });
    const br = await get(port, '/api/transactions?limit=100', { 'accept-encoding': 'br, gzip' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(br.headers['content-encoding']).toBe('br');
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(gz.body.length).toBeLessThan(plain.body.length / 3);
    expect(String(gz.headers.vary)).toMatch(/accept-encoding/i);
    expect(plain.headers.etag).toMatch(/^W\/"/);
    expect(gz.headers.etag).toBe(plain.headers.etag);
    expect(br.headers.etag).toBe(plain.headers.etag);
    // A remembered page is compressed once: the same bytes again, and q-values are honoured.
    expect((await get(port, '/api/transactions?limit=100', { 'accept-encoding': 'gzip' })).body.equals(gz.body)).toBe(true);
    expect(
      (await get(port, '/api/transactions?limit=100', { 'accept-encoding': 'br;q=0.1, gzip;q=0.9' })).headers['content-encoding'],
    ).toBe('gzip');
    expect((await get(port, '/api/transactions?limit=100', { 'accept-encoding': 'identity' })).headers['content-encoding']).toBeUndefined();
    expect(String(br.headers.vary)).toMatch(/accept-encoding/i);
    // The identity answer varies by Accept-Encoding too, or a shared cache could hand it out as the only one.
    expect(String(plain.headers.vary)).toMatch(/accept-encoding/i);
    for (const enc of ['identity', 'gzip', 'br']) {
      const again = await get(port, '/api/transactions?limit=100', { 'accept-encoding': enc, 'if-none-match': String(plain.headers.etag) });
      expect(again.status, enc).toBe(304);
      expect(again.body.length, enc).toBe(0);
      expect(String(again.headers.vary), enc).toMatch(/accept-encoding/i);
    }
    // Answers that are not remembered (rendered on each request, compressed by @fastify/compress) too.
    const status = await get(port, '/api/status');
    expect(String(status.headers.vary)).toMatch(/accept-encoding/i);
    // The document too (generated once per process; stable ETag).
    const doc = await get(port, '/api/openapi.json', { 'accept-encoding': 'gzip' });
    expect(doc.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(doc.body).toString()).openapi).toBe('3.1.0');
  });

  it('compresses the CSV export as it streams', async () => {
    const plain = await get(port, '/api/export');
    const gz = await get(port, '/api/export', { 'accept-encoding': 'gzip' });
    expect(plain.status).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['transfer-encoding']).toBe('chunked');
    expect(gunzipSync(gz.body).toString()).toBe(plain.body.toString());
    for (const r of [plain, gz]) expect(String(r.headers.vary).match(/accept-encoding/gi)).toHaveLength(1);
  });

  it('echoes a sane X-Request-Id, and replaces an unsafe one with a generated id', async () => {
    const given = await get(port, '/api/status', { 'x-request-id': 'trace-42.abc' });
    expect(given.headers['x-request-id']).toBe('trace-42.abc');
    const generated = await get(port, '/api/status');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const unsafe = await get(port, '/api/status', { 'x-request-id': 'a"b<script>' });
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const long = await get(port, '/api/status', { 'x-request-id': 'x'.repeat(200) });
    expect(long.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('a rate-limited public answer is readable from another origin', () => {
  let f: ApiFixture;
  let port: number;
  beforeAll(async () => {
    f = await apiFixture('sqlite', [], { rateLimitPerMinute: 2 });
    await f.app.listen({ host: '127.0.0.1', port: 0 });
    port = (f.app.server.address() as AddressInfo).port;
  }, 120_000);
  afterAll(async () => {
    await f?.close();
  });

  it('sends CORS and exposes Retry-After on the 429', async () => {
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof get>> | undefined;
    for (let i = 0; i < 3; i++) {
      last = await get(port, '/api/status', { origin: 'https://elsewhere.example' });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(last!.headers['access-control-allow-origin']).toBe('*');
    expect(last!.headers['retry-after']).toMatch(/^\d+$/);
    expect(String(last!.headers['access-control-expose-headers'])).toMatch(/Retry-After/);
  });
});

describe('the trust-check listener compresses too (real socket)', () => {
  let f: ApiFixture;
  let verify: Awaited<ReturnType<typeof buildVerifyApp>>;
  let port: number;
  beforeAll(async () => {
    f = await apiFixture('sqlite', []);
    verify = await buildVerifyApp({ store: f.store, config: loadConfig({ db: f.db.url }, {}), components: new Map() }, { logger: false });
    await verify.listen({ host: '127.0.0.1', port: 0 });
    port = (verify.server.address() as AddressInfo).port;
  }, 120_000);
  afterAll(async () => {
    await verify?.close();
    await f?.close();
  });

  it('answers br or gzip by Accept-Encoding, identity otherwise, every one with Vary: Accept-Encoding', async () => {
    const plain = await get(port, '/v1/openapi.json');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    for (const [accept, encoding, inflate] of [
      ['gzip', 'gzip', gunzipSync],
      ['br, gzip', 'br', brotliDecompressSync],
    ] as const) {
      const r = await get(port, '/v1/openapi.json', { 'accept-encoding': accept });
      expect(r.headers['content-encoding'], accept).toBe(encoding);
      expect(inflate(r.body).equals(plain.body), accept).toBe(true);
      expect(r.body.length, accept).toBeLessThan(plain.body.length / 3);
      expect(String(r.headers.vary), accept).toMatch(/accept-encoding/i);
    }
    expect(String(plain.headers.vary)).toMatch(/accept-encoding/i);
    // No CORS on this listener: its keys belong in servers and agents, not pages.
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
  });
});
