/**
 * Remembered MCP tool answers sent compressed without compressing them per call (src/mcp/jsonrpc.ts sendRemembered):
 * over a real listener, a client that takes deflate (Node's fetch, and so the SDK's client, asks for `gzip, deflate`)
 * gets a zlib stream that decodes byte for byte to the identity answer of its own id, with the identity answer's
 * ETag and 304 on If-None-Match; a client taking br gets the same JSON in brotli; the official SDK client reads it;
 * a client taking only gzip gets gzip.
 */
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postMcpRaw } from '../helpers/raw-mcp.js';
import { type SeededApp, startSeededApp } from '../helpers/seeded-app.js';

const post = postMcpRaw;

const callOf = (id: number | string, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('remembered MCP tool answers, deflate spliced with the id', () => {
  let seeded: SeededApp;
  beforeAll(async () => {
    seeded = await startSeededApp('sqlite');
  }, 120_000);
  afterAll(async () => {
    await seeded?.close();
  });

  it.each([
    ['search_providers', {}],
    ['search_transactions', { limit: 50 }],
    ['get_service_offers', {}],
  ])('%s: decodes to the identity answer of each id, same ETag, 304 on If-None-Match', async (name, args) => {
    for (const id of [1, 2, 'an-id', 9_007_199_254_740_991]) {
      const plain = await post(seeded.base, callOf(id, name, args), { 'accept-encoding': 'identity' });
      const zipped = await post(seeded.base, callOf(id, name, args), { 'accept-encoding': 'gzip, deflate' });
      expect(plain.status).toBe(200);
      expect(zipped.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(zipped.headers['content-encoding']).toBe('deflate');
      expect(zipped.body.length).toBeLessThan(plain.body.length / 3);
      expect(inflateSync(zipped.body).toString('utf8')).toBe(plain.body.toString('utf8'));
      expect(JSON.parse(plain.body.toString('utf8')).id).toBe(id);
      expect(zipped.headers.etag).toBe(plain.headers.etag);
      expect(String(zipped.headers.vary)).toMatch(/accept-encoding/i);
      const cached = await post(seeded.base, callOf(id, name, args), {
        'accept-encoding': 'gzip, deflate',
        'if-none-match': String(zipped.headers.etag),
      });
      expect(cached.status).toBe(304);
    }
  });

  it.each([
    ['search_providers', {}],
    ['search_transactions', { limit: 50 }],
  ])('%s: br decodes to the same JSON as the identity answer of each id, same ETag, 304 on If-None-Match', async (name, args) => {
    for (const id of [1, 'an-id']) {
      const plain = await post(seeded.base, callOf(id, name, args), { 'accept-encoding': 'identity' });
      const br = await post(seeded.base, callOf(id, name, args), { 'accept-encoding': 'br, gzip, deflate' });
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.body.length).toBeLessThan(plain.body.length / 5);
      expect(JSON.parse(brotliDecompressSync(br.body).toString('utf8'))).toEqual(JSON.parse(plain.body.toString('utf8')));
      expect(br.headers.etag).toBe(plain.headers.etag);
      const cached = await post(seeded.base, callOf(id, name, args), { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) });
      expect(cached.status).toBe(304);
    }
  });

  it('answers gzip to a client that does not take deflate, and identity to one that refuses it', async () => {
    const plain = await post(seeded.base, callOf(3, 'search_providers'), {});
    const gz = await post(seeded.base, callOf(3, 'search_providers'), { 'accept-encoding': 'gzip, deflate;q=0' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString('utf8')).toBe(plain.body.toString('utf8'));
    const none = await post(seeded.base, callOf(3, 'search_providers'), { 'accept-encoding': 'identity, *;q=0' });
    expect(none.headers['content-encoding']).toBeUndefined();
  });

  it('a tool error and a batch are answered as before (nothing remembered to splice)', async () => {
    const error = await post(seeded.base, callOf(4, 'search_providers', { limit: 0 }), { 'accept-encoding': 'deflate' });
    expect(error.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(error.body.toString('utf8')).result.isError).toBe(true);
    const batch = await post(seeded.base, [callOf(5, 'search_providers'), callOf(6, 'get_status')], { 'accept-encoding': 'deflate' });
    expect(batch.headers['content-encoding']).not.toBe('deflate');
  });

  it('each id has its own ETag (1 and "1" too), one per answer whatever the encoding', async () => {
    const tags = new Set<string>();
    for (const id of [1, '1', 2, 'a"b', -7]) {
      const plain = await post(seeded.base, callOf(id, 'search_providers'), {});
      const again = await post(seeded.base, callOf(id, 'search_providers'), { 'accept-encoding': 'br' });
      expect(JSON.parse(plain.body.toString('utf8')).id).toBe(id);
      expect(String(plain.headers.etag)).toMatch(/^W\/"[A-Za-z0-9+/=.-]+"$/);
      expect(again.headers.etag).toBe(plain.headers.etag);
      tags.add(String(plain.headers.etag));
    }
    expect(tags.size).toBe(5);
  });

  it('a call without arguments answers the default page after calls with arguments', async () => {
    const rowsOf = async (args: Record<string, unknown>) =>
      JSON.parse(
        JSON.parse((await post(seeded.base, callOf(7, 'search_transactions', args), {})).body.toString('utf8')).result.content[0].text,
      );
    const first = await rowsOf({});
    expect((await rowsOf({ limit: 2, offset: 1 })).limit).toBe(2);
    const again = await rowsOf({});
    expect(again.limit).toBe(first.limit);
    expect(again.offset).toBe(0);
    expect(again.rows.length).toBe(first.rows.length);
  });

  it('the official SDK client reads the spliced answers', async () => {
    const client = new Client({ name: 'spliced-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${seeded.base}/api/mcp`)));
    try {
      const twin = await (await fetch(`${seeded.base}/api/providers`)).json();
      for (let i = 0; i < 3; i++) {
        const r = await client.callTool({ name: 'search_providers', arguments: {} });
        expect(r.structuredContent).toEqual(twin);
        expect(JSON.parse((r.content as { text: string }[])[0].text)).toEqual(twin);
      }
    } finally {
      await client.close();
    }
  });
});
