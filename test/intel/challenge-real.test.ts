import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS } from '../../src/chain/anvil.js';
import { ALPHA_USD, BASE_SEPOLIA_USDC, PATH_USD, startPaidServices, type PaidServices } from '../../src/demo/paid-services/index.js';
import { parseChallenge } from '../../src/intel/challenge/index.js';
import { safeFetch } from '../../src/net/safe-fetch.js';

/** Challenges from the REAL servers (x402 v2 via @x402/hono, x402 v1 via x402-hono, MPP via mppx) parsed exactly. */
describe('challenges from real paid servers', () => {
  let ps: PaidServices;
  const addr = (i: number) => privateKeyToAccount(ANVIL_KEYS[i]).address.toLowerCase();
  const url = (name: string) => ps.services.find((s) => s.name === name)!.url;
  const fetchAndParse = async (name: string) => {
    const r = await safeFetch(url(name), { allowLoopback: true, headers: { accept: 'application/json' } });
    expect(r.status).toBe(402);
    return parseChallenge(r, { resourceUrl: url(name) });
  };

  beforeAll(async () => {
    ps = await startPaidServices();
  });
  afterAll(async () => {
    await ps?.stop();
  });

  it('x402 v2 (PAYMENT-REQUIRED header): two offers on Tempo', async () => {
    const { offers, errors } = await fetchAndParse('x402-v2-weather');
    expect(errors).toEqual([]);
    const common = {
      protocol: 'x402',
      x402_version: 2,
      scheme: 'exact',
      method: null,
      network: 'eip155:4217',
      amount_atomic: '10000',
      amount: '0.01',
      decimals: 6,
      pay_to: addr(1),
      max_timeout_seconds: 300,
      expires: null,
      description: 'Weather report (x402 v2 demo)',
      resource: url('x402-v2-weather'),
      source: 'header',
    };
    expect(offers).toEqual([
      { ...common, asset: PATH_USD, extra: { name: 'pathUSD', version: '1' } },
      { ...common, asset: ALPHA_USD, extra: { name: 'AlphaUSD', version: '1' } },
    ]);
  });

  it('x402 v1 (JSON body): Base Sepolia USDC', async () => {
    const { offers, errors } = await fetchAndParse('x402-v1-joke');
    expect(errors).toEqual([]);
    expect(offers).toEqual([
      {
        protocol: 'x402',
        x402_version: 1,
        scheme: 'exact',
        method: null,
        network: 'eip155:84532',
        asset: BASE_SEPOLIA_USDC,
        amount_atomic: '2000',
        amount: '0.002',
        decimals: 6,
        pay_to: addr(2),
        max_timeout_seconds: 300,
        expires: null,
        description: 'A joke (x402 v1 demo)',
        resource: url('x402-v1-joke'),
        extra: { name: 'USDC', version: '2' },
        source: 'body',
      },
    ]);
  });

  it('MPP (WWW-Authenticate: Payment): tempo charge in pathUSD', async () => {
    const { offers, errors } = await fetchAndParse('mpp-search');
    expect(errors).toEqual([]);
    expect(offers).toEqual([
      {
        protocol: 'mpp',
        x402_version: null,
        scheme: 'charge',
        method: 'tempo',
        network: 'eip155:4217',
        asset: PATH_USD,
        amount_atomic: '10000',
        amount: '0.01',
        decimals: 6,
        pay_to: addr(3),
        max_timeout_seconds: null,
        expires: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        description: 'Web search (MPP demo)',
        resource: url('mpp-search'),
        extra: { realm: 'mpp-search', methodDetails: { chainId: 4217 } },
        source: 'www-authenticate',
      },
    ]);
  });

  it('follows run-time changes of price, payTo, offers and status', async () => {
    ps.setPrice('x402-v2-weather', '12345');
    ps.setPayTo('x402-v2-weather', addr(4));
    ps.removeOffer('x402-v2-weather', ALPHA_USD);
    const v2 = await fetchAndParse('x402-v2-weather');
    expect(v2.offers.map((o) => [o.asset, o.amount_atomic, o.pay_to])).toEqual([[PATH_USD, '12345', addr(4)]]);
    ps.setPrice('x402-v1-joke', '7');
    expect((await fetchAndParse('x402-v1-joke')).offers.map((o) => o.amount_atomic)).toEqual(['7']);
    ps.setPrice('mpp-search', '20000');
    ps.setPayTo('mpp-search', addr(5));
    expect((await fetchAndParse('mpp-search')).offers.map((o) => [o.amount, o.pay_to])).toEqual([['0.02', addr(5)]]);
    ps.setStatus('mpp-search', 404);
    const gone = await safeFetch(url('mpp-search'), { allowLoopback: true });
    expect(gone.status).toBe(404);
    expect(JSON.parse(Buffer.from(gone.body).toString())).toHaveProperty('error');
    ps.setStatus('mpp-search', null);
    expect((await safeFetch(url('mpp-search'), { allowLoopback: true })).status).toBe(402);
  });
});
