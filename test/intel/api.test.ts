import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/db.js';
import {
  COLLECTION_VERSION,
  ChangesResponse,
  HistoryResponse,
  IntelligenceStatusResponse,
  OffersResponse,
  ProviderProfileResponse,
  ProvidersResponse,
} from '../../src/intel/schemas.js';
import { createTestDb, DIALECTS, type TestDb } from '../helpers/db.js';
import { PAY_A, PAY_B, seed, SID_A, SID_C } from './store-fixtures.js';
import { startCollectRun, upsertService } from '../../src/store/intel/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** Builds the real app over a fresh store; `seeded` adds the fixture providers and a finished collection run. */
async function appOver(dialect: (typeof DIALECTS)[number], seeded: boolean) {
  const t = await createTestDb(dialect);
  const store = await openStore(t.url);
  if (seeded) await seed(store);
  const app = await buildApp({ store, config: loadConfig({ db: t.url }, {}), components: new Map() }, { logger: false });
  return { t, store, app };
}

describe.each(DIALECTS)('provider and intelligence routes on %s', (dialect) => {
  let t: TestDb;
  let store: Store;
  let app: FastifyInstance;
  beforeAll(async () => ({ t, store, app } = await appOver(dialect, true)));
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await t?.drop();
  });
  const get = (url: string) => app.inject({ method: 'GET', url });

  it.each([
    ['/api/providers?limit=0', 'limit'],
    ['/api/providers?limit=101', 'limit'],
    ['/api/providers?offset=20001', 'offset'],
    [`/api/providers?q=${'a'.repeat(141)}`, 'q'],
    ['/api/providers?q=%3Cscript%3E', 'q'],
    ['/api/providers?check=bogus', 'check'],
    ['/api/providers?include_stale=yes', 'include_stale'],
    ['/api/intelligence/offers?service_id=ABC', 'service_id'],
    ['/api/intelligence/offers?since=yesterday', 'since'],
    ['/api/intelligence/changes?offset=1000001', 'offset'],
    ['/api/intelligence/changes?until=1&since=5', 'since'],
    ['/api/intelligence/history?limit=5', 'domain'],
    ['/api/intelligence/history?domain=a%20b', 'domain'],
  ])('GET %s → 400 naming %s', async (url, param) => {
    const r = await get(url);
    expect(r.statusCode).toBe(400);
    expect(r.json().error).toContain(`'${param}'`);
  });

  it.each([
    '/api/intelligence/status?pay_to=0xabc',
    '/api/intelligence/offers?pay_to=0xabc',
    `/api/intelligence/offers?service_id=${SID_A}&pay_to=0xabc`,
    '/api/intelligence/changes?pay_to=0xabc',
    '/api/intelligence/history?domain=api.alpha.example&pay_to=0xabc',
    '/api/providers/api.alpha.example?pay_to=0xabc',
  ])('GET %s → 400 refusing the unknown parameter, as the chain endpoints do', async (url) => {
    const r = await get(url);
    expect(r.statusCode).toBe(400);
    expect(r.json()).toEqual({ error: "unknown query parameter 'pay_to'" });
  });

  it('GET /api/providers?pay_to lists the providers of services advertising that payTo, with the services and dates', async () => {
    const bad = await get('/api/providers?pay_to=0xabc');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toContain("'pay_to'");
    const all = (await get('/api/providers?include_stale=true&limit=100')).json();
    const r = await get(`/api/providers?include_stale=true&limit=100&pay_to=${PAY_A.toUpperCase().replace('0X', '0x')}`);
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body.pay_to_services.length).toBeGreaterThan(0);
    const domains = new Set(body.pay_to_services.map((x: { domain: string }) => x.domain));
    expect(body.providers.map((x: { domain: string }) => x.domain).sort()).toEqual([...domains].sort());
    expect(body.total).toBeLessThanOrEqual(all.total);
    for (const x of body.pay_to_services) expect(x.first_advertised <= x.last_advertised).toBe(true);
    const none = (await get(`/api/providers?pay_to=${PAY_B}`)).json();
    expect(none).toMatchObject({ total: 0, providers: [], pay_to_services: [] });
    expect(all.pay_to_services).toBeUndefined();
  });

  it("names every unknown parameter at once, in the chain endpoints' words", async () => {
    const chain = await get('/api/transactions?pay_to=1&x=2');
    const r = await get('/api/intelligence/offers?pay_to=1&x=2');
    expect(r.statusCode).toBe(400);
    expect(r.json()).toEqual({ error: "unknown query parameters 'pay_to', 'x'" });
    expect(r.json()).toEqual(chain.json());
  });

  it('404 {error} for a provider that is not listed', async () => {
    const r = await get('/api/providers/nobody.example');
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual({ error: 'provider nobody.example is not listed' });
  });

  it('sends a reused answer as the same JSON text, with its JSON type and ETag', async () => {
    for (const url of ['/api/providers?q=beta', '/api/intelligence/changes?domain=api.alpha.example']) {
      const a = await get(url);
      const b = await get(url);
      expect(a.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(b.body).toBe(a.body);
      expect(b.headers.etag).toBe(a.headers.etag);
      expect(a.headers.etag).toBe(`W/"${createHash('sha1').update(a.body).digest('base64')}"`);
      expect(typeof JSON.parse(a.body)).toBe('object');
      const again = await app.inject({ method: 'GET', url, headers: { 'if-none-match': String(a.headers.etag) } });
      expect(again.statusCode).toBe(304);
    }
  });

  it('hides the stale listing by default and shows it, marked, on request', async () => {
    const def = ProvidersResponse.parse((await get('/api/providers')).json());
    expect(def.providers.map((p) => p.domain)).toEqual(['api.alpha.example', 'beta.example']);
    expect(def.disclaimer).toMatch(/does not establish a completed purchase/);
    const all = ProvidersResponse.parse((await get('/api/providers?include_stale=true')).json());
    const gone = all.providers.find((p) => p.domain === 'gone.example')!;
    expect(gone.services[0]).toMatchObject({ stale: true, last_good_check_at: '2025-12-20T00:00:00.000Z' });
    // The stale service's history stays.
    const h = HistoryResponse.parse((await get(`/api/intelligence/history?service_id=${SID_C}`)).json());
    expect(h.total).toBe(3);
  });

  it('serves a profile with services, offers and dated checks (domain case-insensitive)', async () => {
    const r = await get('/api/providers/API.Alpha.Example');
    expect(r.statusCode).toBe(200);
    const p = ProviderProfileResponse.parse(r.json());
    expect(p.provider.services[0]).toMatchObject({ service_id: SID_A, offers: [{ amount_atomic: '20000', amount: '0.02' }] });
    expect(p.provider.services[0].checks.map((c) => c.snapshot_id)).toEqual(['s-a2', 's-a1']);
  });

  it('serves offers, changes, history and status in their documented shapes', async () => {
    const o = OffersResponse.parse((await get(`/api/intelligence/offers?service_id=${SID_A}&limit=1`)).json());
    expect(o).toMatchObject({ total: 2, limit: 1, offset: 0 });
    expect(o.offers[0]).toMatchObject({ snapshot_id: 's-a2', amount_atomic: '20000' });
    expect(o.offers[0].evidence_hash).toMatch(/^[a-f0-9]{64}$/);
    expect(o.disclaimer).toMatch(/not charges/);
    const c = ChangesResponse.parse((await get('/api/intelligence/changes?domain=api.alpha.example')).json());
    expect(c.total).toBe(0);
    const h = HistoryResponse.parse((await get('/api/intelligence/history?domain=api.alpha.example&since=1768867200')).json());
    expect(h.checks.map((x) => x.snapshot_id)).toEqual(['s-a2']);
    const s = IntelligenceStatusResponse.parse((await get('/api/intelligence/status')).json());
    expect(s.collection.available).toBe(true);
    expect(s.history.services_stale).toBe(1);
  });

  it('versions every intelligence answer with collection_version, described in the OpenAPI document', async () => {
    const paths = {
      '/api/providers': '/api/providers',
      '/api/providers/{domain}': '/api/providers/api.alpha.example',
      '/api/intelligence/status': '/api/intelligence/status',
      '/api/intelligence/offers': '/api/intelligence/offers',
      '/api/intelligence/changes': '/api/intelligence/changes',
      '/api/intelligence/history': '/api/intelligence/history?domain=api.alpha.example',
    };
    const doc = (await get('/api/openapi.json')).json();
    for (const [documented, url] of Object.entries(paths)) {
      const r = await get(url);
      expect(r.statusCode, url).toBe(200);
      expect(r.json().collection_version, url).toBe('1');
      const schema = doc.paths[documented].get.responses['200'].content['application/json'].schema;
      expect(schema.required, documented).toContain('collection_version');
      expect(schema.properties.collection_version, documented).toMatchObject({ type: 'string', enum: [COLLECTION_VERSION] });
      expect(schema.properties.collection_version.description, documented).toMatch(/meaning/);
    }
    expect(COLLECTION_VERSION).toBe('1');
  });

  it('describes the routes and the disclaimer member in a valid OpenAPI 3.1 document', async () => {
    const doc = (await get('/api/openapi.json')).json();
    for (const p of [
      '/api/providers',
      '/api/providers/{domain}',
      '/api/intelligence/status',
      '/api/intelligence/offers',
      '/api/intelligence/changes',
      '/api/intelligence/history',
    ]) {
      expect(doc.paths[p]?.get, p).toBeTruthy();
    }
    const okSchema = doc.paths['/api/intelligence/offers'].get.responses['200'].content['application/json'].schema;
    expect(okSchema.properties.disclaimer.description).toMatch(/not/);
    const v = new Validator();
    const res = await v.validate(doc);
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
  });
});

describe.each(DIALECTS)('provider and intelligence reads before the first collection run (%s)', (dialect) => {
  const UNTIL_COLLECTED = [
    '/api/providers',
    '/api/providers?q=alpha',
    '/api/providers/api.alpha.example',
    '/api/providers/nobody.example',
    '/api/intelligence/offers',
    '/api/intelligence/changes',
    '/api/intelligence/history?domain=a.example',
  ];

  it('answer 503 {error} with Retry-After on provider search, profiles and the lists, and status reports it', async () => {
    const { t, store, app } = await appOver(dialect, false);
    try {
      // Listed providers and a started run are not enough: only a finished collection run makes an empty answer mean "none".
      await upsertService(store, {
        service_id: SID_A,
        domain: 'api.alpha.example',
        method: 'GET',
        url: 'https://api.alpha.example/v1/quote',
        tool: null,
        description: null,
        source: 'bazaar',
        seen_at: '2026-01-01T00:00:00Z',
      });
      await startCollectRun(store);
      for (const url of UNTIL_COLLECTED) {
        const r = await app.inject({ method: 'GET', url });
        expect(r.statusCode, url).toBe(503);
        expect(r.headers['retry-after'], url).toBe('30');
        expect(r.json(), url).toEqual({
          error: 'collection temporarily unavailable: no provider collection run has finished yet; retry later',
        });
      }
      const s = await app.inject({ method: 'GET', url: '/api/intelligence/status' });
      expect(s.statusCode).toBe(200);
      expect(s.json().collection).toMatchObject({ available: false, last_successful_run_at: null });
      // The OpenAPI document lists that 503 on each of them.
      const doc = (await app.inject('/api/openapi.json')).json();
      for (const path of [
        '/api/providers',
        '/api/providers/{domain}',
        '/api/intelligence/offers',
        '/api/intelligence/changes',
        '/api/intelligence/history',
      ]) {
        const r503 = doc.paths[path].get.responses['503'];
        expect(r503.description, path).toMatch(/no provider collection run has finished yet/);
        expect(Object.keys(r503.content), path).toEqual(['application/json']);
      }
    } finally {
      await app.close();
      await store.close();
      await t.drop();
    }
  });

  it('is one fact of the store: a run finished by another process makes every reader answer', async () => {
    const { t, store, app } = await appOver(dialect, false);
    // Another process (its own connection) collects into the same store; this app writes nothing itself.
    const collector = await openStore(t.url);
    try {
      for (const url of UNTIL_COLLECTED) expect((await app.inject({ method: 'GET', url })).statusCode, url).toBe(503);
      await seed(collector);
      const status = await app.inject({ method: 'GET', url: '/api/intelligence/status' });
      expect(status.json().collection.available).toBe(true);
      expect((await app.inject({ method: 'GET', url: '/api/providers' })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/api/providers/api.alpha.example' })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/api/providers/nobody.example' })).statusCode).toBe(404);
      expect((await app.inject({ method: 'GET', url: '/api/intelligence/offers' })).statusCode).toBe(200);
    } finally {
      await app.close();
      await collector.close();
      await store.close();
      await t.drop();
    }
  });

  it('gives the MCP twins the same answer, as a tool error', async () => {
    const { t, store, app } = await appOver(dialect, false);
    try {
      const base = await app.listen({ host: '127.0.0.1', port: 0 });
      const client = new Client({ name: 'paywatch-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`)));
      try {
        for (const [name, args] of [
          ['search_providers', {}],
          ['get_provider', { domain: 'api.alpha.example' }],
          ['get_service_offers', {}],
        ] as const) {
          const r = await client.callTool({ name, arguments: args });
          expect(r.isError, name).toBe(true);
          expect(JSON.parse((r.content as { text: string }[])[0].text).error, name).toMatch(/^collection temporarily unavailable/);
        }
      } finally {
        await client.close();
      }
    } finally {
      await app.close();
      await store.close();
      await t.drop();
    }
  });
});
