/**
 * Who pays, end to end on anvil (Tempo mode): real TIP-20 transfers, collected by the real `paywatch collect
 * --once`, then the payee-only check POST /v1/check/pay-to. A payTo paid by 10 wallets it funded itself is
 * pay_to_self_funded and no better than caution; a payTo paid by 10 wallets funded by five unrelated accounts is
 * pay_to_diverse_payers. (The policy below the offer, the payee-only check's other cases and one payment replayed at
 * once are in policy-pay-to.test.ts and x402-e2e.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, http, publicActions, walletActions, parseUnits, type Hash } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { tempo } from 'viem/chains';
import { Actions } from 'viem/tempo';
import { ANVIL_KEYS, startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { issueApiKey } from '../../src/trust/keys.js';
import { runCli } from '../e2e/cli.js';
import { codes, post, startVerify, type VerifyHarness } from './helpers.js';

const PATH_USD = '0x20c0000000000000000000000000000000000000'; // listed
const ALPHA_USD = '0x20c0000000000000000000000000000000000001'; // fees only (not on the default token list)
const GAS = 3_000_000n;

let anvil: AnvilNode;
let h: VerifyHarness;
let auth: string;
const seller = privateKeyToAccount(ANVIL_KEYS[5]);
const honestPayTo = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
/** Transaction hashes of the seller funding its own wallets. */
const selfFunding: Hash[] = [];

function wallet(account: PrivateKeyAccount) {
  return createClient({ account, chain: tempo.extend({ feeToken: ALPHA_USD }), transport: http(anvil.rpcUrl), pollingInterval: 20 })
    .extend(publicActions)
    .extend(walletActions);
}

/** Sends `amount` of `token` and waits for a successful receipt. */
async function transfer(from: PrivateKeyAccount, to: string, token: string, amount: string): Promise<Hash> {
  const c = wallet(from);
  const hash = await Actions.token.transfer(c, {
    token: token as `0x${string}`,
    to: to as `0x${string}`,
    amount: parseUnits(amount, 6),
    gas: GAS,
  });
  const r = await c.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  if (r.status !== 'success') throw new Error(`transfer ${hash} reverted`);
  return hash;
}

/** A fresh wallet funded by `funder` (pathUSD, listed: its first inflow; then AlphaUSD for its fees), then paying `payTo`. */
async function fundAndPay(funder: PrivateKeyAccount, payTo: string): Promise<Hash> {
  const w = privateKeyToAccount(generatePrivateKey());
  const funding = await transfer(funder, w.address, PATH_USD, '1');
  await transfer(funder, w.address, ALPHA_USD, '1');
  await transfer(w, payTo, PATH_USD, '0.1');
  return funding;
}

beforeAll(async () => {
  anvil = await startAnvil();
  for (let i = 0; i < 10; i++) selfFunding.push(await fundAndPay(seller, seller.address));
  for (let i = 0; i < 10; i++) await fundAndPay(privateKeyToAccount(ANVIL_KEYS[i % 5]), honestPayTo);
  // A few empty blocks on top, so the collector's head is past the last payment.
  await wallet(seller).request({ method: 'anvil_mine' as never, params: ['0x5'] as never });
  h = await startVerify('sqlite', { rpcUrl: anvil.rpcUrl });
  const r = await runCli(['collect', '--once', '--db', h.db.url, '--rpc', anvil.rpcUrl, '--from', '0'], { PAYWATCH_FROM_SOURCE: '1' });
  if (r.code !== 0) throw new Error(`collect failed: ${r.stderr}`);
  auth = `Bearer ${(await issueApiKey(h.store, 'free', 'operator')).key}`;
}, 240_000);

afterAll(async () => {
  await h?.close();
  await anvil?.stop();
});

const checkPayTo = (payTo: string) => post(h.url, '/v1/check/pay-to', { pay_to: payTo }, { authorization: auth });

describe('who pays, on anvil', () => {
  it('a payTo paid by 10 wallets it funded itself: pay_to_self_funded, no better than caution', async () => {
    const r = await checkPayTo(seller.address);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(['caution', 'do_not_pay']).toContain(r.json.verdict);
    const reason = r.json.reasons.find((x: { code: string }) => x.code === 'pay_to_self_funded');
    expect(reason, JSON.stringify(r.json.reasons)).toBeDefined();
    expect(reason.severity).toBe('critical'); // 100% of the nominal
    expect(reason.evidence).toMatchObject({
      pay_to: seller.address.toLowerCase(),
      distinct_payers: 10,
      self_funded_payers: 10,
      self_funded_share: 1,
    });
    expect(reason.evidence.funding_links).toHaveLength(10);
    for (const l of reason.evidence.funding_links) expect(l).toMatchObject({ funder: seller.address.toLowerCase(), kind: 'pay_to' });
    expect(reason.evidence.funding_links.map((l: { tx: string }) => l.tx).sort()).toEqual([...selfFunding].sort());
    expect(codes(r.json)).not.toContain('pay_to_diverse_payers');
    const observed = r.json.reasons.find((x: { code: string }) => x.code === 'pay_to_observed_payments');
    expect(observed.evidence.independent_payers).toBe(false);
    expect(r.json.signals.payers[0]).toMatchObject({ payments: 10, nominal: '1', covered_since: expect.any(Number) });
  });

  it('a payTo paid by 10 independent wallets: pay_to_diverse_payers', async () => {
    const r = await checkPayTo(honestPayTo);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const reason = r.json.reasons.find((x: { code: string }) => x.code === 'pay_to_diverse_payers');
    expect(reason, JSON.stringify(r.json.reasons)).toBeDefined();
    expect(reason.evidence).toMatchObject({ distinct_payers: 10, top_payer_share: 0.1, self_funded_share: 0, common_funder: null });
    expect(codes(r.json)).not.toContain('pay_to_self_funded');
    expect(codes(r.json)).not.toContain('pay_to_payers_concentrated');
    expect(r.json.signals.payers[0]).toMatchObject({ funding_links_total: 0 });
  });
});
