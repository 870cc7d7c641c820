/**
 * The web's conventions on the public listener, over a real socket on 127.0.0.1 (Node's fetch as the client):
 * CORS for any origin on public reads and the MCP endpoint, none on the private intake and operator routes
 * (preflight included); br and gzip compression by Accept-Encoding with one weak ETag per answer and 304 for any
 * encoding; the CSV export compressed while it streams; X-Request-Id honoured when sane, generated otherwise,
 * echoed back.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeBlocks } from '../helpers/observations.js';
import { apiFixture, type ApiFixture } from './helpers.js';

/** A raw GET (Node's fetch would decode the body and hide Content-Encoding): status, headers and body bytes. */
function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
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
    const pre = await get(port, '/api/mcp', { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, mcp-protocol-version' }, 'OPTIONS');
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(String(pre.headers['access-control-allow-headers'])).toMatch(/Mcp-Session-Id/);
    expect(String(pre.headers['access-control-allow-headers'])).toMatch(/Mcp-Protocol-Version/);
    expect(String(pre.headers['access-control-allow-methods'])).toMatch(/POST/);
  });

  it('answers no CORS on the private intake and operator routes, preflight included', async () => {
    for (const path of ['/api/protocol-events', '/api/intelligence/outcomes', '/api/operator/events', '/api/operator/costs?period=month']) {
      const pre = await get(port, path, { origin: 'https://elsewhere.example', 'access-control-request-method': path.includes('operator') ? 'GET' : 'POST' }, 'OPTIONS');
      expect(pre.headers['access-control-allow-origin'], path).toBeUndefined();
      expect(pre.status, path).not.toBe(204);
      expect(Object.keys(JSON.parse(pre.body.toString())), path).toEqual(['error']);
    }
    const op = await get(port, '/api/operator/events', { origin: 'https://elsewhere.example' });
    expect(op.status).toBe(401);
    expect(op.headers['access-control-allow-origin']).toBeUndefined();
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
    expect((await get(port, '/api/transactions?limit=100', { 'accept-encoding': 'br;q=0.1, gzip;q=0.9' })).headers['content-encoding']).toBe('gzip');
    expect((await get(port, '/api/transactions?limit=100', { 'accept-encoding': 'identity' })).headers['content-encoding']).toBeUndefined();
    expect(String(br.headers.vary)).toMatch(/accept-encoding/i);
    for (const enc of ['identity', 'gzip', 'br']) {
      const again = await get(port, '/api/transactions?limit=100', { 'accept-encoding': enc, 'if-none-match': String(plain.headers.etag) });
      expect(again.status, enc).toBe(304);
      expect(again.body.length, enc).toBe(0);
    }
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
