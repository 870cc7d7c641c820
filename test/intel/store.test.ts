import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/db.js';
import {
  getServiceSources,
  insertChanges,
  latestSnapshot,
  recordDirectoryOffers,
  saveSourceFreshness,
} from '../../src/store/intel/index.js';
import { archiveSourceAnswer, readEvidence, verifyEvidence } from '../../src/intel/evidence.js';
import { lastKnownOffers } from '../../src/store/trust/index.js';
import { offerToRow, rowToOffer } from '../../src/store/intel/rows.js';
import { getProvider, intelligenceStatus, listChanges, listHistory, listOffers, searchProviders } from '../../src/intel/queries.js';
import { IntelQuery, ProvidersQuery } from '../../src/intel/schemas.js';
import { createTestDb, DIALECTS, type TestDb } from '../helpers/db.js';
import { NOW, offer, seed, SID_A, SID_B, SID_C, snap, storeSnap, USDC } from './store-fixtures.js';

const opts = { staleAfterDays: 7, now: NOW };
const pq = (q: Record<string, unknown> = {}) => ProvidersQuery.parse(q);
const iq = (q: Record<string, unknown> = {}) => IntelQuery.parse(q);

describe.each(DIALECTS)('intel store on %s', (dialect) => {
  let t: TestDb;
  let store: Store;
  beforeAll(async () => {
    t = await createTestDb(dialect);
    store = await openStore(t.url);
    await seed(store);
  });
  afterAll(async () => {
    await store?.close();
    await t?.drop();
  });

  it('round-trips a snapshot with its offers, exactly', async () => {
    const s = await latestSnapshot(store, SID_A);
    expect(s).toMatchObject({
      snapshot_id: 's-a2',
      service_id: SID_A,
      checked_at: '2026-01-20T00:00:00.000Z',
      http_status: 402,
      latency_ms: 12,
      outcome: 'payment_required',
      error: null,
    });
    expect(s!.evidence_hash).toMatch(/^[a-f0-9]{64}$/);
    expect(s!.offers).toEqual([offer({ amount_atomic: '20000', amount: '0.02' })]);
    expect(await latestSnapshot(store, 'f'.repeat(64))).toBeNull();
  });

  it('keeps service check state: last good check and failing_since', async () => {
    const p = await getProvider(store, 'gone.example', opts);
    const svc = p.provider.services[0];
    expect(svc).toMatchObject({
      service_id: SID_C,
      stale: true,
      last_good_check_at: '2025-12-20T00:00:00.000Z',
      failing_since: '2026-01-01T00:00:00.000Z',
    });
    expect(svc.latest_check).toMatchObject({ snapshot_id: 's-c3', outcome: 'unreachable', http_status: null });
    expect(svc.checks.map((c) => c.snapshot_id)).toEqual(['s-c3', 's-c2', 's-c1']);
  });

  it('hides stale services from default search, shows them on request', async () => {
    const def = await searchProviders(store, pq(), opts);
    expect(def.providers.map((p) => p.domain)).toEqual(['api.alpha.example', 'beta.example']);
    expect(def.total).toBe(2);
    const all = await searchProviders(store, pq({ include_stale: 'true' }), opts);
    expect(all.providers.map((p) => p.domain)).toEqual(['api.alpha.example', 'beta.example', 'gone.example']);
    // With a longer stale period the failing service is listed by default, marked as failing but not stale.
    const longer = await searchProviders(store, pq(), { ...opts, staleAfterDays: 60 });
    const gone = longer.providers.find((p) => p.domain === 'gone.example')!;
    expect(gone.services[0]).toMatchObject({ stale: false, failing_since: '2026-01-01T00:00:00.000Z' });
  });

  it('lists each provider as a summary: counts, networks, protocols, price range, newest check, short services', async () => {
    const all = await searchProviders(store, pq({ include_stale: true }), opts);
    expect(all.providers[0]).toEqual({
      domain: 'api.alpha.example',
      first_seen: '2025-12-01T00:00:00.000Z',
      last_seen: expect.any(String),
      profile: '/api/providers/api.alpha.example',
      services_total: 1,
      services_stale: 0,
      stale: false,
      networks: ['eip155:4217'],
      protocols: ['x402'],
      prices: [
        {
          network: 'eip155:4217',
          asset: USDC,
          decimals: 6,
          min_amount_atomic: '20000',
          max_amount_atomic: '20000',
          min_amount: '0.02',
          max_amount: '0.02',
        },
      ],
      latest_check: { checked_at: '2026-01-20T00:00:00.000Z', outcome: 'payment_required', http_status: 402 },
      last_good_check_at: '2026-01-20T00:00:00.000Z',
      services: [
        {
          service_id: SID_A,
          method: 'GET',
          url: 'https://api.alpha.example/weather',
          tool: null,
          description: 'Weather now',
          stale: false,
          last_good_check_at: '2026-01-20T00:00:00.000Z',
          failing_since: null,
          latest_check: { checked_at: '2026-01-20T00:00:00.000Z', outcome: 'payment_required', http_status: 402 },
          offers_count: 1,
        },
      ],
    });
    const gone = all.providers.find((p) => p.domain === 'gone.example')!;
    expect(gone).toMatchObject({
      stale: true,
      services_stale: 1,
      networks: [],
      prices: [],
      latest_check: { outcome: 'unreachable', http_status: null },
      last_good_check_at: '2025-12-20T00:00:00.000Z',
    });
  });

  it('profiles the same latest check and offers from the row copies as from the snapshot join', async () => {
    const fromCopies = await getProvider(store, 'api.alpha.example', opts);
    expect(fromCopies.provider.services[0].offers).toEqual([offer({ amount_atomic: '20000', amount: '0.02' })]);
    const listed = await searchProviders(store, pq({ include_stale: true }), opts);
    // Rows written before intel_0002 (or by a bulk seeder) have no copies: readers join the snapshot instead.
    await store.db
      .updateTable('intel_services')
      .set({ last_offers: null, last_latency_ms: null, last_error: null, last_evidence_hash: null })
      .execute();
    store.cache.intelWritten(); // a direct write: answers reused from before it must not be served
    expect(await getProvider(store, 'api.alpha.example', opts)).toEqual(fromCopies);
    expect(await searchProviders(store, pq({ include_stale: true }), opts)).toEqual(listed);
  });

  it('filters providers by q, network and check, with pagination', async () => {
    expect((await searchProviders(store, pq({ q: 'WEATHER' }), opts)).providers.map((p) => p.domain)).toEqual(['api.alpha.example']);
    expect((await searchProviders(store, pq({ q: 'beta.ex' }), opts)).providers.map((p) => p.domain)).toEqual(['beta.example']);
    expect((await searchProviders(store, pq({ q: 'a_p' }), opts)).total).toBe(0);
    // One text per service, "domain url description": a substring may span the URL and the description.
    expect((await searchProviders(store, pq({ q: 'search web' }), opts)).providers.map((p) => p.domain)).toEqual(['beta.example']);
    expect((await searchProviders(store, pq({ q: 'we' }), opts)).providers.map((p) => p.domain)).toEqual([
      'api.alpha.example',
      'beta.example',
    ]);
    expect((await searchProviders(store, pq({ q: 'zz' }), opts)).total).toBe(0);
    expect((await searchProviders(store, pq({ q: 'THING', include_stale: true }), opts)).providers.map((p) => p.domain)).toEqual([
      'gone.example',
    ]);
    expect((await searchProviders(store, pq({ network: 'eip155:8453', include_stale: true }), opts)).total).toBe(0);
    expect((await searchProviders(store, pq({ network: 'eip155:4217' }), opts)).total).toBe(2);
    expect(
      (await searchProviders(store, pq({ check: 'unreachable', include_stale: 'true' }), opts)).providers.map((p) => p.domain),
    ).toEqual(['gone.example']);
    const page2 = await searchProviders(store, pq({ limit: 1, offset: 1 }), opts);
    expect(page2).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(page2.providers.map((p) => p.domain)).toEqual(['beta.example']);
    expect(page2.sources[0]).toMatchObject({ name: 'bazaar', item_count: 3, last_error: null, samples: [{ method: 'GET' }] });
  });

  it('lists offers newest first with since/until and service filters', async () => {
    const all = await listOffers(store, iq({ service_id: SID_A }), opts);
    expect(all.offers.map((o) => [o.snapshot_id, o.amount_atomic])).toEqual([
      ['s-a2', '20000'],
      ['s-a1', '10000'],
    ]);
    const since = Date.parse('2026-01-20T00:00:00Z') / 1000;
    expect((await listOffers(store, iq({ service_id: SID_A, since }), opts)).offers.map((o) => o.snapshot_id)).toEqual(['s-a2']);
    expect((await listOffers(store, iq({ service_id: SID_A, until: since }), opts)).offers.map((o) => o.snapshot_id)).toEqual(['s-a1']);
    expect((await listOffers(store, iq({ domain: 'beta.example' }), opts)).offers[0]).toMatchObject({
      protocol: 'mpp',
      method: 'tempo',
      service_id: SID_B,
    });
    await expect(listOffers(store, iq({ since: 10, until: 5 }), opts)).rejects.toThrow(/until/);
  });

  it('stores directory offers only when the listing changes, each stored listing citing its archived directory answer', async () => {
    const at = { service_id: SID_B, domain: 'beta.example', source_name: 'mpp-registry', observed_at: '2026-01-16T00:00:00Z' };
    const listed = [offer({ protocol: 'mpp', x402_version: null, scheme: 'charge', method: 'tempo', source: 'directory' })];
    /** An archived answer and a thunk handing it out that counts its calls. */
    const answerAt = (fetched_at: string, body: string) => {
      const a = archiveSourceAnswer('mpp-registry', {
        fetched_at,
        answer: {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: Buffer.from(body),
          truncated: false,
          url: 'https://mpp.example/api/services',
        },
      });
      let calls = 0;
      const thunk = () => {
        calls++;
        return a;
      };
      return { a, thunk, calls: () => calls };
    };
    const first = answerAt('2026-01-16T00:00:00Z', '{"services":[1]}');
    expect(await recordDirectoryOffers(store, at, listed, first.thunk)).toBe(true);
    const same = answerAt('2026-01-17T00:00:00Z', '{"services":[1],"x":1}');
    expect(await recordDirectoryOffers(store, { ...at, observed_at: '2026-01-17T00:00:00Z' }, listed, same.thunk)).toBe(false);
    // An unchanged listing archives nothing: the answer is not even built.
    expect(same.calls()).toBe(0);
    const changed = answerAt('2026-01-18T00:00:00Z', '{"services":[5]}');
    expect(
      await recordDirectoryOffers(
        store,
        { ...at, observed_at: '2026-01-18T00:00:00Z' },
        [{ ...listed[0], amount_atomic: '5' }],
        changed.thunk,
      ),
    ).toBe(true);
    // A second listing read from the same answer cites it too; the answer is stored once.
    expect(
      await recordDirectoryOffers(
        store,
        { ...at, service_id: SID_A, domain: 'api.alpha.example' },
        [{ ...listed[0], amount_atomic: '6' }],
        changed.thunk,
      ),
    ).toBe(true);
    const rows = (await listOffers(store, iq({ service_id: SID_B }), opts)).offers.filter((o) => o.source_name === 'mpp-registry');
    expect(rows.map((r) => [r.observed_at, r.amount_atomic, r.snapshot_id, r.evidence_hash])).toEqual([
      ['2026-01-18T00:00:00.000Z', '5', changed.a.snapshot_id, changed.a.evidence.sha256],
      ['2026-01-16T00:00:00.000Z', '10000', first.a.snapshot_id, first.a.evidence.sha256],
    ]);
    const answers = await store.db.selectFrom('intel_source_answers').selectAll().orderBy('fetched_at').execute();
    expect(answers.map((a) => [a.snapshot_id, a.source_name, a.http_status, a.evidence_hash])).toEqual([
      [first.a.snapshot_id, 'mpp-registry', 200, first.a.evidence.sha256],
      [changed.a.snapshot_id, 'mpp-registry', 200, changed.a.evidence.sha256],
    ]);
    // The archived bytes are the answer as received, verified like a probe's.
    const ev = await store.db
      .selectFrom('intel_evidence')
      .selectAll()
      .where('snapshot_id', '=', changed.a.snapshot_id)
      .executeTakeFirstOrThrow();
    expect(verifyEvidence(ev.bytes, changed.a.evidence.sha256)).toBe(true);
    expect(Buffer.from(readEvidence(ev.bytes).body).toString()).toBe('{"services":[5]}');
    // The trust check's history falls back to the latest listing of a service never answered a 402 (src/store/trust).
    const unprobed = 'f'.repeat(64);
    await recordDirectoryOffers(store, { ...at, service_id: unprobed, domain: 'unprobed.example' }, listed, first.thunk);
    const known = await lastKnownOffers(store, unprobed, '2027-01-01T00:00:00.000Z');
    expect(known).toMatchObject({ snapshot_id: null, checked_at: '2026-01-16T00:00:00.000Z' });
    expect(known!.offers).toEqual([rowToOffer(offerToRow(listed[0], { ...at, snapshot_id: null, evidence_hash: null }))]);
  });

  it('round-trips changes and history', async () => {
    await insertChanges(store, [
      {
        service_id: SID_A,
        domain: 'api.alpha.example',
        kind: 'price_changed',
        at: '2026-01-20T00:00:00.000Z',
        before_snapshot_id: 's-a1',
        after_snapshot_id: 's-a2',
        before: { amount_atomic: '10000' },
        after: { amount_atomic: '20000' },
      },
    ]);
    const ch = await listChanges(store, iq({ domain: 'api.alpha.example' }), opts);
    expect(ch.total).toBe(1);
    expect(ch.changes[0]).toMatchObject({
      kind: 'price_changed',
      before_snapshot_id: 's-a1',
      after_snapshot_id: 's-a2',
      before: { amount_atomic: '10000' },
      after: { amount_atomic: '20000' },
    });
    const h = await listHistory(store, iq({ service_id: SID_C }), opts);
    expect(h.checks.map((c) => [c.snapshot_id, c.outcome, c.offers.length])).toEqual([
      ['s-c3', 'unreachable', 0],
      ['s-c2', 'not_found', 0],
      ['s-c1', 'payment_required', 1],
    ]);
    await expect(listHistory(store, iq({}), opts)).rejects.toThrow(/domain/);
  });

  it('reports status and source freshness; samples survive a failed attempt', async () => {
    await saveSourceFreshness(
      store,
      {
        name: 'bazaar',
        kind: 'bazaar',
        url: 'https://facilitator.example',
        last_attempt_at: '2026-01-31T12:00:00Z',
        last_success_at: '2026-01-31T00:00:00Z',
        last_error: 'HTTP 503',
        item_count: 3,
      },
      null,
    );
    const [src] = await getServiceSources(store);
    expect(src).toEqual({
      name: 'bazaar',
      kind: 'bazaar',
      url: 'https://facilitator.example',
      last_attempt_at: '2026-01-31T12:00:00.000Z',
      last_success_at: '2026-01-31T00:00:00.000Z',
      last_error: 'HTTP 503',
      item_count: 3,
      samples: [{ method: 'GET', url: 'https://api.alpha.example/weather' }],
      notes: [],
    });
    const st = await intelligenceStatus(store, opts);
    expect(st.collection).toMatchObject({ available: true, last_successful_run_at: '2026-01-31T00:01:00.000Z' });
    expect(st.history).toMatchObject({
      providers: 3,
      services: 3,
      services_stale: 1,
      snapshots: 6,
      first_check_at: '2025-12-20T00:00:00.000Z',
      last_check_at: '2026-01-30T00:00:00.000Z',
    });
  });
  it('reuses a list answer for the same parameters until this process writes intel data', async () => {
    const first = await listOffers(store, iq({ domain: 'beta.example' }), opts);
    expect(await listOffers(store, iq({ domain: 'beta.example' }), opts)).toBe(first);
    expect(await listOffers(store, iq({ domain: 'beta.example', limit: 5 }), opts)).not.toBe(first);
    const before = await searchProviders(store, pq({ q: 'beta' }), opts);
    await storeSnap(
      store,
      snap('s-b2', SID_B, '2026-01-16T00:00:00.000Z', { offers: [offer({ amount_atomic: '30000', amount: '0.03' })] }),
      'beta.example',
    );
    const after = await listOffers(store, iq({ domain: 'beta.example' }), opts);
    expect(after.total).toBe(first.total + 1);
    expect(after.offers.find((o) => o.snapshot_id === 's-b2')).toMatchObject({ amount_atomic: '30000' });
    const listed = await searchProviders(store, pq({ q: 'beta' }), opts);
    expect(listed).not.toEqual(before);
    expect(listed.providers[0].prices[0]).toMatchObject({ min_amount_atomic: '30000', max_amount_atomic: '30000' });
  });
});
