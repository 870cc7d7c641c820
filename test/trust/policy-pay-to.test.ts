/**
 * The caller's policy on POST /v1/check against a real paid service (@x402/hono demo service on anvil), and the
 * payee-only check POST /v1/check/pay-to over seeded intel history and chain observations on both dialects: the
 * verdicts, the listed services with their dates, 400s for bad bodies (never metered), metering like /v1/check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import { startPaidServices, type PaidServices } from '../../src/demo/paid-services/index.js';
import { ANVIL_KEYS, startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { usageCounter } from '../../src/store/trust/index.js';
import { issueApiKey } from '../../src/trust/keys.js';
import { utcMonth } from '../../src/trust/metering.js';
import type { Offer } from '../../src/domain/intel.js';
import { DIALECTS } from '../helpers/db.js';
import { codes, post, seedHistory, seedPayment, startVerify, type VerifyHarness } from './helpers.js';

describe('POST /v1/check with a policy (demo x402 service on anvil)', () => {
  let anvil: AnvilNode;
  let paid: PaidServices;
  let h: VerifyHarness;
  let auth: string;
  let keyId: string;
  let url: string;
  beforeAll(async () => {
    anvil = await startAnvil();
    paid = await startPaidServices({ rpcUrl: anvil.rpcUrl });
    h = await startVerify('sqlite', { rpcUrl: anvil.rpcUrl });
    const { key, row } = await issueApiKey(h.store, 'free', 'operator');
    auth = `Bearer ${key}`;
    keyId = row.id;
    url = paid.services.find((s) => s.name === 'x402-v2-weather')!.url;
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await paid?.stop();
    await anvil?.stop();
  });
  const check = (body: unknown) => post(h.url, '/v1/check', body, { authorization: auth });

  it('a max_amount below the offer: do_not_pay naming the offer, policy not satisfied', async () => {
    const plain = await check({ url });
    expect(plain.status).toBe(200);
    expect(plain.json.policy).toBeNull();
    const price: string = plain.json.signals.price[0].dollars;
    expect(price).toMatch(/^\d/);
    const r = await check({ url, policy: { max_amount: '0.000001' } });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.verdict).toBe('do_not_pay');
    expect(r.json.policy).toEqual({ satisfied: false, offers_within_policy: [] });
    const [reason] = r.json.reasons.filter((x: { code: string }) => x.code === 'price_above_policy');
    expect(reason.severity).toBe('critical');
    expect(reason.message).toContain(`0 (${price} USD against 0.000001)`);
    expect(reason.evidence.offers[0]).toMatchObject({ index: 0, amount: price, unit: 'USD', pay_to: plain.json.offers[0].pay_to });
  });

  it('a policy the offer meets: the verdict without a policy, and the offer within it', async () => {
    const plain = await check({ url });
    const r = await check({
      url,
      policy: { max_amount: '100', networks: [plain.json.offers[0].network], protocols: ['x402'], assets: [plain.json.offers[0].asset] },
    });
    expect(r.json.verdict).toBe(plain.json.verdict);
    expect(r.json.policy.satisfied).toBe(true);
    expect(r.json.policy.offers_within_policy).toContain(0);
    // Other offers of the service (other assets) are named at info: the caller can pay offer 0.
    const outside = r.json.reasons.filter((x: { code: string }) => x.code.endsWith('_policy') || x.code.endsWith('_not_allowed'));
    for (const x of outside) {
      expect(x.severity).toBe('info');
      expect(x.evidence.offers.map((o: { index: number }) => o.index)).not.toContain(0);
    }
    expect(outside.length > 0).toBe(plain.json.offers.length > r.json.policy.offers_within_policy.length);
    const other = await check({ url, policy: { protocols: ['mpp'] } });
    expect(other.json.verdict).toBe('do_not_pay');
    expect(codes(other.json, 'critical')).toEqual(['protocol_not_allowed']);
  });

  it('bad policies are 400 naming the member, and not metered', async () => {
    const before = (await usageCounter(h.store, keyId, utcMonth()))?.used ?? 0;
    const bad: [unknown, RegExp][] = [
      [{ max_amount: '0.05', currency: 'USD' }, /currency/],
      [{ max_amount: '-1' }, /max_amount.*decimal string/],
      [{ max_amount: '1e3' }, /max_amount/],
      [{ networks: [] }, /networks/],
      [{ protocols: ['ach'] }, /protocols/],
      [{ networks: ['base'] }, /CAIP-2/],
    ];
    for (const [policy, message] of bad) {
      const r = await check({ url, policy });
      expect(r.status, JSON.stringify(policy)).toBe(400);
      expect(r.json.error, JSON.stringify(policy)).toMatch(message);
    }
    expect((await usageCounter(h.store, keyId, utcMonth()))?.used ?? 0).toBe(before);
  });
});

const PAY_TO = privateKeyToAccount(ANVIL_KEYS[2]).address.toLowerCase();
const NEW_WALLET = privateKeyToAccount(ANVIL_KEYS[3]).address.toLowerCase();
const PAYER = privateKeyToAccount(ANVIL_KEYS[4]).address.toLowerCase();

const offer = (payTo: string): Offer => ({
  protocol: 'x402',
  x402_version: 2,
  scheme: 'exact',
  method: null,
  network: 'eip155:4217',
  asset: '0x20c0000000000000000000000000000000000000',
  amount_atomic: '10000',
  amount: '0.01',
  decimals: 6,
  pay_to: payTo,
  max_timeout_seconds: 60,
  expires: null,
  description: null,
  resource: null,
  extra: null,
  source: 'header',
});

describe.each(DIALECTS)('POST /v1/check/pay-to on %s', (dialect) => {
  let h: VerifyHarness;
  let auth: string;
  let keyId: string;
  const serviceUrl = 'https://api.example.com/weather';
  beforeAll(async () => {
    h = await startVerify(dialect);
    const { key, row } = await issueApiKey(h.store, 'free', 'operator');
    auth = `Bearer ${key}`;
    keyId = row.id;
    await seedHistory(h.store, serviceUrl, [offer(PAY_TO)], 40);
    await seedHistory(h.store, 'https://other.example.com/x', [offer(NEW_WALLET)], 40);
    // Paid twice, first on 2026-01-01: old enough.
    await seedPayment(h.store, PAYER, PAY_TO, 100, 1_767_225_600);
    await seedPayment(h.store, PAYER, PAY_TO, 101, 1_767_225_700);
  }, 60_000);
  afterAll(async () => h?.close());
  const checkPayTo = (body: unknown, headers: Record<string, string> = { authorization: auth }) =>
    post(h.url, '/v1/check/pay-to', body, headers);

  it('a paid, advertised payee: pay, with the service that advertises it and its dates; metered once', async () => {
    const before = (await usageCounter(h.store, keyId, utcMonth()))?.used ?? 0;
    const r = await checkPayTo({ pay_to: PAY_TO.toUpperCase().replace('0X', '0x') });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json).toMatchObject({ pay_to: PAY_TO, network: 'eip155:4217', verdict: 'pay', evidence_hash: null });
    // The seeded payments reach it through a leg only, which the payer analysis (primary legs) does not count.
    expect(codes(r.json).sort()).toEqual(['mainnet', 'pay_to_advertised', 'pay_to_few_payers', 'pay_to_observed_payments']);
    expect(r.json.signals.payers).toEqual([expect.objectContaining({ pay_to: PAY_TO, distinct_payers: 0, payments: 0 })]);
    expect(r.json.services).toEqual([
      expect.objectContaining({
        url: serviceUrl,
        domain: 'api.example.com',
        first_advertised: expect.any(String),
        last_checked: expect.any(String),
      }),
    ]);
    expect(r.json.signals.pay_to_activity[0]).toMatchObject({ count: 2, first_time_unix: 1_767_225_600, last_time_unix: 1_767_225_700 });
    expect(r.json.signals.services).toEqual({ total: 1, listed: 1 });
    expect((await usageCounter(h.store, keyId, utcMonth()))?.used).toBe(before + 1);
  });

  it('an advertised payee nobody paid: caution; an unknown one: also not advertised; another network: activity unknown', async () => {
    const unpaid = await checkPayTo({ pay_to: NEW_WALLET });
    expect(unpaid.json.verdict).toBe('caution');
    expect(codes(unpaid.json, 'warning')).toEqual(['pay_to_no_observed_payments']);
    const unknown = await checkPayTo({ pay_to: `0x${'12'.repeat(20)}` });
    expect(codes(unknown.json, 'warning').sort()).toEqual(['pay_to_no_observed_payments', 'pay_to_not_advertised']);
    expect(unknown.json.services).toEqual([]);
    const base = await checkPayTo({ pay_to: PAY_TO, network: 'eip155:8453' });
    expect(codes(base.json)).toContain('pay_to_activity_unknown');
    expect(codes(base.json)).toContain('pay_to_not_advertised');
    expect(base.json.signals.pay_to_activity[0].count).toBeNull();
  });

  it('bad bodies are 400 and not metered; no key is 401', async () => {
    const before = (await usageCounter(h.store, keyId, utcMonth()))?.used ?? 0;
    for (const body of [{ pay_to: '0x12' }, { pay_to: PAY_TO, url: serviceUrl }, {}, { pay_to: PAY_TO, network: 'tempo' }]) {
      const r = await checkPayTo(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(r.json)).toEqual(['error']);
    }
    expect((await usageCounter(h.store, keyId, utcMonth()))?.used ?? 0).toBe(before);
    expect((await checkPayTo({ pay_to: PAY_TO }, {})).status).toBe(401);
  });

  it('is described in the trust-check OpenAPI document', async () => {
    const doc = (await (await fetch(`${h.url}/v1/openapi.json`)).json()) as { paths: Record<string, { post?: { responses: object } }> };
    expect(Object.keys(doc.paths['/v1/check/pay-to']!.post!.responses).sort()).toEqual(['200', '400', '401', '402', '415', '429', '503']);
  });
});
