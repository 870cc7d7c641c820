/**
 * assessTrust over a table of evidence cases: each case names the verdict and the reason codes it must produce
 * (and codes it must not), so every rule in docs/trust-check.md is pinned.
 */
import { describe, expect, it } from 'vitest';
import { assessTrust } from '../../src/trust/assess.js';
import type { Offer } from '../../src/intel/types.js';
import type { TrustEvidence } from '../../src/trust/types.js';

const NOW = new Date('2026-11-21T12:00:00Z');
const PAY_TO = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const OTHER = '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc';
const PATH_USD = '0x20c0000000000000000000000000000000000000';

const offer = (o: Partial<Offer> = {}): Offer => ({
  protocol: 'x402', x402_version: 2, scheme: 'exact', method: null, network: 'eip155:4217', asset: PATH_USD, amount_atomic: '10000', amount: '0.01', decimals: 6,
  pay_to: PAY_TO, max_timeout_seconds: 60, expires: null, description: null, resource: null, extra: null, source: 'header', ...o,
});

/** A trustworthy https service: listed 30 days, healthy, consistent, known asset, paid before, valid proof. */
function honest(): TrustEvidence {
  return {
    url: 'https://api.example.com/paid',
    live: { outcome: 'payment_required', http_status: 402, error: null, final_url: 'https://api.example.com/paid', redirect_refused: false },
    offers: [offer()],
    challenge_errors: [],
    listing: { provider_domain: 'api.example.com', service_id: 'a'.repeat(64), first_seen: '2026-10-01T00:00:00.000Z', last_checked: '2026-11-20T00:00:00.000Z', checks_total: 10, checks_healthy: 10, directory_sources: ['bazaar'] },
    history: { snapshot_id: 's1', checked_at: '2026-11-20T00:00:00.000Z', offers: [offer()] },
    assets: [{ network: 'eip155:4217', asset: PATH_USD, known: true, symbol: 'pathUSD', currency: 'USD', decimals: 6, source: 'static' }],
    pay_to_activity: [{ pay_to: PAY_TO, network: 'eip155:4217', count: 12, first_time_unix: 1_760_000_000, last_time_unix: 1_763_000_000 }],
    ownership: { status: 'valid', origin: 'https://api.example.com', proofs: 1, verified_pay_to: [PAY_TO], error: null },
  };
}

type Case = [name: string, change: (e: TrustEvidence) => void, verdict: string, must: string[], mustNot?: string[]];

const cases: Case[] = [
  ['honest https service', () => {}, 'pay', ['payment_required_live', 'https', 'listed', 'checks_healthy', 'directory_listed', 'history_consistent', 'price_sane', 'asset_known', 'pay_to_observed_payments', 'ownership_proof_valid', 'mainnet'], ['not_https']],
  ['plain http', (e) => (e.url = 'http://api.example.com/paid'), 'caution', ['not_https']],
  ['payTo changed', (e) => (e.offers = [offer({ pay_to: OTHER })]), 'do_not_pay', ['pay_to_changed'], ['history_consistent']],
  ['price 10^6 × history', (e) => (e.offers = [offer({ amount_atomic: '10000000000' })]), 'do_not_pay', ['price_anomaly']],
  ['price 1/1000 of history', (e) => (e.offers = [offer({ amount_atomic: '10' })]), 'do_not_pay', ['price_anomaly']],
  ['price doubled', (e) => (e.offers = [offer({ amount_atomic: '20000' })]), 'caution', ['price_changed'], ['price_anomaly']],
  ['decimal amount in the atomic field', (e) => (e.offers = [offer({ amount_atomic: '0.01' })]), 'do_not_pay', ['amount_not_atomic']],
  ['500 dollars per call', (e) => {
    e.offers = [offer({ amount_atomic: '500000000' })];
    e.history = null;
  }, 'caution', ['price_high']],
  ['50,000 dollars per call', (e) => {
    e.offers = [offer({ amount_atomic: '50000000000' })];
    e.history = null;
  }, 'do_not_pay', ['price_implausible']],
  ['unknown asset on Tempo', (e) => {
    e.assets = [{ network: 'eip155:4217', asset: PATH_USD, known: false, symbol: null, currency: null, decimals: null, source: null }];
  }, 'caution', ['asset_unknown'], ['price_sane']],
  ['asset changed', (e) => (e.history!.offers = [offer({ asset: '0x20c0000000000000000000000000000000000001' })]), 'caution', ['asset_changed']],
  ['network changed', (e) => (e.history!.offers = [offer({ network: 'eip155:8453' })]), 'caution', ['network_changed']],
  ['not listed', (e) => {
    e.listing = null;
    e.history = null;
  }, 'caution', ['not_listed'], ['listed']],
  ['listed 2 days ago', (e) => (e.listing!.first_seen = '2026-11-19T12:00:00.000Z'), 'caution', ['listed_recently']],
  ['unhealthy checks', (e) => (e.listing!.checks_healthy = 3), 'caution', ['checks_unhealthy']],
  ['found only by probing', (e) => (e.listing!.directory_sources = []), 'pay', ['directory_absent']],
  ['payTo never paid on chain', (e) => (e.pay_to_activity[0] = { ...e.pay_to_activity[0], count: 0, first_time_unix: null, last_time_unix: null }), 'caution', ['pay_to_no_observed_payments']],
  ['network not observed', (e) => (e.pay_to_activity[0] = { ...e.pay_to_activity[0], count: null }), 'pay', ['pay_to_activity_unknown']],
  ['ownership proof invalid', (e) => (e.ownership = { ...e.ownership, status: 'invalid', verified_pay_to: [] }), 'do_not_pay', ['ownership_proof_invalid']],
  ['ownership proof absent', (e) => (e.ownership = { ...e.ownership, status: 'absent', proofs: 0, verified_pay_to: [] }), 'pay', ['ownership_proof_absent']],
  ['testnet', (e) => {
    e.offers = [offer({ network: 'eip155:84532', asset: '0x036cbd53842c5426634e7929541ec2318f3dcf7e' })];
    e.history = { snapshot_id: null, checked_at: null, offers: e.offers };
    e.assets = [{ network: 'eip155:84532', asset: '0x036cbd53842c5426634e7929541ec2318f3dcf7e', known: true, symbol: 'USDC', currency: 'USD', decimals: 6, source: 'static' }];
    e.pay_to_activity = [{ pay_to: PAY_TO, network: 'eip155:84532', count: null, first_time_unix: null, last_time_unix: null }];
  }, 'pay', ['testnet'], ['mainnet']],
  ['unknown network', (e) => (e.offers = [offer({ network: 'eip155:999999' })]), 'caution', ['network_unknown']],
  ['200 without payment', (e) => {
    e.live = { ...e.live, outcome: 'ok_without_payment', http_status: 200 };
    e.offers = [];
  }, 'do_not_pay', ['no_payment_required']],
  ['malformed challenge', (e) => {
    e.live = { ...e.live, outcome: 'invalid_challenge' };
    e.offers = [];
    e.challenge_errors = ['bad header'];
  }, 'do_not_pay', ['challenge_invalid']],
  ['unreachable', (e) => {
    e.live = { outcome: 'unreachable', http_status: null, error: 'ECONNREFUSED', final_url: null, redirect_refused: false };
    e.offers = [];
  }, 'do_not_pay', ['unreachable']],
  ['timeout', (e) => {
    e.live = { outcome: 'timeout', http_status: null, error: 'budget', final_url: null, redirect_refused: false };
    e.offers = [];
  }, 'do_not_pay', ['unreachable']],
  ['redirect to a refused address', (e) => {
    e.live = { outcome: 'refused', http_status: null, error: 'private', final_url: null, redirect_refused: true };
    e.offers = [];
  }, 'do_not_pay', ['redirect_refused']],
  ['server error', (e) => {
    e.live = { ...e.live, outcome: 'error', http_status: 500 };
    e.offers = [];
  }, 'do_not_pay', ['http_error']],
  ['not found', (e) => {
    e.live = { ...e.live, outcome: 'not_found', http_status: 404 };
    e.offers = [];
  }, 'do_not_pay', ['not_found']],
];

describe('assessTrust', () => {
  it.each(cases)('%s → %s', (_name, change, verdict, must, mustNot = []) => {
    const e = honest();
    change(e);
    const a = assessTrust(e, NOW);
    const got = a.reasons.map((r) => r.code);
    expect(a.verdict).toBe(verdict);
    expect(got).toEqual(expect.arrayContaining(must));
    for (const c of mustNot) expect(got).not.toContain(c);
  });

  it('orders reasons critical, warning, info and reports the signals used', () => {
    const e = honest();
    e.url = 'http://api.example.com/paid';
    e.offers = [offer({ pay_to: OTHER })];
    const a = assessTrust(e, NOW);
    const sev = a.reasons.map((r) => r.severity);
    expect(sev).toEqual([...sev].sort((x, y) => ['critical', 'warning', 'info'].indexOf(x) - ['critical', 'warning', 'info'].indexOf(y)));
    expect(a.signals.history).toMatchObject({ compared: true, pay_to_consistent: false });
    expect(a.signals.https).toBe(false);
    expect(a.signals.price[0]).toMatchObject({ amount_atomic: '10000', amount: '0.01', dollars: '0.01' });
  });
});
