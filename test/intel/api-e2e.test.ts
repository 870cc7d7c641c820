/**
 * End to end with the real local paid services (x402 v2 via @x402/hono, x402 v1 via x402-hono, MPP via mppx) and
 * their real discovery directory: collect once → change price, payTo, offers and status → collect again → the
 * exact change records through the HTTP API; then archive verification catches a tampered evidence row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config.js';
import { ALPHA_USD, PATH_USD, startPaidServices, type PaidServices } from '../../src/demo/paid-services/index.js';
import { collectOnce } from '../../src/intel/collect.js';
import { verifyArchive } from '../../src/intel/archive.js';
import { readEvidence, verifyEvidence } from '../../src/intel/evidence.js';
import { runCli } from '../e2e/cli.js';
import { providerDomain, serviceId } from '../../src/intel/service-id.js';
import { openStore, type Store } from '../../src/store/db.js';
import { createTestDb, DIALECTS, type TestDb } from '../helpers/db.js';

const NEW_PAY_TO = '0x3333333333333333333333333333333333333333';

describe.each(DIALECTS)('collect → change → collect with real paid services on %s', (dialect) => {
  let t: TestDb;
  let store: Store;
  let app: FastifyInstance;
  let ps: PaidServices;
  let sources: { name: string; kind: 'bazaar' | 'mpp-registry'; url: string }[];
  const get = async (url: string) => {
    const r = await app.inject({ method: 'GET', url });
    expect(r.statusCode, url).toBe(200);
    return r.json();
  };
  const svc = (name: string) => {
    const s = ps.services.find((x) => x.name === name)!;
    return { id: serviceId(s.method, s.url), domain: providerDomain(s.url), terms: ps.terms(name) };
  };
  /** Snapshot ids of a service, newest first. */
  const snapshots = async (id: string): Promise<string[]> =>
    (await get(`/api/intelligence/history?service_id=${id}`)).checks.map((c: { snapshot_id: string }) => c.snapshot_id);

  beforeAll(async () => {
    t = await createTestDb(dialect);
    store = await openStore(t.url);
    app = await buildApp({ store, config: loadConfig({ db: t.url }, {}), components: new Map() }, { logger: false });
    ps = await startPaidServices();
    sources = [
      { name: 'local-bazaar', kind: 'bazaar', url: ps.directoryUrl },
      { name: 'local-mpp', kind: 'mpp-registry', url: `${ps.directoryUrl}/api/services` },
    ];
  });
  afterAll(async () => {
    await ps?.stop();
    await app?.close();
    await store?.close();
    await t?.drop();
  });

  it('lists the three providers with their offers after one collection', async () => {
    const first = await collectOnce(store, { sources, allowLoopback: true });
    expect(first).toMatchObject({ sources: 2, sources_failed: 0, services: 3, snapshots: 3, changes: 0, store_errors: 0 });
    const list = await get('/api/providers');
    expect(list.total).toBe(3);
    // Source freshness, with samples and totals, feeds /api/status too.
    const status = await get('/api/status');
    expect(
      status.service_sources.map((x: { name: string; item_count: number; last_error: null }) => [x.name, x.item_count, x.last_error]),
    ).toEqual(
      [
        ['local-bazaar', 2],
        ['local-mpp', 1],
      ].map(([n, c]) => [n, c, null]),
    );
    expect(status.service_sources[1].samples).toEqual([
      { method: 'GET', url: ps.services.find((x) => x.name === 'mpp-search')!.url, tool: null },
    ]);
    const weather = (await get(`/api/providers/${encodeURIComponent(svc('x402-v2-weather').domain)}`)).provider.services[0];
    expect(weather.latest_check).toMatchObject({ outcome: 'payment_required', http_status: 402 });
    expect(weather.offers.map((o: { asset: string; amount_atomic: string }) => [o.asset, o.amount_atomic])).toEqual([
      [PATH_USD, '10000'],
      [ALPHA_USD, '10000'],
    ]);
  });

  it('records exactly the price, payTo, removed-offer and 402 → 404 changes', async () => {
    const weather = svc('x402-v2-weather');
    const joke = svc('x402-v1-joke');
    const search = svc('mpp-search');
    const [w1] = await snapshots(weather.id);
    const [j1] = await snapshots(joke.id);
    const [s1] = await snapshots(search.id);
    const offersBefore = (await get(`/api/intelligence/offers?service_id=${weather.id}`)).offers.filter(
      (o: { snapshot_id: string }) => o.snapshot_id === w1,
    );
    const alphaOffer = offersBefore.find((o: { asset: string }) => o.asset === ALPHA_USD);

    ps.setPrice('x402-v2-weather', '20000');
    ps.removeOffer('x402-v2-weather', ALPHA_USD);
    ps.setPayTo('x402-v1-joke', NEW_PAY_TO);
    ps.setStatus('mpp-search', 404);
    const second = await collectOnce(store, { sources, allowLoopback: true });
    expect(second).toMatchObject({ snapshots: 3, changes: 4, store_errors: 0 });

    const [w2] = await snapshots(weather.id);
    const [j2] = await snapshots(joke.id);
    const [s2] = await snapshots(search.id);
    const at = async (id: string) => (await get(`/api/intelligence/history?service_id=${id}&limit=1`)).checks[0].checked_at;
    const tempo = { protocol: 'x402', x402_version: 2, scheme: 'exact', method: null, network: 'eip155:4217', asset: PATH_USD };
    const v1 = { protocol: 'x402', x402_version: 1, scheme: 'exact', method: null, network: 'eip155:84532', asset: joke.terms.assets[0] };
    const strip = ({ id: _id, ...rest }: Record<string, unknown>) => rest;

    const wc = (await get(`/api/intelligence/changes?service_id=${weather.id}`)).changes.map(strip);
    const {
      id: _i,
      service_id: _s,
      domain: _d,
      snapshot_id: _n,
      source_name: _sn,
      observed_at: _o,
      evidence_hash: _e,
      ...alpha
    } = alphaOffer;
    expect(wc).toEqual([
      {
        service_id: weather.id,
        domain: weather.domain,
        kind: 'price_changed',
        at: await at(weather.id),
        before_snapshot_id: w1,
        after_snapshot_id: w2,
        before: { ...tempo, amount_atomic: '10000', amount: '0.01' },
        after: { ...tempo, amount_atomic: '20000', amount: '0.02' },
      },
      {
        service_id: weather.id,
        domain: weather.domain,
        kind: 'offer_removed',
        at: await at(weather.id),
        before_snapshot_id: w1,
        after_snapshot_id: w2,
        before: alpha,
        after: null,
      },
    ]);
    expect((await get(`/api/intelligence/changes?service_id=${joke.id}`)).changes.map(strip)).toEqual([
      {
        service_id: joke.id,
        domain: joke.domain,
        kind: 'pay_to_changed',
        at: await at(joke.id),
        before_snapshot_id: j1,
        after_snapshot_id: j2,
        // joke.terms was copied before setPayTo: it holds the original payTo.
        before: { ...v1, pay_to: joke.terms.payTo },
        after: { ...v1, pay_to: NEW_PAY_TO },
      },
    ]);
    expect((await get(`/api/intelligence/changes?service_id=${search.id}`)).changes.map(strip)).toEqual([
      {
        service_id: search.id,
        domain: search.domain,
        kind: 'status_changed',
        at: await at(search.id),
        before_snapshot_id: s1,
        after_snapshot_id: s2,
        before: { outcome: 'payment_required', http_status: 402 },
        after: { outcome: 'not_found', http_status: 404 },
      },
    ]);
    const all = await get('/api/intelligence/changes');
    expect(all.total).toBe(4);
  });

  it('keeps evidence for directory offers: the directory answer archived, cited by snapshot_id and evidence_hash', async () => {
    const offers = (await get('/api/intelligence/offers?limit=100')).offers as {
      source: string;
      source_name: string | null;
      snapshot_id: string | null;
      evidence_hash: string | null;
      resource: string;
      amount_atomic: string;
    }[];
    const listed = offers.filter((o) => o.source === 'directory');
    expect(listed.length).toBeGreaterThan(0);
    expect(new Set(listed.map((o) => o.source_name))).toEqual(new Set(['local-bazaar', 'local-mpp']));
    for (const o of listed) {
      expect(o.snapshot_id, o.resource).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
      expect(o.evidence_hash, o.resource).toMatch(/^[0-9a-f]{64}$/);
      const answer = await store.db
        .selectFrom('intel_source_answers')
        .selectAll()
        .where('snapshot_id', '=', o.snapshot_id!)
        .executeTakeFirstOrThrow();
      expect(answer).toMatchObject({ source_name: o.source_name, evidence_hash: o.evidence_hash, http_status: 200 });
      // The archived bytes are the directory's answer: they hash to the cited hash and list this offer.
      const ev = await store.db
        .selectFrom('intel_evidence')
        .selectAll()
        .where('snapshot_id', '=', o.snapshot_id!)
        .executeTakeFirstOrThrow();
      expect(verifyEvidence(ev.bytes, o.evidence_hash!)).toBe(true);
      const body = Buffer.from(readEvidence(ev.bytes).body).toString('utf8');
      expect(body).toContain(o.amount_atomic);
    }
  });

  it('archive verification passes on real evidence, endpoint and directory answers alike, and detects tampered rows', async () => {
    const directory = (await store.db.selectFrom('intel_source_answers').select('snapshot_id').orderBy('snapshot_id').execute()).map(
      (r) => r.snapshot_id,
    );
    expect(directory.length).toBeGreaterThan(0);
    const clean = await verifyArchive(store);
    expect(clean).toEqual({ checked: 6 + directory.length, verified: 6 + directory.length, failed: [] });
    const [victim] = await snapshots(svc('x402-v1-joke').id);
    // Tamper with the stored bytes of one archived response and one directory answer (as a disk fault or an edit would).
    for (const id of [victim, directory[0]])
      await sql`update intel_evidence set bytes = ${new Uint8Array([1, 2, 3])} where snapshot_id = ${id}`.execute(store.db);
    const dirty = await verifyArchive(store);
    const failed = [victim, directory[0]].sort();
    expect(dirty).toEqual({ checked: 6 + directory.length, verified: 4 + directory.length, failed });
    const status = await get('/api/intelligence/status');
    expect(status.archive_verification).toMatchObject({ checked: 6 + directory.length, verified: 4 + directory.length, failed });
    // The operator's command finds the same, and exits 1.
    const cli = await runCli(['intel', 'verify-archive', '--db', t.url]);
    expect(cli.code).toBe(1);
    expect(JSON.parse(cli.stdout)).toEqual({ checked: 6 + directory.length, verified: 4 + directory.length, failed });
  });
});
