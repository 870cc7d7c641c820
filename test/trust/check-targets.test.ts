/**
 * POST /v1/check against real targets on loopback: the demo paid services (built with @x402/hono and mppx),
 * the misbehaving servers, a closed port. Each target gets its expected verdict and reason codes. History is
 * seeded through the intel store's write functions; chain observations through the chain store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Validator } from '@seriousme/openapi-schema-validator';
import { privateKeyToAccount } from 'viem/accounts';
import { startPaidServices, type PaidServices } from '../../src/demo/paid-services/index.js';
import { startBadServers, type BadServers } from '../helpers/bad-servers.js';
import { ANVIL_KEYS, freePort, startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { codes, liveOffers, post, seedHistory, seedPayment, startVerify, type VerifyHarness } from './helpers.js';

let anvil: AnvilNode;
let paid: PaidServices;
let bad: BadServers;
let h: VerifyHarness;
let key: string;
const urlOf = (name: string) => paid.services.find((s) => s.name === name)!.url;
const payer = privateKeyToAccount(ANVIL_KEYS[4]).address.toLowerCase();

beforeAll(async () => {
  anvil = await startAnvil();
  paid = await startPaidServices({ rpcUrl: anvil.rpcUrl });
  bad = await startBadServers();
  h = await startVerify('sqlite', { rpcUrl: anvil.rpcUrl });
  // History: the weather service listed 30 days ago with three healthy checks of its current offers.
  const weather = urlOf('x402-v2-weather');
  await seedHistory(h.store, weather, await liveOffers(weather));
  // Its payTo received one observed payment on chain; the MPP service's recipient received none.
  await seedPayment(h.store, payer, paid.terms('x402-v2-weather').payTo, 100, 1_767_225_600);
  key = (await post(h.url, '/v1/keys', {})).json.key;
}, 60_000);

afterAll(async () => {
  await h?.close();
  await paid?.stop();
  await bad?.stop();
  await anvil?.stop();
});

const answers: unknown[] = [];
const check = async (url: string) => {
  const r = await post(h.url, '/v1/check', { url }, { authorization: `Bearer ${key}` });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  answers.push(r.json);
  return r.json;
};

describe('POST /v1/check verdicts', () => {
  it('honest, stable, listed service: only the plain-http warning; history, asset, price and on-chain payments back it', async () => {
    const a = await check(urlOf('x402-v2-weather'));
    expect(a.verdict).toBe('caution');
    expect(codes(a, 'critical')).toEqual([]);
    expect(codes(a, 'warning')).toEqual(['not_https']);
    expect(codes(a, 'info')).toEqual(
      expect.arrayContaining([
        'payment_required_live',
        'listed',
        'checks_healthy',
        'directory_listed',
        'history_consistent',
        'price_sane',
        'asset_known',
        'pay_to_observed_payments',
        'ownership_proof_absent',
        'mainnet',
      ]),
    );
    const onChain = a.signals.pay_to_activity.find((p: { pay_to: string }) => p.pay_to === paid.terms('x402-v2-weather').payTo);
    expect(onChain).toMatchObject({ count: 1, first_time_unix: 1_767_225_600, last_time_unix: 1_767_225_600 });
    expect(a.provider.domain).toBe(new URL(urlOf('x402-v2-weather')).host);
    expect(a.service.checks_total).toBe(3);
    expect(a.offers.length).toBeGreaterThan(0);
    expect(a.evidence_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.snapshot_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.disclaimers.join(' ')).toMatch(/not honesty or task success/);
    expect(a.disclaimers.join(' ')).toMatch(/Domain control does not prove wallet control/);
  });

  it('payTo changed since listed: do_not_pay with pay_to_changed', async () => {
    const before = paid.terms('x402-v2-weather').payTo;
    paid.setPayTo('x402-v2-weather', privateKeyToAccount(ANVIL_KEYS[5]).address);
    try {
      const a = await check(urlOf('x402-v2-weather'));
      expect(a.verdict).toBe('do_not_pay');
      expect(codes(a, 'critical')).toContain('pay_to_changed');
      // The new wallet has no observed payments: that is a separate warning.
      expect(codes(a, 'warning')).toContain('pay_to_no_observed_payments');
    } finally {
      paid.setPayTo('x402-v2-weather', before);
    }
  });

  it('price 10^6 times its history: do_not_pay with price_anomaly', async () => {
    const before = paid.terms('x402-v2-weather').price;
    paid.setPrice('x402-v2-weather', (BigInt(before) * 1_000_000n).toString());
    try {
      const a = await check(urlOf('x402-v2-weather'));
      expect(a.verdict).toBe('do_not_pay');
      expect(codes(a, 'critical')).toContain('price_anomaly');
      expect(a.signals.history.price_ratio).toBe('1000000');
    } finally {
      paid.setPrice('x402-v2-weather', before);
    }
  });

  it('unlisted MPP service (mppx): caution, not listed, recipient without observed payments', async () => {
    const a = await check(urlOf('mpp-search'));
    expect(a.offers[0].protocol).toBe('mpp');
    expect(a.verdict).toBe('caution');
    expect(codes(a, 'critical')).toEqual([]);
    expect(codes(a, 'warning')).toEqual(expect.arrayContaining(['not_listed', 'pay_to_no_observed_payments']));
    expect(codes(a, 'warning')).not.toContain('pay_to_changed');
    expect(a.provider).toBeNull();
  });

  it('200 without payment: do_not_pay with no_payment_required', async () => {
    const a = await check(`${bad.origin}/free`);
    expect(a.verdict).toBe('do_not_pay');
    expect(codes(a, 'critical')).toEqual(['no_payment_required']);
  });

  it('unreachable: do_not_pay with unreachable', async () => {
    const a = await check(`http://127.0.0.1:${await freePort()}/paid`);
    expect(a.verdict).toBe('do_not_pay');
    expect(codes(a, 'critical')).toEqual(['unreachable']);
    expect(a.evidence_hash).toBeNull();
  });

  it('malformed challenge: do_not_pay with challenge_invalid', async () => {
    const a = await check(`${bad.origin}/malformed`);
    expect(a.verdict).toBe('do_not_pay');
    expect(codes(a, 'critical')).toEqual(['challenge_invalid']);
    expect(a.reasons[0].evidence.errors.length).toBeGreaterThan(0);
  });

  it('redirect to a private address: do_not_pay with redirect_refused, the private address never contacted', async () => {
    const a = await check(`${bad.origin}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`);
    expect(a.verdict).toBe('do_not_pay');
    expect(codes(a, 'critical')).toEqual(['redirect_refused']);
  });

  it('GET /v1/openapi.json is a valid OpenAPI 3.1 document and every answer above matches its 200 schema', async () => {
    const doc = await (await fetch(`${h.url}/v1/openapi.json`)).json();
    const v = await new Validator().validate(doc);
    expect(v.errors ?? []).toEqual([]);
    expect(v.valid).toBe(true);
    const schema = doc.paths['/v1/check'].post.responses['200'].content['application/json'].schema;
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
    expect(answers.length).toBeGreaterThanOrEqual(8);
    for (const a of answers) expect(validate(a) ? [] : validate.errors).toEqual([]);
  });
});
