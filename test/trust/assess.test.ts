/**
 * assessTrust over a table of evidence cases: each row pins one reason code to its severity and the verdict it
 * gives on otherwise honest evidence (and codes it must not come with); the table covers every code of
 * REASON_SEVERITIES, and docs/trust-check.md lists exactly those codes with those severities.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { assessPayTo, assessTrust } from '../../src/trust/assess.js';
import type { ChangeKind, Offer } from '../../src/domain/intel.js';
import {
  REASON_CODES,
  REASON_SEVERITIES,
  type PayerAnalysis,
  type PayToEvidence,
  type ReasonCode,
  type RecentChange,
  type Severity,
  type TrustEvidence,
  type Verdict,
} from '../../src/trust/types.js';

const NOW = new Date('2026-11-21T12:00:00Z');
const PAY_TO = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const OTHER = '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc';
const PATH_USD = '0x20c0000000000000000000000000000000000000';

const offer = (o: Partial<Offer> = {}): Offer => ({
  protocol: 'x402',
  x402_version: 2,
  scheme: 'exact',
  method: null,
  network: 'eip155:4217',
  asset: PATH_USD,
  amount_atomic: '10000',
  amount: '0.01',
  decimals: 6,
  pay_to: PAY_TO,
  max_timeout_seconds: 60,
  expires: null,
  description: null,
  resource: null,
  extra: null,
  source: 'header',
  ...o,
});

/** Who pays PAY_TO: 12 independent payers over a fully collected window, the largest at 20% of the nominal. */
const diversePayers = (o: Partial<PayerAnalysis> = {}): PayerAnalysis => ({
  pay_to: PAY_TO,
  since: 1_761_091_200,
  until: 1_763_769_600,
  covered_since: 1_761_091_200,
  covered_until: 1_763_726_400,
  complete: true,
  payments: 40,
  nominal: '4',
  distinct_payers: 12,
  top_payer: OTHER,
  top_payer_payments: 8,
  top_payer_tx: `0x${'1'.repeat(64)}`,
  top_payer_share: 0.2,
  self_payments: 0,
  funder: { address: OTHER, time: 1_761_100_000, tx: `0x${'1'.repeat(64)}` },
  payers_examined: 12,
  capped: false,
  examined_share: 1,
  common_funder: null,
  funding_links: [],
  funding_links_total: 0,
  self_funded_payers: 0,
  self_funded_share: 0,
  service: null,
  ...o,
});

/** A payer linked to PAY_TO by its first inflow (evidence of pay_to_self_funded). */
const link = { payer: OTHER, funder: PAY_TO, kind: 'pay_to' as const, time: 1_761_100_000, tx: `0x${'2'.repeat(64)}`, nominal: '3' };
/** Who pays: one payer at 90% over 20 payments. */
const concentrated = { distinct_payers: 3, top_payer_share: 0.9, payments: 20 };
/** Who pays: `share` of the nominal from payers PAY_TO funded. */
const selfFunded = (share: number) => ({ self_funded_share: share, self_funded_payers: 9, funding_links: [link], funding_links_total: 9 });

/** A trustworthy https service: listed 30 days, healthy, consistent, known asset, paid before, valid proof. */
function honest(): TrustEvidence {
  return {
    url: 'https://api.example.com/paid',
    live: {
      outcome: 'payment_required',
      http_status: 402,
      error: null,
      final_url: 'https://api.example.com/paid',
      redirect_refused: false,
    },
    offers: [offer()],
    challenge_errors: [],
    listing: {
      provider_domain: 'api.example.com',
      service_id: 'a'.repeat(64),
      first_seen: '2026-10-01T00:00:00.000Z',
      last_checked: '2026-11-20T00:00:00.000Z',
      checks_total: 10,
      checks_healthy: 10,
      directory_sources: ['bazaar'],
    },
    history: { snapshot_id: 's1', checked_at: '2026-11-20T00:00:00.000Z', offers: [offer()] },
    assets: [{ network: 'eip155:4217', asset: PATH_USD, known: true, symbol: 'pathUSD', currency: 'USD', decimals: 6, source: 'static' }],
    pay_to_activity: [{ pay_to: PAY_TO, network: 'eip155:4217', count: 12, first_time_unix: 1_760_000_000, last_time_unix: 1_763_000_000 }],
    ownership: { status: 'valid', origin: 'https://api.example.com', proofs: 1, verified_pay_to: [PAY_TO], error: null },
    recent_changes: { window_days: 30, since: '2026-10-22T12:00:00.000Z', changes: [], new_pay_to_activity: [] },
    payers: [diversePayers()],
  };
}

/** The identity members of offer() (what a change record's before/after carry besides the changed value). */
const IDENTITY = { protocol: 'x402', x402_version: 2, scheme: 'exact', method: null, network: 'eip155:4217', asset: PATH_USD };

/** A stored change record with id `id`, between snapshots s{id-1} and s{id}. */
const change = (id: number, kind: ChangeKind, before: object, after: object, at = '2026-11-20T00:00:00.000Z'): RecentChange => ({
  id,
  service_id: 'a'.repeat(64),
  domain: 'api.example.com',
  kind,
  at,
  before_snapshot_id: `s${id - 1}`,
  after_snapshot_id: `s${id}`,
  before,
  after,
});

/** A price_changed record of offer() from `from` to `to` atomic units (6 decimals). */
const priceChange = (id: number, from: string, to: string, at?: string) =>
  change(
    id,
    'price_changed',
    { ...IDENTITY, amount_atomic: from, amount: String(Number(from) / 1e6) },
    { ...IDENTITY, amount_atomic: to, amount: String(Number(to) / 1e6) },
    at,
  );

/**
 * The service moved its payTo from PAY_TO to OTHER at the last collection (change 7): the live offer and the
 * history snapshot both name OTHER, which received `count` observed payments (null: network not observed).
 */
function payToMoved(e: TrustEvidence, count: number | null): void {
  e.offers = [offer({ pay_to: OTHER })];
  e.history!.offers = [offer({ pay_to: OTHER })];
  const act = {
    pay_to: OTHER,
    network: 'eip155:4217',
    count,
    first_time_unix: count ? 1_763_100_000 : null,
    last_time_unix: count ? 1_763_100_000 : null,
  };
  e.pay_to_activity = [act];
  e.recent_changes!.changes = [change(7, 'pay_to_changed', { ...IDENTITY, pay_to: PAY_TO }, { ...IDENTITY, pay_to: OTHER })];
  e.recent_changes!.new_pay_to_activity = [act];
}

/** The price doubled at the last collection (change 8): live and history offers both ask 20000. */
function priceDoubled(e: TrustEvidence): void {
  e.offers = [offer({ amount_atomic: '20000', amount: '0.02' })];
  e.history!.offers = [offer({ amount_atomic: '20000', amount: '0.02' })];
  e.recent_changes!.changes = [priceChange(8, '10000', '20000')];
}

const USDC_BASE = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';

/** A second honest offer beside offer(): MPP, 0.05 USDC on Base, known and seen before. */
function twoOffers(e: TrustEvidence): void {
  const second = offer({
    protocol: 'mpp',
    x402_version: null,
    network: 'eip155:8453',
    asset: USDC_BASE,
    amount_atomic: '50000',
    amount: '0.05',
  });
  e.offers = [offer(), second];
  e.history!.offers = [offer(), second];
  e.assets.push({ network: 'eip155:8453', asset: USDC_BASE, known: true, symbol: 'USDC', currency: 'USD', decimals: 6, source: 'static' });
}

/** The caller's policy `p` on honest evidence (one offer, or twoOffers when `two`). */
const withPolicy =
  (p: NonNullable<TrustEvidence['policy']>, two = false) =>
  (e: TrustEvidence) => {
    if (two) twoOffers(e);
    e.policy = p;
  };

/** [code, its severity here, the verdict on otherwise honest evidence, the change to honest(), codes it must not come with]. */
type Case = [code: ReasonCode, severity: Severity, verdict: Verdict, change: (e: TrustEvidence) => void, mustNot?: ReasonCode[]];

const honestCase = () => {};
const noOffers = (live: Partial<TrustEvidence['live']>) => (e: TrustEvidence) => {
  e.live = { ...e.live, ...live };
  e.offers = [];
};

const cases: Case[] = [
  ['payment_required_live', 'info', 'pay', honestCase],
  [
    'challenge_invalid',
    'critical',
    'do_not_pay',
    (e) => {
      noOffers({ outcome: 'invalid_challenge' })(e);
      e.challenge_errors = ['bad header'];
    },
  ],
  ['no_payment_required', 'critical', 'do_not_pay', noOffers({ outcome: 'ok_without_payment', http_status: 200 })],
  ['not_found', 'critical', 'do_not_pay', noOffers({ outcome: 'not_found', http_status: 404 })],
  ['http_error', 'critical', 'do_not_pay', noOffers({ outcome: 'error', http_status: 500 })],
  [
    'unreachable',
    'critical',
    'do_not_pay',
    noOffers({ outcome: 'unreachable', http_status: null, error: 'ECONNREFUSED', final_url: null }),
  ],
  ['unreachable', 'critical', 'do_not_pay', noOffers({ outcome: 'timeout', http_status: null, error: 'budget', final_url: null })],
  ['response_too_large', 'critical', 'do_not_pay', noOffers({ outcome: 'too_large' })],
  [
    'redirect_refused',
    'critical',
    'do_not_pay',
    noOffers({ outcome: 'refused', http_status: null, error: 'private', final_url: null, redirect_refused: true }),
  ],
  ['https', 'info', 'pay', honestCase, ['not_https']],
  ['not_https', 'warning', 'caution', (e) => (e.url = 'http://api.example.com/paid'), ['https']],
  ['listed', 'info', 'pay', honestCase, ['not_listed']],
  [
    'not_listed',
    'warning',
    'caution',
    (e) => {
      e.listing = null;
      e.history = null;
    },
    ['listed'],
  ],
  ['listed_recently', 'warning', 'caution', (e) => (e.listing!.first_seen = '2026-11-19T12:00:00.000Z')],
  ['checks_healthy', 'info', 'pay', honestCase],
  ['checks_unhealthy', 'warning', 'caution', (e) => (e.listing!.checks_healthy = 3), ['checks_healthy']],
  ['directory_listed', 'info', 'pay', honestCase],
  ['directory_absent', 'info', 'pay', (e) => (e.listing!.directory_sources = [])],
  ['pay_to_changed', 'critical', 'do_not_pay', (e) => (e.offers = [offer({ pay_to: OTHER })]), ['history_consistent']],
  ['network_changed', 'warning', 'caution', (e) => (e.history!.offers = [offer({ network: 'eip155:8453' })]), ['history_consistent']],
  [
    'asset_changed',
    'warning',
    'caution',
    (e) => (e.history!.offers = [offer({ asset: '0x20c0000000000000000000000000000000000001' })]),
    ['history_consistent'],
  ],
  ['price_anomaly', 'critical', 'do_not_pay', (e) => (e.offers = [offer({ amount_atomic: '10000000000' })])],
  ['price_anomaly', 'critical', 'do_not_pay', (e) => (e.offers = [offer({ amount_atomic: '10' })])],
  ['price_changed', 'warning', 'caution', (e) => (e.offers = [offer({ amount_atomic: '20000' })]), ['price_anomaly']],
  ['history_consistent', 'info', 'pay', honestCase],
  ['pay_to_changed_recently', 'critical', 'do_not_pay', (e) => payToMoved(e, 0), ['history_consistent', 'pay_to_changed']],
  ['pay_to_changed_recently', 'critical', 'do_not_pay', (e) => payToMoved(e, null), ['history_consistent']],
  ['pay_to_changed_recently', 'warning', 'caution', (e) => payToMoved(e, 3), ['history_consistent']],
  ['price_raised_recently', 'warning', 'caution', priceDoubled, ['history_consistent', 'price_sane', 'price_changed']],
  [
    'network_or_asset_changed_recently',
    'warning',
    'caution',
    (e) => {
      e.recent_changes!.changes = [
        change(
          9,
          'network_changed',
          { ...IDENTITY, network: 'eip155:8453', asset: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913' },
          IDENTITY,
        ),
      ];
    },
    ['history_consistent'],
  ],
  [
    'network_or_asset_changed_recently',
    'warning',
    'caution',
    (e) => {
      e.recent_changes!.changes = [
        change(9, 'asset_changed', { ...IDENTITY, asset: '0x20c0000000000000000000000000000000000001' }, IDENTITY),
      ];
    },
    ['history_consistent'],
  ],
  ['amount_not_atomic', 'critical', 'do_not_pay', (e) => (e.offers = [offer({ amount_atomic: '0.01' })]), ['price_sane']],
  [
    'price_missing',
    'warning',
    'caution',
    (e) => {
      e.offers = [offer({ amount_atomic: null })];
    },
    ['price_sane'],
  ],
  [
    'price_zero',
    'warning',
    'caution',
    (e) => {
      e.offers = [offer({ amount_atomic: '0' })];
      e.history = null;
    },
    ['price_sane'],
  ],
  [
    'price_implausible',
    'critical',
    'do_not_pay',
    (e) => {
      e.offers = [offer({ amount_atomic: '50000000000' })];
      e.history = null;
    },
  ],
  [
    'price_high',
    'warning',
    'caution',
    (e) => {
      e.offers = [offer({ amount_atomic: '500000000' })];
      e.history = null;
    },
  ],
  ['price_sane', 'info', 'pay', honestCase],
  ['asset_known', 'info', 'pay', honestCase],
  [
    'asset_unknown',
    'warning',
    'caution',
    (e) => {
      e.assets = [{ network: 'eip155:4217', asset: PATH_USD, known: false, symbol: null, currency: null, decimals: null, source: null }];
    },
    ['price_sane', 'asset_known'],
  ],
  ['pay_to_observed_payments', 'info', 'pay', honestCase],
  [
    'pay_to_no_observed_payments',
    'warning',
    'caution',
    (e) => (e.pay_to_activity[0] = { ...e.pay_to_activity[0], count: 0, first_time_unix: null, last_time_unix: null }),
  ],
  ['pay_to_activity_unknown', 'info', 'pay', (e) => (e.pay_to_activity[0] = { ...e.pay_to_activity[0], count: null })],
  ['ownership_proof_valid', 'info', 'pay', honestCase],
  ['ownership_proof_invalid', 'critical', 'do_not_pay', (e) => (e.ownership = { ...e.ownership, status: 'invalid', verified_pay_to: [] })],
  ['ownership_proof_absent', 'info', 'pay', (e) => (e.ownership = { ...e.ownership, status: 'absent', proofs: 0, verified_pay_to: [] })],
  ['mainnet', 'info', 'pay', honestCase, ['testnet']],
  [
    'testnet',
    'info',
    'pay',
    (e) => {
      e.offers = [offer({ network: 'eip155:84532', asset: '0x036cbd53842c5426634e7929541ec2318f3dcf7e' })];
      e.history = { snapshot_id: null, checked_at: null, offers: e.offers };
      e.assets = [
        {
          network: 'eip155:84532',
          asset: '0x036cbd53842c5426634e7929541ec2318f3dcf7e',
          known: true,
          symbol: 'USDC',
          currency: 'USD',
          decimals: 6,
          source: 'static',
        },
      ];
      e.pay_to_activity = [{ pay_to: PAY_TO, network: 'eip155:84532', count: null, first_time_unix: null, last_time_unix: null }];
    },
    ['mainnet'],
  ],
  ['network_unknown', 'warning', 'caution', (e) => (e.offers = [offer({ network: 'eip155:999999' })])],
  ['price_above_policy', 'critical', 'do_not_pay', withPolicy({ max_amount: '0.005' })],
  ['price_above_policy', 'info', 'pay', withPolicy({ max_amount: '0.02' }, true)],
  ['asset_not_allowed', 'critical', 'do_not_pay', withPolicy({ assets: [USDC_BASE] }), ['price_above_policy']],
  ['asset_not_allowed', 'info', 'pay', withPolicy({ assets: [PATH_USD.toUpperCase().replace('0X', '0x')] }, true)],
  ['network_not_allowed', 'critical', 'do_not_pay', withPolicy({ networks: ['eip155:8453'] })],
  ['network_not_allowed', 'info', 'pay', withPolicy({ networks: ['eip155:4217'] }, true)],
  ['protocol_not_allowed', 'critical', 'do_not_pay', withPolicy({ protocols: ['mpp'] })],
  ['protocol_not_allowed', 'info', 'pay', withPolicy({ protocols: ['x402'] }, true)],
  ['pay_to_diverse_payers', 'info', 'pay', honestCase, ['pay_to_few_payers', 'pay_to_payers_concentrated', 'pay_to_self_funded']],
  ['pay_to_payers_concentrated', 'warning', 'caution', (e) => (e.payers = [diversePayers(concentrated)]), ['pay_to_diverse_payers']],
  ['pay_to_self_funded', 'warning', 'caution', (e) => (e.payers = [diversePayers(selfFunded(0.5))]), ['pay_to_diverse_payers']],
  ['pay_to_self_funded', 'critical', 'do_not_pay', (e) => (e.payers = [diversePayers(selfFunded(0.8))])],
  [
    'pay_to_few_payers',
    'info',
    'pay',
    (e) => (e.payers = [diversePayers({ distinct_payers: 4, top_payer_share: 0.9, payments: 4 })]),
    ['pay_to_payers_concentrated', 'pay_to_diverse_payers'],
  ],
];

/** A payee-only check of PAY_TO: paid for 50 days, advertised by one listed service, no recent change. */
function honestPayTo(): PayToEvidence {
  return {
    pay_to: PAY_TO,
    network: 'eip155:4217',
    activity: { pay_to: PAY_TO, network: 'eip155:4217', count: 12, first_time_unix: 1_759_363_200, last_time_unix: 1_763_000_000 },
    services: [
      {
        service_id: 'a'.repeat(64),
        domain: 'api.example.com',
        url: 'https://api.example.com/paid',
        first_advertised: '2026-10-01T00:00:00.000Z',
        last_advertised: '2026-11-20T00:00:00.000Z',
        last_checked: '2026-11-20T00:00:00.000Z',
      },
    ],
    services_total: 1,
    recent_changes: { window_days: 30, since: '2026-10-22T12:00:00.000Z', changes: [], new_pay_to_activity: [] },
    payers: diversePayers(),
  };
}

type PayToCase = [code: ReasonCode, severity: Severity, verdict: Verdict, change: (e: PayToEvidence) => void, mustNot?: ReasonCode[]];
const movedHere = (count: number) => (e: PayToEvidence) => {
  e.activity = { ...e.activity, count, first_time_unix: count ? 1_759_363_200 : null, last_time_unix: count ? 1_763_000_000 : null };
  e.recent_changes.changes = [change(7, 'pay_to_changed', { ...IDENTITY, pay_to: OTHER }, { ...IDENTITY, pay_to: PAY_TO })];
  e.recent_changes.new_pay_to_activity = [e.activity];
};

/** The payee-only check's table (assessPayTo): each code on otherwise honest evidence. */
const payToCases: PayToCase[] = [
  ['pay_to_advertised', 'info', 'pay', () => {}, ['pay_to_not_advertised']],
  [
    'pay_to_not_advertised',
    'warning',
    'caution',
    (e) => {
      e.services = [];
      e.services_total = 0;
    },
    ['pay_to_advertised'],
  ],
  ['pay_to_first_paid_recently', 'warning', 'caution', (e) => (e.activity.first_time_unix = Math.floor(NOW.getTime() / 1000) - 86_400)],
  ['pay_to_observed_payments', 'info', 'pay', () => {}, ['pay_to_first_paid_recently']],
  [
    'pay_to_no_observed_payments',
    'warning',
    'caution',
    (e) => (e.activity = { ...e.activity, count: 0, first_time_unix: null, last_time_unix: null }),
  ],
  [
    'pay_to_activity_unknown',
    'info',
    'pay',
    (e) => (e.activity = { ...e.activity, count: null, first_time_unix: null, last_time_unix: null }),
  ],
  ['pay_to_changed_recently', 'critical', 'do_not_pay', movedHere(0)],
  ['pay_to_changed_recently', 'warning', 'caution', movedHere(3)],
  ['mainnet', 'info', 'pay', () => {}],
  ['pay_to_diverse_payers', 'info', 'pay', () => {}, ['pay_to_few_payers']],
  ['pay_to_payers_concentrated', 'warning', 'caution', (e) => (e.payers = diversePayers(concentrated))],
  ['pay_to_self_funded', 'warning', 'caution', (e) => (e.payers = diversePayers(selfFunded(0.79)))],
  ['pay_to_self_funded', 'critical', 'do_not_pay', (e) => (e.payers = diversePayers(selfFunded(0.95)))],
  ['pay_to_few_payers', 'info', 'pay', (e) => (e.payers = diversePayers({ distinct_payers: 0, top_payer_share: null, payments: 0 }))],
  [
    'network_unknown',
    'warning',
    'caution',
    (e) => {
      e.network = 'eip155:999999';
      e.activity = { ...e.activity, network: e.network, count: null, first_time_unix: null, last_time_unix: null };
    },
  ],
];

describe('assessPayTo', () => {
  it.each(payToCases)('%s is %s → %s', (code, severity, verdict, change, mustNot = []) => {
    const e = honestPayTo();
    change(e);
    const a = assessPayTo(e, NOW);
    expect(a.reasons.filter((r) => r.code === code).map((r) => r.severity)).toContain(severity);
    expect(a.verdict).toBe(verdict);
    for (const c of mustNot) expect(a.reasons.map((r) => r.code)).not.toContain(c);
  });

  it('cites the services and the change records it rests on', () => {
    const e = honestPayTo();
    movedHere(3)(e);
    const a = assessPayTo(e, NOW);
    expect(a.signals).toMatchObject({ services: { total: 1, listed: 1 }, recent_changes: { change_ids: [7] } });
    expect(a.reasons.find((r) => r.code === 'pay_to_advertised')?.evidence.services).toEqual([
      expect.objectContaining({ url: 'https://api.example.com/paid', first_advertised: '2026-10-01T00:00:00.000Z' }),
    ]);
  });
});

/** Evaluates honest() changed by `change`. */
function assess(change: (e: TrustEvidence) => void) {
  const e = honest();
  change(e);
  return assessTrust(e, NOW);
}

describe('assessTrust', () => {
  it.each(cases)('%s is %s → %s', (code, severity, verdict, change, mustNot = []) => {
    const a = assess(change);
    expect(a.reasons.filter((r) => r.code === code).map((r) => r.severity)).toContain(severity);
    expect(a.verdict).toBe(verdict);
    const got = a.reasons.map((r) => r.code);
    for (const c of mustNot) expect(got).not.toContain(c);
  });

  it('the tables pin every code the engine can emit, with every severity it may carry', () => {
    const pinned = new Set([...cases, ...payToCases].map(([code, severity]) => `${code}:${severity}`));
    const table = REASON_CODES.flatMap((code) => REASON_SEVERITIES[code].map((severity) => `${code}:${severity}`));
    expect([...pinned].sort()).toEqual([...table].sort());
  });

  it('honest evidence gives only info reasons and pay', () => {
    const a = assess(honestCase);
    expect(a.verdict).toBe('pay');
    expect(a.reasons.filter((r) => r.severity !== 'info')).toEqual([]);
  });

  it('orders reasons critical, warning, info and reports the signals used', () => {
    const a = assess((e) => {
      e.url = 'http://api.example.com/paid';
      e.offers = [offer({ pay_to: OTHER })];
    });
    const sev = a.reasons.map((r) => r.severity);
    expect(sev).toEqual([...sev].sort((x, y) => ['critical', 'warning', 'info'].indexOf(x) - ['critical', 'warning', 'info'].indexOf(y)));
    expect(a.signals.history).toMatchObject({ compared: true, pay_to_consistent: false });
    expect(a.signals.https).toBe(false);
    expect(a.signals.price[0]).toMatchObject({ amount_atomic: '10000', amount: '0.01', dollars: '0.01' });
  });
});

describe('recent changes', () => {
  const reason = (a: ReturnType<typeof assessTrust>, code: ReasonCode) => a.reasons.filter((r) => r.code === code);

  it("pay_to_changed_recently cites its change record and the new payTo's observed payments", () => {
    const a = assess((e) => payToMoved(e, 0));
    expect(reason(a, 'pay_to_changed_recently')).toEqual([
      expect.objectContaining({
        severity: 'critical',
        evidence: expect.objectContaining({
          pay_to: OTHER,
          previous_pay_to: [PAY_TO],
          network: 'eip155:4217',
          change_ids: [7],
          snapshot_ids: ['s6', 's7'],
          changed_at: '2026-11-20T00:00:00.000Z',
          inbound_payments: { count: 0, first_time_unix: null, last_time_unix: null },
        }),
      }),
    ]);
    expect(a.signals.recent_changes).toEqual({ window_days: 30, since: '2026-10-22T12:00:00.000Z', change_ids: [7] });
  });

  it('one pay_to_changed_recently per new payTo: a move back to a paid wallet is a warning, the unpaid one stays critical', () => {
    const a = assess((e) => {
      payToMoved(e, 0);
      e.offers = [offer()];
      e.history!.offers = [offer()];
      e.pay_to_activity = honest().pay_to_activity;
      e.recent_changes!.changes.push(
        change(8, 'pay_to_changed', { ...IDENTITY, pay_to: OTHER }, { ...IDENTITY, pay_to: PAY_TO }, '2026-11-20T06:00:00.000Z'),
      );
      e.recent_changes!.new_pay_to_activity.push(honest().pay_to_activity[0]);
    });
    expect(reason(a, 'pay_to_changed_recently').map((r) => [r.severity, r.evidence.pay_to, r.evidence.change_ids])).toEqual([
      ['critical', OTHER, [7]],
      ['warning', PAY_TO, [8]],
    ]);
  });

  it('price_raised_recently carries the exact old and new amounts and its records', () => {
    const [r] = reason(assess(priceDoubled), 'price_raised_recently');
    expect(r.evidence).toMatchObject({
      old_amount_atomic: '10000',
      new_amount_atomic: '20000',
      old_amount: '0.01',
      new_amount: '0.02',
      ratio: '2',
      change_ids: [8],
      snapshot_ids: ['s7', 's8'],
      network: 'eip155:4217',
      asset: PATH_USD,
    });
  });

  it('two raised offers of one URL are named apart in their messages', () => {
    const MPP = { protocol: 'mpp', x402_version: null, scheme: null, method: 'charge', network: 'eip155:4217', asset: PATH_USD };
    const a = assess((e) => {
      e.recent_changes!.changes = [
        change(1, 'price_changed', { ...IDENTITY, amount_atomic: '10000' }, { ...IDENTITY, amount_atomic: '20000' }),
        change(2, 'price_changed', { ...MPP, amount_atomic: '10000' }, { ...MPP, amount_atomic: '20000' }),
      ];
    });
    expect(reason(a, 'price_raised_recently').map((r) => r.message)).toEqual([
      `x402 v2 exact on eip155:4217 in ${PATH_USD}: price rose from 10000 to 20000 atomic units (more than 50%) within 30 days`,
      `mpp charge on eip155:4217 in ${PATH_USD}: price rose from 10000 to 20000 atomic units (more than 50%) within 30 days`,
    ]);
  });

  it.each([
    ['a 50% rise is not more than 50%', [['10000', '15000']], null],
    ['a 51% rise', [['10000', '15100']], { old: '10000', now: '15100', ids: [1] }],
    [
      'two rises of 30% add up',
      [
        ['10000', '13000'],
        ['13000', '16900'],
      ],
      { old: '10000', now: '16900', ids: [1, 2] },
    ],
    [
      'a cut then a rise counts from the low',
      [
        ['10000', '5000'],
        ['5000', '8000'],
      ],
      { old: '5000', now: '8000', ids: [1, 2] },
    ],
    ['a cut alone is not a rise', [['10000', '5000']], null],
    ['a rise from zero', [['0', '10000']], { old: '0', now: '10000', ids: [1] }],
  ] as const)('%s', (_name, steps, expected) => {
    const a = assess((e) => {
      e.recent_changes!.changes = steps.map(([from, to], i) => priceChange(i + 1, from, to, `2026-11-${10 + i}T00:00:00.000Z`));
    });
    const got = reason(a, 'price_raised_recently').map((r) => ({
      old: r.evidence.old_amount_atomic,
      now: r.evidence.new_amount_atomic,
      ids: r.evidence.change_ids,
    }));
    expect(got).toEqual(expected ? [expected] : []);
    expect(a.reasons.some((r) => r.code === 'history_consistent')).toBe(expected === null);
  });

  it('a price change that moved the offer to another asset compares no amounts', () => {
    const a = assess((e) => {
      e.recent_changes!.changes = [
        change(
          1,
          'price_changed',
          { ...IDENTITY, asset: '0x20c0000000000000000000000000000000000001', amount_atomic: '1' },
          { ...IDENTITY, amount_atomic: '10000' },
        ),
      ];
    });
    expect(reason(a, 'price_raised_recently')).toEqual([]);
  });

  it('network_or_asset_changed_recently names its record', () => {
    const a = assess((e) => {
      e.recent_changes!.changes = [
        change(9, 'asset_changed', { ...IDENTITY, asset: '0x20c0000000000000000000000000000000000001' }, IDENTITY),
      ];
    });
    expect(reason(a, 'network_or_asset_changed_recently')[0].evidence).toMatchObject({
      kind: 'asset_changed',
      before: { network: 'eip155:4217', asset: '0x20c0000000000000000000000000000000000001' },
      after: { network: 'eip155:4217', asset: PATH_USD },
      change_ids: [9],
      snapshot_ids: ['s8', 's9'],
    });
  });
});

describe('docs/trust-check.md', () => {
  it('its reason-code table lists exactly the codes the engine can emit, with their severities', () => {
    const doc = readFileSync(new URL('../../docs/trust-check.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Reason codes'));
    const rows = section
      .slice(0, section.indexOf('\n## ', 1))
      .split('\n')
      .filter((l) => l.startsWith('| `'));
    const documented = Object.fromEntries(
      rows.map((l) => {
        const [code, severity] = l
          .split('|')
          .slice(1, 3)
          .map((c) => c.trim());
        return [code.replace(/`/g, ''), severity.split('/').map((x) => x.trim())];
      }),
    );
    expect(documented).toEqual(Object.fromEntries(REASON_CODES.map((c) => [c, [...REASON_SEVERITIES[c]]])));
  });
});

describe('who pays', () => {
  const observed = (a: ReturnType<typeof assess>) => a.reasons.find((r) => r.code === 'pay_to_observed_payments');

  it('observed payments no longer lift the verdict alone when concentrated or self-funded', () => {
    for (const who of [concentrated, selfFunded(0.6)]) {
      const a = assess((e) => (e.payers = [diversePayers(who)]));
      expect(a.verdict).toBe('caution');
      expect(observed(a)?.evidence.independent_payers).toBe(false);
      expect(observed(a)?.message).toContain('not evidence of independent use');
    }
    expect(observed(assess(honestCase))?.evidence.independent_payers).toBe(true);
  });

  it('each payer reason names its evidence: counts, addresses, transaction hashes', () => {
    const c = assess((e) => (e.payers = [diversePayers(concentrated)])).reasons.find((r) => r.code === 'pay_to_payers_concentrated');
    expect(c?.evidence).toMatchObject({
      pay_to: PAY_TO,
      top_payer: OTHER,
      top_payer_share: 0.9,
      payments: 20,
      top_payer_tx: `0x${'1'.repeat(64)}`,
    });
    const s = assess((e) => (e.payers = [diversePayers(selfFunded(0.6))])).reasons.find((r) => r.code === 'pay_to_self_funded');
    expect(s?.evidence).toMatchObject({
      self_funded_share: 0.6,
      self_funded_payers: 9,
      funding_links: [link],
      covered_since: 1_761_091_200,
    });
  });

  it('the thresholds hold at their edges', () => {
    const codes = (o: Partial<PayerAnalysis>) => assess((e) => (e.payers = [diversePayers(o)])).reasons.map((r) => r.code);
    expect(codes({ ...concentrated, payments: 4 })).not.toContain('pay_to_payers_concentrated');
    expect(codes({ ...concentrated, top_payer_share: 0.79 })).not.toContain('pay_to_payers_concentrated');
    expect(codes(selfFunded(0.49))).not.toContain('pay_to_self_funded');
    expect(codes({ distinct_payers: 5 })).not.toContain('pay_to_few_payers');
    expect(codes({ distinct_payers: 9 })).not.toContain('pay_to_diverse_payers');
    expect(codes({ top_payer_share: 0.5 })).not.toContain('pay_to_diverse_payers');
    const a = assess((e) => (e.payers = [diversePayers(selfFunded(0.8))]));
    expect(a.reasons.find((r) => r.code === 'pay_to_self_funded')?.severity).toBe('critical');
  });
});

describe("the caller's policy", () => {
  const policyOf = (p: NonNullable<TrustEvidence['policy']>, change: (e: TrustEvidence) => void = () => {}) =>
    assess((e) => {
      change(e);
      e.policy = p;
    });

  it('names the offers outside it and the ones within it', () => {
    const a = policyOf({ max_amount: '0.02' }, twoOffers);
    expect(a.policy).toEqual({ satisfied: true, offers_within_policy: [0] });
    const [r] = a.reasons.filter((x) => x.code === 'price_above_policy');
    expect(r.message).toContain('1 (0.05 USD against 0.02)');
    expect(r.evidence.offers).toEqual([expect.objectContaining({ index: 1, amount: '0.05', unit: 'USD', max_amount: '0.02' })]);
  });

  it('max_amount is inclusive and exact', () => {
    expect(policyOf({ max_amount: '0.01' }).policy).toEqual({ satisfied: true, offers_within_policy: [0] });
    expect(policyOf({ max_amount: '0.0099999999' }).policy).toEqual({ satisfied: false, offers_within_policy: [] });
  });

  it('an asset without a dollar value meets max_amount only when named in assets, compared in its units', () => {
    const eur = '0x20c0000000000000000000000000000000000abc';
    const inEur = (e: TrustEvidence) => {
      e.offers = [offer({ asset: eur })];
      e.history!.offers = e.offers;
      e.assets = [{ network: 'eip155:4217', asset: eur, known: true, symbol: 'EURC', currency: 'EUR', decimals: 6, source: 'chain' }];
    };
    const unnamed = policyOf({ max_amount: '1' }, inEur);
    expect(unnamed.verdict).toBe('do_not_pay');
    expect(unnamed.reasons.map((r) => r.code)).toContain('asset_not_allowed');
    expect(policyOf({ max_amount: '1', assets: [eur] }, inEur).policy?.satisfied).toBe(true);
    expect(policyOf({ max_amount: '0.001', assets: [eur] }, inEur).reasons.map((r) => r.code)).toContain('price_above_policy');
  });

  it('no policy: no policy reasons and policy null', () => {
    const a = assess(honestCase);
    expect(a.policy).toBeNull();
  });
});
