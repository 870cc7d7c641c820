/**
 * Payments joined to services, end to end on SQLite and PostgreSQL: a real anvil node in Tempo mode, the demo's
 * real paid services (mppx MPP server, x402 servers, their directory) plus an @x402/hono resource server listed in
 * that directory, paywatch's intel collector probing them, THEN real payments (mppx client, @x402/fetch), the
 * real `paywatch collect --once` process, and the public API (buildApp + inject):
 * - an mppx client paying the probed MPP service: protocol mpp, memo_and_pay_to, the service's id;
 * - an mppx client paying it BEFORE the probe: memo only (its payTo was not seen at the payment's time);
 * - @x402/fetch paying the probed x402 resource (offer on eip155:4217): protocol x402, pay_to, listed-USD nominal;
 * - a forged memo naming the MPP service's realm, paid to an unrelated address: memo at best;
 * - the MPP service's payTo paying itself through mppx: a self-payment, never a distinct payer;
 * - @x402/fetch paying an x402 server paywatch never saw (EIP-3009 settlement): protocol null.
 * Served members another change may add (row `attribution_method`, detail `attribution`) are read only if present.
 */
import type { FastifyInstance } from 'fastify';
import { privateKeyToAccount } from 'viem/accounts';
import { Actions } from 'viem/tempo';
import type { Hash } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { ANVIL_KEYS, startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { loadConfig } from '../../src/config.js';
import { mppMemo } from '../../src/demo/activity.js';
import { directorySources, startPaidServices, type PaidServices } from '../../src/demo/paid-services/index.js';
import { payMppCharge } from '../../src/demo/pay-mpp.js';
import { deployPaymentToken, type PaymentToken } from '../../src/demo/payment-token.js';
import { ANVIL_TOKENS, localTokenList } from '../../src/demo/token-list.js';
import { collectOnce } from '../../src/intel/collect.js';
import { providerDomain, serviceId } from '../../src/intel/service-id.js';
import { openStore, type Store } from '../../src/store/db.js';
import { finalize, PATH_USD, payX402, payX402At, startX402Resource, walletOn, type X402Resource } from '../chain/live-payments.js';
import { createTestDb, DIALECTS, type TestDb, type TestDialect } from '../helpers/db.js';
import { runCli } from './cli.js';

const lc = (k: `0x${string}`) => privateKeyToAccount(k).address.toLowerCase();
/**
 * Pay the MPP service after and before the probe. Two accounts that sent nothing yet: anvil leaves an mppx payment
 * (an expiring-nonce 0x76 transaction) from an account that already sent one unmined.
 */
const MPP_PAYER = ANVIL_KEYS[4];
const EARLY_PAYER = ANVIL_KEYS[5];
/** The x402 payer (holds the EIP-3009 token). */
const X402_PAYER = ANVIL_KEYS[2];
/** Writes an MPP memo naming the MPP service's realm on a transfer to someone else. */
const FORGER = ANVIL_KEYS[1];
/** The MPP service's payTo (the paid services' mpp-search pays anvil account 3): pays itself. */
const SELF = ANVIL_KEYS[3];
/** The listed x402 resource's payTo; the unlisted one's; the forged memo's recipient (no service names these). */
const X402_PAY_TO = '0x00000000000000000000000000000000e2e00402';
const UNSEEN_PAY_TO = '0x00000000000000000000000000000000e2e03009';
const UNRELATED = '0x00000000000000000000000000000000e2e0f0f0';
const PRICE = '10000';

let anvil: AnvilNode;
let ps: PaidServices;
let token: PaymentToken;
let listed: X402Resource;
const dbs = new Map<TestDialect, TestDb>();
let mppUrl: string;
let mppService: string;
let x402Service: string;
const tx = {} as Record<'before' | 'mpp' | 'x402' | 'forged' | 'self' | 'unseen', Hash>;

beforeAll(async () => {
  anvil = await startAnvil();
  const { rpcUrl } = anvil;
  token = await deployPaymentToken(rpcUrl, ANVIL_KEYS[0], {
    name: 'Test USD',
    symbol: 'TUSD',
    holders: [lc(X402_PAYER)],
    amount: 1_000_000n,
  });
  ps = await startPaidServices({ rpcUrl });
  listed = await startX402Resource(rpcUrl, {
    token: token.address,
    tokenName: 'Test USD',
    payTo: X402_PAY_TO,
    price: PRICE,
    facilitatorKey: ANVIL_KEYS[1],
  });
  ps.listResource({
    name: 'e2e-x402',
    url: listed.url,
    description: 'a listed x402 resource',
    price: PRICE,
    payTo: X402_PAY_TO,
    asset: token.address,
  });
  mppUrl = ps.services.find((s) => s.name === 'mpp-search')!.url;
  mppService = serviceId('GET', mppUrl);
  x402Service = serviceId('GET', listed.url);

  // Paid before paywatch saw the service; a second apart, so no block of it shares the probe's second.
  tx.before = (await payMppCharge(mppUrl, { rpcUrl, payerKey: EARLY_PAYER, clientId: 'e2e-agent' })).hash;
  await new Promise((r) => setTimeout(r, 1_100));
  const sources = directorySources(ps.directoryUrl);
  for (const dialect of DIALECTS) {
    const db = await createTestDb(dialect);
    dbs.set(dialect, db);
    const store = await openStore(db.url);
    try {
      const probed = await collectOnce(store, { sources, allowLoopback: true });
      expect(probed.sources_failed).toBe(0);
    } finally {
      await store.close();
    }
  }

  tx.mpp = (await payMppCharge(mppUrl, { rpcUrl, payerKey: MPP_PAYER, clientId: 'e2e-agent' })).hash;
  tx.x402 = await payX402At(listed.url, { token: token.address, price: PRICE, payerKey: X402_PAYER });
  tx.forged = await Actions.token.transfer(walletOn(rpcUrl, FORGER), {
    token: PATH_USD,
    to: UNRELATED,
    amount: 10_000n,
    memo: mppMemo('mpp-search', 'forger', 'forged-challenge'),
    gas: 3_000_000n,
  });
  await walletOn(rpcUrl, FORGER).waitForTransactionReceipt({ hash: tx.forged, pollingInterval: 20 });
  tx.self = (await payMppCharge(mppUrl, { rpcUrl, payerKey: SELF, clientId: undefined })).hash;
  tx.unseen = await payX402(rpcUrl, {
    token: token.address,
    tokenName: 'Test USD',
    payTo: UNSEEN_PAY_TO,
    price: PRICE,
    payerKey: X402_PAYER,
    facilitatorKey: ANVIL_KEYS[1],
  });
  await finalize(rpcUrl);
}, 240_000);

afterAll(async () => {
  await listed?.close();
  await ps?.stop();
  await anvil?.stop();
  for (const db of dbs.values()) await db.drop();
});

describe.each(DIALECTS)('payments attributed end to end on %s', (dialect) => {
  let store: Store;
  let app: FastifyInstance;
  const get = async (url: string) => {
    const r = await app.inject({ method: 'GET', url });
    expect(r.statusCode, `${url}: ${r.body}`).toBe(200);
    return r.json();
  };
  const hashes = async (query: string) =>
    ((await get(`/api/transactions?limit=100&${query}`)).rows as { hash: string }[]).map((r) => r.hash).sort();
  /** The served row of `hash` (found by q=hash). */
  const rowOf = async (hash: string) => (await get(`/api/transactions?q=${hash}`)).rows[0] as Record<string, unknown>;
  /** A member another change may add to rows or details: checked only when served. */
  const ifServed = (o: Record<string, unknown>, member: string, expected: unknown) => {
    if (member in o) expect(o[member], member).toEqual(expected);
  };

  beforeAll(async () => {
    const db = dbs.get(dialect)!;
    const r = await runCli(['collect', '--once', '--db', db.url, '--rpc', anvil.rpcUrl, '--from', '0']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const tokens = [...ANVIL_TOKENS, { address: token.address.toLowerCase(), symbol: 'TUSD', name: 'Test USD' }];
    store = await openStore(db.url, { tokenList: localTokenList(tokens) });
    app = await buildApp({ store, config: loadConfig({ db: db.url, rpcUrl: anvil.rpcUrl }, {}), components: new Map() }, { logger: false });
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await store?.close();
  });

  it('an mppx client paying the probed MPP service: protocol mpp, memo_and_pay_to, the service; paid before the probe: memo only', async () => {
    const mpp = await rowOf(tx.mpp);
    expect(mpp).toMatchObject({ protocol: 'mpp', recipient: lc(SELF), sender: lc(MPP_PAYER), nominal: '0.01' });
    ifServed(mpp, 'service_id', mppService);
    ifServed(mpp, 'attribution_method', 'memo_and_pay_to');
    ifServed(mpp, 'payer', lc(MPP_PAYER));
    const detail = await get(`/api/transactions/${tx.mpp}`);
    if (detail.attribution) expect(detail.attribution).toMatchObject({ method: 'memo_and_pay_to', candidates: [mppService] });
    const before = await rowOf(tx.before);
    expect(before.protocol).toBe('mpp');
    ifServed(before, 'attribution_method', 'memo');

    // The service's payments: the payment after the probe and the self-payment tie memo to payTo; the one before
    // it and the forged one carry the memo only.
    const { payments } = await get(`/api/payments?service_id=${mppService}`);
    expect(payments).toMatchObject({
      count: 4,
      by_method: { memo_and_pay_to: 2, memo: 2, pay_to: 0 },
      by_protocol: { mpp: { count: 4 }, x402: { count: 0 }, unknown: { count: 0 } },
      self_payments: 1,
    });
    expect(await hashes(`service_id=${mppService}`)).toEqual([tx.before, tx.mpp, tx.forged, tx.self].sort());
    const { provider } = await get(`/api/providers/${encodeURIComponent(providerDomain(mppUrl))}`);
    expect(provider.payments).toMatchObject({ count: 4, by_method: { memo_and_pay_to: 2, memo: 2, pay_to: 0 } });
    expect(provider.services.find((s: { service_id: string }) => s.service_id === mppService).payments).toMatchObject({ count: 4 });
  });

  it('@x402/fetch paying the probed x402 resource: protocol x402, pay_to, a listed-USD nominal', async () => {
    const x402 = await rowOf(tx.x402);
    expect(x402).toMatchObject({ protocol: 'x402', recipient: X402_PAY_TO, nominal: '0.01', sender: lc(ANVIL_KEYS[1]) });
    ifServed(x402, 'attribution_method', 'pay_to');
    ifServed(x402, 'payer', lc(X402_PAYER));
    expect(await hashes('protocol=x402')).toEqual([tx.x402]);
    expect(await hashes(`service_id=${x402Service}`)).toEqual([tx.x402]);
    expect(await hashes(`payer=${lc(X402_PAYER)}&protocol=x402`)).toEqual([tx.x402]);
    const { payments } = await get(`/api/payments?service_id=${x402Service}`);
    expect(payments).toMatchObject({
      count: 1,
      by_method: { memo_and_pay_to: 0, memo: 0, pay_to: 1 },
      by_protocol: { x402: { count: 1, nominal: '0.01' } },
      distinct_payers: 1,
      nominal: '0.01',
      top_payer_share: 1,
    });
  });

  it('a forged memo naming the service, paid to an unrelated address, is memo at best, never memo_and_pay_to', async () => {
    const forged = await rowOf(tx.forged);
    expect(forged).toMatchObject({ protocol: 'mpp', recipient: UNRELATED });
    ifServed(forged, 'attribution_method', 'memo');
    const detail = await get(`/api/transactions/${tx.forged}`);
    if (detail.attribution) expect(detail.attribution.method).toBe('memo');
    expect(await hashes(`recipient=${UNRELATED}`)).toEqual([tx.forged]);
    // Memo and payTo: only the two payments to the service's payTo after the probe (the paid one and the
    // self-payment); the forged memo counts with the one paid before the probe as memo alone.
    const { payments } = await get(`/api/payments?service_id=${mppService}`);
    expect(payments.by_method).toEqual({ memo_and_pay_to: 2, memo: 2, pay_to: 0 });
    const rankings = await get('/api/rankings/recipients?by=payments');
    expect(rankings.rows.find((r: { address: string }) => r.address === UNRELATED)).toMatchObject({ payments: 1, distinct_payers: 1 });
  });

  it('a self-payment is visible as such and never a distinct payer (metrics, service payments, rankings)', async () => {
    const self = await rowOf(tx.self);
    expect(self).toMatchObject({ protocol: 'mpp', sender: lc(SELF), recipient: lc(SELF) });
    ifServed(self, 'self_payment', true);
    ifServed(self, 'attribution_method', 'memo_and_pay_to');
    expect(await hashes(`payer=${lc(SELF)}`)).toEqual([tx.self]);
    expect((await get(`/api/metrics?payer=${lc(SELF)}`)).distinct_payers).toBe(0);
    // The service's payers: the two MPP payers and the forger; not the service paying itself.
    expect((await get(`/api/metrics?service_id=${mppService}`)).distinct_payers).toBe(3);
    expect((await get(`/api/payments?service_id=${mppService}`)).payments).toMatchObject({ distinct_payers: 3, self_payments: 1 });
    const ranked = await get('/api/rankings/services?by=distinct_payers');
    expect(ranked.rows.find((r: { service_id: string }) => r.service_id === mppService)).toMatchObject({
      payments: 4,
      distinct_payers: 3,
      self_payments: 1,
    });
    const payers = await get('/api/rankings/payers?by=payments');
    expect(payers.rows.find((r: { address: string }) => r.address === lc(SELF))).toMatchObject({ distinct_payers: 0, self_payments: 1 });
  });

  it('an EIP-3009 settlement to an address no x402 offer names keeps protocol null (settlement eip3009)', async () => {
    const unseen = await rowOf(tx.unseen);
    expect(unseen).toMatchObject({ protocol: null, recipient: UNSEEN_PAY_TO, sender: lc(ANVIL_KEYS[1]) });
    ifServed(unseen, 'attribution_method', null);
    ifServed(unseen, 'service_id', null);
    const detail = await get(`/api/transactions/${tx.unseen}`);
    ifServed(detail, 'settlement', 'eip3009');
    expect(await hashes('protocol=unknown')).toContain(tx.unseen);
    expect(await hashes('protocol=x402')).not.toContain(tx.unseen);
    const ranked = await get('/api/rankings/services?protocol=x402');
    expect(ranked.rows.map((r: { service_id: string }) => r.service_id)).toEqual([x402Service]);
  });
});
