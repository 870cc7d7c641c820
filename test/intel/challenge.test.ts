import { encodePaymentRequiredHeader } from '@x402/core/http';
import { Challenge } from 'mppx';
import { describe, expect, it } from 'vitest';
import { parseChallenge, parseOpenApiPaymentInfo, parseWellKnownX402, toCaip2 } from '../../src/intel/challenge/index.js';

const PAY_TO = '0x70997970C51812dc3A010C7d01b50e0D17dc79C8';
const USDC_BASE_SEPOLIA = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const PATH_USD = '0x20c0000000000000000000000000000000000000';

const v1Entry = {
  scheme: 'exact',
  network: 'base-sepolia',
  maxAmountRequired: '1000',
  resource: 'https://api.example.com/joke',
  description: 'A joke',
  mimeType: 'application/json',
  payTo: PAY_TO,
  maxTimeoutSeconds: 60,
  asset: USDC_BASE_SEPOLIA,
  extra: { name: 'USDC', version: '2' },
};
const v1Body = JSON.stringify({ x402Version: 1, error: 'X-PAYMENT header is required', accepts: [v1Entry] });
const v2Payload = {
  x402Version: 2,
  error: 'Payment required',
  resource: { url: 'https://api.example.com/weather', description: 'Weather', mimeType: 'application/json' },
  accepts: [
    {
      scheme: 'exact',
      network: 'eip155:4217',
      amount: '250000',
      asset: PATH_USD,
      payTo: PAY_TO,
      maxTimeoutSeconds: 300,
      extra: { name: 'pathUSD', version: '1' },
    },
  ],
};
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64');

describe('parseChallenge: x402', () => {
  it('reads a v1 body exactly', () => {
    const { offers, errors } = parseChallenge({
      status: 402,
      headers: { 'content-type': 'application/json' },
      body: new TextEncoder().encode(v1Body),
    });
    expect(errors).toEqual([]);
    expect(offers).toEqual([
      {
        protocol: 'x402',
        x402_version: 1,
        scheme: 'exact',
        method: null,
        network: 'eip155:84532',
        asset: USDC_BASE_SEPOLIA.toLowerCase(),
        amount_atomic: '1000',
        amount: '0.001',
        decimals: 6,
        pay_to: PAY_TO.toLowerCase(),
        max_timeout_seconds: 60,
        expires: null,
        description: 'A joke',
        resource: 'https://api.example.com/joke',
        extra: { name: 'USDC', version: '2' },
        source: 'body',
      },
    ]);
  });

  it('reads a v2 PAYMENT-REQUIRED header exactly (encoded by the x402 library)', () => {
    const { offers, errors } = parseChallenge({
      status: 402,
      headers: { 'PAYMENT-REQUIRED': encodePaymentRequiredHeader(v2Payload as never) },
      body: '{}',
    });
    expect(errors).toEqual([]);
    expect(offers).toEqual([
      {
        protocol: 'x402',
        x402_version: 2,
        scheme: 'exact',
        method: null,
        network: 'eip155:4217',
        asset: PATH_USD,
        amount_atomic: '250000',
        amount: '0.25',
        decimals: 6,
        pay_to: PAY_TO.toLowerCase(),
        max_timeout_seconds: 300,
        expires: null,
        description: 'Weather',
        resource: 'https://api.example.com/weather',
        extra: { name: 'pathUSD', version: '1' },
        source: 'header',
      },
    ]);
  });

  it('accepts a v1 payload inside the v2 header, and base64url', () => {
    const payload = { x402Version: 1, accepts: [v1Entry] };
    for (const value of [b64(payload), Buffer.from(JSON.stringify(payload)).toString('base64url')]) {
      const { offers, errors } = parseChallenge({ status: 402, headers: { 'payment-required': value }, body: '' });
      expect(errors).toEqual([]);
      expect(offers).toHaveLength(1);
      expect(offers[0]).toMatchObject({ x402_version: 1, network: 'eip155:84532', amount_atomic: '1000', source: 'header' });
    }
  });

  it('accepts v1 field names with a CAIP-2 network, and infers the version from field names', () => {
    const body = JSON.stringify({ accepts: [{ ...v1Entry, network: 'eip155:8453', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' }] });
    const { offers } = parseChallenge({ status: 402, headers: {}, body });
    expect(offers[0]).toMatchObject({ x402_version: 1, network: 'eip155:8453', amount_atomic: '1000', amount: '0.001', decimals: 6 });
    const v2names = JSON.stringify({ accepts: [{ scheme: 'exact', network: 'base', amount: '5', payTo: PAY_TO }] });
    expect(parseChallenge({ status: 402, headers: {}, body: v2names }).offers[0]).toMatchObject({
      x402_version: 2,
      network: 'eip155:8453',
      asset: null,
      amount: null,
      decimals: null,
    });
  });

  it('does not count a body echo of the header twice', () => {
    const r = parseChallenge({ status: 402, headers: { 'payment-required': b64(v2Payload) }, body: JSON.stringify(v2Payload) });
    expect(r.offers).toHaveLength(1);
    expect(r.offers[0].source).toBe('header');
  });

  it('falls back to the body when the header is not base64 JSON, and says so', () => {
    const r = parseChallenge({ status: 402, headers: { 'payment-required': '%%%' }, body: v1Body });
    expect(r.offers).toHaveLength(1);
    expect(r.offers[0].source).toBe('body');
    expect(r.errors).toEqual(['x402 header: PAYMENT-REQUIRED is not base64 JSON']);
  });

  it('returns errors, not exceptions, for broken challenges', () => {
    expect(parseChallenge({ status: 402, headers: { 'payment-required': 'bm90IGpzb24=' }, body: '' })).toEqual({
      offers: [],
      errors: ['x402 header: PAYMENT-REQUIRED is not base64 JSON'],
    });
    expect(parseChallenge({ status: 402, headers: {}, body: '{"x402Version":1,"accepts":"nope"}' }).errors).toEqual([
      'x402 body: accepts is not an array',
    ]);
    expect(parseChallenge({ status: 402, headers: {}, body: '{not json' }).errors).toEqual([
      '402 without a payment challenge (no PAYMENT-REQUIRED header, no x402 body, no WWW-Authenticate: Payment)',
    ]);
    expect(parseChallenge({ status: 402, headers: {}, body: new Uint8Array([0xff, 0xfe, 0x00]) }).offers).toEqual([]);
  });

  it('skips entries with missing or malformed fields and keeps the rest', () => {
    const body = JSON.stringify({
      x402Version: 1,
      accepts: [
        { ...v1Entry, payTo: undefined },
        { ...v1Entry, maxAmountRequired: '1.5' },
        { ...v1Entry, maxAmountRequired: 1e21 },
        'junk',
        { ...v1Entry, scheme: undefined, maxAmountRequired: undefined },
        v1Entry,
      ],
    });
    const r = parseChallenge({ status: 402, headers: {}, body });
    expect(r.offers).toHaveLength(1);
    expect(r.errors).toEqual([
      'x402 body accepts[0]: missing payTo',
      'x402 body accepts[1]: amount "1.5" is not an atomic integer',
      'x402 body accepts[2]: amount 1e+21 is not an atomic integer',
      'x402 body accepts[3]: not an object',
      'x402 body accepts[4]: missing scheme, amount',
    ]);
  });

  it('keeps an unknown network as null (unknown), never guessed', () => {
    const body = JSON.stringify({ x402Version: 1, accepts: [{ ...v1Entry, network: 'atlantis' }] });
    expect(parseChallenge({ status: 402, headers: {}, body }).offers[0]).toMatchObject({
      network: null,
      decimals: null,
      amount: null,
      amount_atomic: '1000',
    });
  });

  it('keeps huge amounts exact', () => {
    const body = JSON.stringify({
      x402Version: 2,
      accepts: [{ scheme: 'exact', network: 'eip155:4217', amount: '000123456789012345678901234567890', asset: PATH_USD, payTo: PAY_TO }],
    });
    expect(parseChallenge({ status: 402, headers: {}, body }).offers[0]).toMatchObject({
      amount_atomic: '123456789012345678901234567890',
      amount: '123456789012345678901234.56789',
    });
  });

  it('reports nothing for a non-402 answer without a challenge', () => {
    expect(parseChallenge({ status: 200, headers: {}, body: '{"ok":true}' })).toEqual({ offers: [], errors: [] });
  });
});

describe('parseChallenge: MPP', () => {
  const tempoChallenge = Challenge.serialize({
    id: 'c1',
    realm: 'api.example.com',
    method: 'tempo',
    intent: 'charge',
    request: {
      amount: '5000',
      currency: '0x20C0000000000000000000000000000000000001',
      recipient: PAY_TO,
      methodDetails: { chainId: 4217 },
    },
    expires: '2030-01-01T00:00:00.000Z',
    description: 'Search',
  });
  const stripeChallenge = Challenge.serialize({
    id: 'c2',
    realm: 'api.example.com',
    method: 'stripe',
    intent: 'charge',
    request: { amount: '50', currency: 'usd', recipient: 'acct_123' },
  });

  it('reads several challenges merged in one header, beside another scheme', () => {
    const r = parseChallenge(
      { status: 402, headers: { 'WWW-Authenticate': `Bearer realm="x", ${tempoChallenge}, ${stripeChallenge}` }, body: '' },
      { resourceUrl: 'https://api.example.com/search' },
    );
    expect(r.errors).toEqual([]);
    expect(r.offers).toEqual([
      {
        protocol: 'mpp',
        x402_version: null,
        scheme: 'charge',
        method: 'tempo',
        network: 'eip155:4217',
        asset: '0x20c0000000000000000000000000000000000001',
        amount_atomic: '5000',
        amount: '0.005',
        decimals: 6,
        pay_to: PAY_TO.toLowerCase(),
        max_timeout_seconds: null,
        expires: '2030-01-01T00:00:00.000Z',
        description: 'Search',
        resource: 'https://api.example.com/search',
        extra: { realm: 'api.example.com', methodDetails: { chainId: 4217 } },
        source: 'www-authenticate',
      },
      {
        protocol: 'mpp',
        x402_version: null,
        scheme: 'charge',
        method: 'stripe',
        network: null,
        asset: 'usd',
        amount_atomic: '50',
        amount: null,
        decimals: null,
        pay_to: 'acct_123',
        max_timeout_seconds: null,
        expires: null,
        description: null,
        resource: 'https://api.example.com/search',
        extra: { realm: 'api.example.com' },
        source: 'www-authenticate',
      },
    ]);
  });

  it('keeps the good challenge when another one in the same header is broken', () => {
    const broken = 'Payment id="c3", realm="r", method="tempo", intent="charge", request="!!!"';
    const r = parseChallenge({ status: 402, headers: { 'www-authenticate': `${broken}, ${tempoChallenge}` }, body: '' });
    expect(r.offers).toHaveLength(1);
    expect(r.offers[0].amount_atomic).toBe('5000');
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatch(/^mpp www-authenticate challenge 0: /);
  });

  it('reports a challenge without an amount', () => {
    const noAmount = Challenge.serialize({
      id: 'c4',
      realm: 'r',
      method: 'tempo',
      intent: 'charge',
      request: { currency: PATH_USD, recipient: PAY_TO },
    });
    expect(parseChallenge({ status: 402, headers: { 'www-authenticate': noAmount }, body: '' })).toEqual({
      offers: [],
      errors: ['mpp challenge 0: request.amount missing'],
    });
  });

  it('adds MPP offers to x402 ones on a route that serves both', () => {
    const r = parseChallenge({
      status: 402,
      headers: { 'payment-required': b64(v2Payload), 'www-authenticate': tempoChallenge },
      body: '',
    });
    expect(r.offers.map((o) => o.source)).toEqual(['header', 'www-authenticate']);
  });
});

describe('networks', () => {
  it.each([
    ['base-sepolia', 'eip155:84532'],
    ['base', 'eip155:8453'],
    ['tempo', 'eip155:4217'],
    ['tempo-moderato', 'eip155:42431'],
    ['polygon-amoy', 'eip155:80002'],
    ['solana', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'],
    ['EIP155:4217', 'eip155:4217'],
    ['4217', 'eip155:4217'],
    [4217, 'eip155:4217'],
    ['atlantis', null],
    ['', null],
    [null, null],
  ])('%s → %s', (input, expected) => {
    expect(toCaip2(input)).toBe(expected);
  });
});

describe('discovery documents', () => {
  it('reads x-payment-info and x-service-info from an OpenAPI document', () => {
    const doc = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      servers: [{ url: 'https://api.example.com/v1' }],
      'x-service-info': { categories: ['search'] },
      paths: {
        '/search': {
          get: {
            summary: 'Search',
            'x-payment-info': { offers: [{ amount: '10000', currency: PATH_USD, intent: 'charge', method: 'tempo', recipient: PAY_TO }] },
          },
          post: { summary: 'free' },
        },
        '/bad': { get: { 'x-payment-info': { offers: 'nope' } } },
      },
    };
    const r = parseOpenApiPaymentInfo(doc);
    expect(r.service_info).toEqual({ categories: ['search'] });
    expect(r.errors).toEqual(['openapi GET /bad: x-payment-info is malformed']);
    expect(r.operations).toHaveLength(1);
    expect(r.operations[0]).toMatchObject({ method: 'GET', url: 'https://api.example.com/v1/search', description: 'Search' });
    expect(r.operations[0].offers[0]).toMatchObject({
      protocol: 'mpp',
      scheme: 'charge',
      method: 'tempo',
      asset: PATH_USD,
      amount_atomic: '10000',
      pay_to: PAY_TO.toLowerCase(),
      source: 'openapi',
      network: null,
    });
    expect(parseOpenApiPaymentInfo('nope').errors).toEqual(['openapi: not a JSON object']);
  });

  it('reads /.well-known/x402 with URL strings, paths and objects', () => {
    const r = parseWellKnownX402(
      { version: 1, resources: ['/joke', 'https://api.example.com/weather', { url: '/paid', method: 'post', accepts: [v1Entry] }, 42] },
      { origin: 'https://api.example.com' },
    );
    expect(r.operations.map((o) => [o.method, o.url])).toEqual([
      ['GET', 'https://api.example.com/joke'],
      ['GET', 'https://api.example.com/weather'],
      ['POST', 'https://api.example.com/paid'],
    ]);
    expect(r.operations[2].offers[0]).toMatchObject({ source: 'well-known', amount_atomic: '1000' });
    expect(r.errors).toEqual(['well-known resources[3]: no URL']);
    expect(parseWellKnownX402({ resources: 'x' }).errors).toEqual(['well-known: resources is not an array']);
  });
});
