/**
 * The prober is not a weapon (docs/intelligence.md, "Bounds"): a real MPP catalog on a loopback server lists
 * endpoints with GET, POST (with and without a declared payment), PUT, PATCH, DELETE and a garbage method, and a
 * 200 KB description. One collection pass, then the requests the server received: GET as listed, POST only to the
 * paid endpoint and with an empty body, never PUT/PATCH/DELETE; the garbage entry is refused with a visible
 * `directory_entry_invalid` note and never stored; the 200 KB description is stored cut, a lone surrogate as U+FFFD.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config.js';
import { collectOnce } from '../../src/intel/collect.js';
import { INTEL_LIMITS } from '../../src/intel/limits.js';
import { openStore, type Store } from '../../src/store/db.js';
import { createTestDb, DIALECTS, type TestDb } from '../helpers/db.js';

const PAYMENT = {
  intent: 'charge',
  method: 'tempo',
  currency: '0x20c0000000000000000000000000000000000000',
  decimals: 6,
  amount: '1000',
  recipient: '0x1111111111111111111111111111111111111111',
};
const GARBAGE = '<svg/onload=alert(1)> X';

interface Seen {
  method: string;
  path: string;
  body: number;
}

/** A catalog and its endpoints on one loopback server that records every request it receives. */
async function startVictim(): Promise<{ server: Server; base: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = 0;
    req.on('data', (c: Buffer) => {
      body += c.length;
    });
    req.on('end', () => {
      const path = req.url ?? '/';
      if (path === '/api/services') {
        const endpoints = [
          { method: 'GET', path: '/paid/get', payment: PAYMENT, description: 'd'.repeat(200 * 1024) },
          { method: 'HEAD', path: '/paid/head', description: 'half \ud800 a pair' },
          { method: 'post', path: '/paid/post', payment: PAYMENT },
          { method: 'POST', path: '/free/post' },
          { method: 'DELETE', path: '/victim/users/123', payment: PAYMENT },
          { method: 'PUT', path: '/victim/users/124', payment: PAYMENT },
          { method: 'PATCH', path: '/victim/users/125' },
          { method: GARBAGE, path: '/victim/garbage', payment: PAYMENT },
        ];
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ services: [{ id: 'v', serviceUrl: `http://127.0.0.1:${port()}`, endpoints }] }));
        return;
      }
      seen.push({ method: req.method ?? '', path, body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = () => (server.address() as AddressInfo).port;
  return { server, base: `http://127.0.0.1:${port()}`, seen };
}

describe.each(DIALECTS)('prober methods and directory text bounds (%s)', (dialect) => {
  let t: TestDb;
  let store: Store;
  let app: FastifyInstance;
  let victim: Awaited<ReturnType<typeof startVictim>>;

  beforeAll(async () => {
    t = await createTestDb(dialect);
    store = await openStore(t.url);
    app = await buildApp({ store, config: loadConfig({ db: t.url }, {}), components: new Map() }, { logger: false });
    victim = await startVictim();
    const sources = [{ name: 'victim', kind: 'mpp-registry' as const, url: `${victim.base}/api/services` }];
    const sum = await collectOnce(store, { sources, allowLoopback: true });
    expect(sum).toMatchObject({ sources_failed: 0, store_errors: 0 });
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await t?.drop();
    await new Promise((r) => victim?.server.close(r));
  });

  it('sends GET as listed and POST only to the paid endpoint, with an empty body; never PUT, PATCH or DELETE', () => {
    const seen = [...victim.seen].sort((a, b) => a.path.localeCompare(b.path));
    expect(seen).toEqual([
      { method: 'GET', path: '/paid/get', body: 0 },
      { method: 'HEAD', path: '/paid/head', body: 0 },
      { method: 'POST', path: '/paid/post', body: 0 },
    ]);
  });

  it('refuses the garbage method when read, with a visible note, and never stores it', async () => {
    const status = (await app.inject({ method: 'GET', url: '/api/intelligence/status' })).json();
    const notes = status.sources.find((s: { name: string }) => s.name === 'victim').notes;
    expect(notes).toEqual([
      {
        kind: 'directory_entry_invalid',
        detail: expect.stringContaining('is not a known HTTP method'),
        url: `${victim.base}/victim/garbage`,
      },
    ]);
    expect(notes[0].detail.toLowerCase()).toContain(GARBAGE.toLowerCase());
    const provider = (await app.inject({ method: 'GET', url: `/api/providers/${encodeURIComponent(new URL(victim.base).host)}` })).json();
    const methods = provider.provider.services.map((s: { method: string; url: string }) => `${s.method} ${new URL(s.url).pathname}`).sort();
    expect(methods).toEqual([
      'DELETE /victim/users/123',
      'GET /paid/get',
      'HEAD /paid/head',
      'PATCH /victim/users/125',
      'POST /free/post',
      'POST /paid/post',
      'PUT /victim/users/124',
    ]);
    // Listed but never probed: no check, which is unknown, not a failure.
    const del = provider.provider.services.find((s: { method: string }) => s.method === 'DELETE');
    expect(del.latest_check).toBeNull();
  });

  it('stores a 200 KB description cut to its bound', async () => {
    const provider = (await app.inject({ method: 'GET', url: `/api/providers/${encodeURIComponent(new URL(victim.base).host)}` })).json();
    const get = provider.provider.services.find((s: { method: string }) => s.method === 'GET');
    expect(get.description.length).toBe(INTEL_LIMITS.description_chars.value);
    expect(get.description.endsWith('…')).toBe(true);
    // A lone surrogate read from a directory is stored as U+FFFD on both dialects (as a UTF-8 encoder writes it).
    const head = provider.provider.services.find((s: { method: string }) => s.method === 'HEAD');
    expect(head.description).toBe('half \ufffd a pair');
  });
});
