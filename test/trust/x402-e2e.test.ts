/**
 * x402 per-call payment end to end on a local chain: anvil (Tempo mode, chain id 4217), an ERC-20 with EIP-3009
 * deployed from src/demo/contracts (compiled with solc; the demo's payment token), the demo's local facilitator (`x402Facilitator`
 * from @x402/core/facilitator with the @x402/evm exact scheme, served over HTTP on loopback), the verify app
 * configured to charge 0.01 tokens per check in that token, and a client paying with @x402/fetch.
 * Settlement moves the token on chain (asserted by balance); a failed check is not settled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { privateKeyToAccount } from 'viem/accounts';
import { x402Client, x402HTTPClient, wrapFetchWithPayment, decodePaymentResponseHeader } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { ANVIL_KEYS, startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { mountFacilitator } from '../../src/demo/paid-services/facilitator.js';
import { deployPaymentToken } from '../../src/demo/payment-token.js';
import { listen, type Listening } from '../../src/demo/paid-services/listen.js';
import { startBadServers, type BadServers } from '../helpers/bad-servers.js';
import { getCheck } from '../../src/store/trust/index.js';
import { post, startVerify, type VerifyHarness } from './helpers.js';

const agent = privateKeyToAccount(ANVIL_KEYS[2]);
const operator = privateKeyToAccount(ANVIL_KEYS[3]).address.toLowerCase();

let anvil: AnvilNode;
let facilitator: Listening;
let bad: BadServers;
let h: VerifyHarness;
let token: `0x${string}`;
let balanceOf: (a: string) => Promise<bigint>;

beforeAll(async () => {
  anvil = await startAnvil();
  const paymentToken = await deployPaymentToken(anvil.rpcUrl, ANVIL_KEYS[0], {
    name: 'Test USD',
    symbol: 'TUSD',
    holders: [agent.address],
    amount: 1_000_000n,
  });
  token = paymentToken.address;
  balanceOf = paymentToken.balanceOf;

  const app = new Hono();
  mountFacilitator(app, { rpcUrl: anvil.rpcUrl, privateKey: ANVIL_KEYS[0] });
  facilitator = await listen(app);
  bad = await startBadServers();
  h = await startVerify('sqlite', {
    rpcUrl: anvil.rpcUrl,
    x402PayTo: operator,
    x402Asset: token,
    x402AssetName: 'Test USD',
    x402AssetVersion: '1',
    x402Network: 'eip155:4217',
    x402FacilitatorUrl: facilitator.origin,
  });
}, 60_000);

afterAll(async () => {
  await h?.close();
  await facilitator?.close();
  await bad?.stop();
  await anvil?.stop();
});

/** @x402/fetch with the exact EVM scheme, allowing our test token (capped at 0.01 tokens per payment). */
function payingFetch() {
  return wrapFetchWithPayment(fetch, payingClient());
}

function payingClient() {
  return x402Client.fromConfig({
    schemes: [{ network: 'eip155:4217', client: new ExactEvmScheme(agent) }],
    spendControls: { allowedAssets: [{ network: 'eip155:4217', asset: token, maxAmountPerPayment: '10000' }] },
  });
}

describe('x402 per-call payment', () => {
  it('no key and no payment: 402 with a v2 PAYMENT-REQUIRED header for 0.01 tokens and a v1-compatible body', async () => {
    const r = await post(h.url, '/v1/check', { url: `${bad.origin}/free` });
    expect(r.status).toBe(402);
    const pr = JSON.parse(Buffer.from(r.headers.get('payment-required')!, 'base64').toString('utf8'));
    expect(pr.x402Version).toBe(2);
    expect(pr.accepts[0]).toMatchObject({
      scheme: 'exact',
      network: 'eip155:4217',
      amount: '10000',
      asset: token.toLowerCase(),
      payTo: operator,
    });
    expect(r.json.x402Version).toBe(1);
    expect(r.json.accepts[0]).toMatchObject({ maxAmountRequired: '10000', payTo: operator, scheme: 'exact' });
    expect(r.json.error).toMatch(/payment required/);
  });

  it('a client paying with @x402/fetch gets the check; settlement moves 0.01 tokens on chain', async () => {
    const pay = payingFetch();
    const before = { agent: await balanceOf(agent.address), operator: await balanceOf(operator) };
    const res = await pay(`${h.url}/v1/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${bad.origin}/free` }),
    });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.verdict).toBe('do_not_pay');
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(settlement.success).toBe(true);
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await balanceOf(agent.address)).toBe(before.agent - 10_000n);
    expect(await balanceOf(operator)).toBe(before.operator + 10_000n);
    const row = await getCheck(h.store, body.snapshot_id);
    expect(row).toMatchObject({ payer: agent.address.toLowerCase(), payment_tx: settlement.transaction, key_id: null });
  });

  it('a paid request whose check fails (refused address) is answered 400 and not settled', async () => {
    const pay = payingFetch();
    const before = { agent: await balanceOf(agent.address), operator: await balanceOf(operator) };
    const res = await pay(`${h.url}/v1/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'http://169.254.169.254/latest/meta-data/' }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(/refused/);
    expect(res.headers.get('payment-response')).toBeNull();
    expect(await balanceOf(agent.address)).toBe(before.agent);
    expect(await balanceOf(operator)).toBe(before.operator);
  });

  it('a keyless check of a URL that will be refused is 400 before any 402: nothing to sign', async () => {
    const r = await post(h.url, '/v1/check', { url: 'http://169.254.169.254/latest/meta-data/' });
    expect(r.status).toBe(400);
    expect(r.headers.get('payment-required')).toBeNull();
    expect(r.json.error).toMatch(/^refused url/);
  });

  it('one payment sent twice at once runs one check: the other is 402 at once; settled once', async () => {
    const http = new x402HTTPClient(payingClient());
    const challenge = await post(h.url, '/v1/check', { url: `${bad.origin}/free` });
    const required = http.getPaymentRequiredResponse((n) => challenge.headers.get(n), challenge.json);
    const headers = http.encodePaymentSignatureHeader(await http.createPaymentPayload(required));
    const before = await balanceOf(operator);
    const send = () => post(h.url, '/v1/check', { url: `${bad.origin}/slow?ms=1500` }, headers);
    const [a, b] = await Promise.all([send(), send()]);
    const statuses = [a.status, b.status].sort();
    expect(statuses, JSON.stringify([a.json, b.json])).toEqual([200, 402]);
    expect([a, b].find((r) => r.status === 402)!.json.error).toMatch(/already paying for a check in progress/);
    expect(await balanceOf(operator)).toBe(before + 10_000n);
    // Settled: the same payment again is refused by verification (its nonce is spent), and no check runs.
    expect((await send()).status).toBe(402);
  });

  it('a client that disconnects before its answer is not settled', async () => {
    const http = new x402HTTPClient(payingClient());
    const challenge = await post(h.url, '/v1/check', { url: `${bad.origin}/free` });
    const required = http.getPaymentRequiredResponse((n) => challenge.headers.get(n), challenge.json);
    const headers = http.encodePaymentSignatureHeader(await http.createPaymentPayload(required));
    const before = { agent: await balanceOf(agent.address), operator: await balanceOf(operator) };
    const gone = new AbortController();
    const sent = fetch(`${h.url}/v1/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ url: `${bad.origin}/slow?ms=1500` }),
      signal: gone.signal,
    }).catch((e: Error) => e);
    setTimeout(() => gone.abort(), 500);
    expect(await sent).toBeInstanceOf(Error);
    // The check finishes on the server after the client left; settlement would have happened by now.
    await new Promise((r) => setTimeout(r, 3000));
    expect(await balanceOf(agent.address)).toBe(before.agent);
    expect(await balanceOf(operator)).toBe(before.operator);
  });

  it('a forged payment signature is rejected with 402 and nothing moves', async () => {
    const r = await post(
      h.url,
      '/v1/check',
      { url: `${bad.origin}/free` },
      { 'payment-signature': Buffer.from(JSON.stringify({ x402Version: 2, payload: {} })).toString('base64') },
    );
    expect(r.status).toBe(402);
    expect(r.json.error).toMatch(/payment/);
  });
});
