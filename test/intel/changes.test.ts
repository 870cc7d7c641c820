import { describe, expect, it } from 'vitest';
import { diffSnapshots, directoryDrift, directoryDriftChanges } from '../../src/intel/changes.js';
import { offer, PAY_A, PAY_B, SID_A, snap, USDC } from './store-fixtures.js';

const ctx = { domain: 'api.alpha.example' };
const T1 = '2026-01-10T00:00:00.000Z';
const T2 = '2026-01-11T00:00:00.000Z';
const ident = { protocol: 'x402', x402_version: 2, scheme: 'exact', method: null, network: 'eip155:4217', asset: USDC };
const base = { service_id: SID_A, domain: 'api.alpha.example', at: T2, before_snapshot_id: 's1', after_snapshot_id: 's2' };

describe('diffSnapshots', () => {
  it('gives no change for a first snapshot or an identical one', () => {
    expect(diffSnapshots(null, snap('s2', SID_A, T2), ctx)).toEqual([]);
    expect(diffSnapshots(snap('s1', SID_A, T1), snap('s2', SID_A, T2), ctx)).toEqual([]);
  });

  it('records a price change with old and new amounts', () => {
    const next = snap('s2', SID_A, T2, { offers: [offer({ amount_atomic: '25000', amount: '0.025' })] });
    expect(diffSnapshots(snap('s1', SID_A, T1), next, ctx)).toEqual([
      {
        ...base,
        kind: 'price_changed',
        before: { ...ident, amount_atomic: '10000', amount: '0.01' },
        after: { ...ident, amount_atomic: '25000', amount: '0.025' },
      },
    ]);
  });

  it('records a payTo change', () => {
    const next = snap('s2', SID_A, T2, { offers: [offer({ pay_to: PAY_B })] });
    expect(diffSnapshots(snap('s1', SID_A, T1), next, ctx)).toEqual([
      { ...base, kind: 'pay_to_changed', before: { ...ident, pay_to: PAY_A }, after: { ...ident, pay_to: PAY_B } },
    ]);
  });

  it('records a removed offer and an added one', () => {
    const mpp = offer({ protocol: 'mpp', x402_version: null, scheme: 'charge', method: 'tempo', source: 'www-authenticate' });
    const prev = snap('s1', SID_A, T1, { offers: [offer(), mpp] });
    expect(diffSnapshots(prev, snap('s2', SID_A, T2, { offers: [offer()] }), ctx)).toEqual([
      { ...base, kind: 'offer_removed', before: mpp, after: null },
    ]);
    expect(diffSnapshots(snap('s1', SID_A, T1), snap('s2', SID_A, T2, { offers: [offer(), mpp] }), ctx)).toEqual([
      { ...base, kind: 'offer_added', before: null, after: mpp },
    ]);
  });

  it('records a 402 → 404 as one status change (offers are not compared without a challenge)', () => {
    const next = snap('s2', SID_A, T2, { http_status: 404, outcome: 'not_found', error: 'HTTP 404', offers: [] });
    expect(diffSnapshots(snap('s1', SID_A, T1), next, ctx)).toEqual([
      {
        ...base,
        kind: 'status_changed',
        before: { outcome: 'payment_required', http_status: 402 },
        after: { outcome: 'not_found', http_status: 404 },
      },
    ]);
  });

  it('records a challenge that became invalid', () => {
    const next = snap('s2', SID_A, T2, { outcome: 'invalid_challenge', error: 'no accepts', offers: [] });
    expect(diffSnapshots(snap('s1', SID_A, T1), next, ctx)).toEqual([
      {
        ...base,
        kind: 'challenge_invalid',
        before: { outcome: 'payment_required', http_status: 402 },
        after: { outcome: 'invalid_challenge', http_status: 402, error: 'no accepts' },
      },
    ]);
  });

  it('records a network change (with its price change) as the same option moved, not remove + add', () => {
    const next = snap('s2', SID_A, T2, { offers: [offer({ network: 'eip155:8453', amount_atomic: '1', amount: '0.000001' })] });
    const after = { ...ident, network: 'eip155:8453' };
    expect(diffSnapshots(snap('s1', SID_A, T1), next, ctx)).toEqual([
      { ...base, kind: 'network_changed', before: ident, after },
      {
        ...base,
        kind: 'price_changed',
        before: { ...ident, amount_atomic: '10000', amount: '0.01' },
        after: { ...after, amount_atomic: '1', amount: '0.000001' },
      },
    ]);
  });

  it('records an asset change', () => {
    const other = '0x20c0000000000000000000000000000000000002';
    expect(diffSnapshots(snap('s1', SID_A, T1), snap('s2', SID_A, T2, { offers: [offer({ asset: other })] }), ctx)).toEqual([
      { ...base, kind: 'asset_changed', before: ident, after: { ...ident, asset: other } },
    ]);
  });
});

describe('directoryDrift', () => {
  const listed = offer({ source: 'directory', pay_to: null, extra: null, max_timeout_seconds: null });
  it('accepts a listing the endpoint bears out, with unstated members ignored', () => {
    expect(directoryDrift([listed], [offer()])).toEqual([]);
  });
  it('reports a listed price the endpoint does not answer, and a listed option it does not offer', () => {
    expect(directoryDrift([listed], [offer({ amount_atomic: '1' })])).toEqual([{ listed, answered: offer({ amount_atomic: '1' }) }]);
    const elsewhere = { ...listed, network: 'eip155:8453' };
    expect(directoryDrift([elsewhere], [offer()])).toEqual([{ listed: elsewhere, answered: null }]);
  });
  it('records a drift once, when it starts', () => {
    const prev = snap('s1', SID_A, T1);
    const next = snap('s2', SID_A, T2, { offers: [offer({ amount_atomic: '1' })] });
    const first = directoryDriftChanges([listed], prev, next, ctx);
    expect(first).toEqual([{ ...base, kind: 'directory_drift', before: { listed }, after: { answered: offer({ amount_atomic: '1' }) } }]);
    expect(directoryDriftChanges([listed], next, { ...next, snapshot_id: 's3' }, ctx)).toEqual([]);
  });
});
