/** Plain-data builders for intel tests (offers, snapshots, sightings) and a seeded store. */
import { archiveEvidence } from '../../src/intel/evidence.js';
import { serviceId } from '../../src/intel/service-id.js';
import type { Offer, Snapshot } from '../../src/domain/intel.js';
import type { Store } from '../../src/store/db.js';
import { finishCollectRun, recordSnapshot, saveSourceFreshness, startCollectRun, upsertService } from '../../src/store/intel/index.js';

export const PAY_A = '0x1111111111111111111111111111111111111111';
export const PAY_B = '0x2222222222222222222222222222222222222222';
export const USDC = '0x20c0000000000000000000000000000000000001';

/** An x402 v2 exact offer on Tempo with `amount_atomic` (6 decimals). */
export function offer(over: Partial<Offer> = {}): Offer {
  return {
    protocol: 'x402',
    x402_version: 2,
    scheme: 'exact',
    method: null,
    network: 'eip155:4217',
    asset: USDC,
    amount_atomic: '10000',
    amount: '0.01',
    decimals: 6,
    pay_to: PAY_A,
    max_timeout_seconds: 60,
    expires: null,
    description: null,
    resource: null,
    extra: { name: 'USD Coin', version: '2' },
    source: 'header',
    ...over,
  };
}

/** A snapshot of `service_id` at `checked_at`. */
export function snap(id: string, service_id: string, checked_at: string, over: Partial<Snapshot> = {}): Snapshot {
  return {
    snapshot_id: id,
    service_id,
    checked_at,
    http_status: 402,
    latency_ms: 12,
    outcome: 'payment_required',
    error: null,
    evidence_hash: null,
    offers: [offer()],
    ...over,
  };
}

export const URL_A = 'https://api.alpha.example/weather';
export const URL_B = 'https://beta.example/search';
export const URL_C = 'https://gone.example/old';
export const SID_A = serviceId('GET', URL_A);
export const SID_B = serviceId('POST', URL_B);
export const SID_C = serviceId('GET', URL_C);

/** Stores a snapshot with real archived evidence (gzip bytes + sha256). */
export async function storeSnap(store: Store, s: Snapshot, domain: string): Promise<Snapshot> {
  const ev = archiveEvidence({
    status: s.http_status ?? 0,
    headers: { 'content-type': 'application/json' },
    body: new TextEncoder().encode(s.snapshot_id),
    truncated: false,
    url: 'https://x',
  });
  const withHash = { ...s, evidence_hash: ev.sha256 };
  await recordSnapshot(store, withHash, domain, { sha256: ev.sha256, encoding: 'gzip', bytes: ev.bytes });
  return withHash;
}

/**
 * Seeds three providers: alpha (healthy, Tempo offer, price changed once), beta (healthy MPP offer),
 * gone.example (failing since 2026-01-01: stale at NOW with 7 days). One finished collection run.
 */
export const NOW = new Date('2026-02-01T00:00:00.000Z');
export async function seed(store: Store): Promise<void> {
  await saveSourceFreshness(
    store,
    {
      name: 'bazaar',
      kind: 'bazaar',
      url: 'https://facilitator.example',
      last_attempt_at: '2026-01-31T00:00:00Z',
      last_success_at: '2026-01-31T00:00:00Z',
      last_error: null,
      item_count: 3,
    },
    [{ method: 'GET', url: URL_A }],
  );
  await upsertService(store, {
    service_id: SID_A,
    domain: 'api.alpha.example',
    method: 'GET',
    url: URL_A,
    tool: null,
    description: 'Weather now',
    source: 'bazaar',
    seen_at: '2025-12-01T00:00:00Z',
  });
  await upsertService(store, {
    service_id: SID_B,
    domain: 'beta.example',
    method: 'POST',
    url: URL_B,
    tool: null,
    description: 'Web search',
    source: 'bazaar',
    seen_at: '2025-12-01T00:00:00Z',
  });
  await upsertService(store, {
    service_id: SID_C,
    domain: 'gone.example',
    method: 'GET',
    url: URL_C,
    tool: null,
    description: 'Old thing',
    source: 'bazaar',
    seen_at: '2025-12-01T00:00:00Z',
  });
  await storeSnap(store, snap('s-a1', SID_A, '2026-01-10T00:00:00.000Z'), 'api.alpha.example');
  await storeSnap(
    store,
    snap('s-a2', SID_A, '2026-01-20T00:00:00.000Z', { offers: [offer({ amount_atomic: '20000', amount: '0.02' })] }),
    'api.alpha.example',
  );
  await storeSnap(
    store,
    snap('s-b1', SID_B, '2026-01-15T00:00:00.000Z', {
      offers: [
        offer({
          protocol: 'mpp',
          x402_version: null,
          scheme: 'charge',
          method: 'tempo',
          network: 'eip155:4217',
          source: 'www-authenticate',
          extra: null,
          max_timeout_seconds: null,
        }),
      ],
    }),
    'beta.example',
  );
  await storeSnap(store, snap('s-c1', SID_C, '2025-12-20T00:00:00.000Z', { offers: [offer({ network: 'eip155:8453' })] }), 'gone.example');
  await storeSnap(
    store,
    snap('s-c2', SID_C, '2026-01-01T00:00:00.000Z', { http_status: 404, outcome: 'not_found', error: 'HTTP 404', offers: [] }),
    'gone.example',
  );
  await storeSnap(
    store,
    snap('s-c3', SID_C, '2026-01-30T00:00:00.000Z', { http_status: null, outcome: 'unreachable', error: 'ECONNREFUSED', offers: [] }),
    'gone.example',
  );
  const run = await startCollectRun(store, '2026-01-31T00:00:00Z');
  await finishCollectRun(store, run, { services: 3, snapshots: 6, changes: 0, error: null }, '2026-01-31T00:01:00Z');
}
