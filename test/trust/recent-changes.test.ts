/**
 * POST /v1/check weighs the service's recorded changes, end to end: the demo paid services (@x402/hono, mppx) are
 * collected by the real intel collector, their terms changed (the weather price doubled, the search payTo swapped,
 * as `paywatch demo` does) and collected again, so the changes are the ones src/intel/changes.ts records and
 * GET /api/intelligence/changes serves. Then the new payTo receives a payment (written through the chain store).
 * On SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import { startPaidServices, type PaidServices } from '../../src/demo/paid-services/index.js';
import { ANVIL_KEYS, startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { collectOnce } from '../../src/intel/collect.js';
import { serviceId } from '../../src/intel/service-id.js';
import { listChanges } from '../../src/intel/queries.js';
import { IntelQuery } from '../../src/intel/schemas.js';
import { gatherEvidence } from '../../src/trust/gather.js';
import { assessTrust } from '../../src/trust/assess.js';
import { assetResolver } from '../../src/trust/assets.js';
import { DIALECTS } from '../helpers/db.js';
import { codes, post, seedPayment, startVerify, type VerifyHarness } from './helpers.js';

let anvil: AnvilNode;

beforeAll(async () => {
  anvil = await startAnvil();
}, 60_000);

afterAll(async () => {
  await anvil?.stop();
});

describe.each(DIALECTS)('recorded changes in the trust check (%s)', (dialect) => {
  let paid: PaidServices;
  let h: VerifyHarness;
  let key: string;
  const urlOf = (name: string) => paid.services.find((s) => s.name === name)!.url;
  const newPayTo = privateKeyToAccount(ANVIL_KEYS[5]).address.toLowerCase();
  const payer = privateKeyToAccount(ANVIL_KEYS[4]).address.toLowerCase();
  const collect = () =>
    collectOnce(h.store, {
      allowLoopback: true,
      sources: [
        { name: 'demo-bazaar', kind: 'bazaar', url: paid.directoryUrl },
        { name: 'demo-mpp-registry', kind: 'mpp-registry', url: `${paid.directoryUrl}/api/services` },
      ],
    });
  const check = async (url: string) => {
    const r = await post(h.url, '/v1/check', { url }, { authorization: `Bearer ${key}` });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    return r.json;
  };
  /** The change records of a service as GET /api/intelligence/changes serves them. */
  const changesOf = async (name: string) =>
    (await listChanges(h.store, IntelQuery.parse({ service_id: serviceId('GET', urlOf(name)) }), { staleAfterDays: 7 })).changes;
  const reasonsOf = (a: { reasons: { code: string }[] }, code: string) => a.reasons.filter((r) => r.code === code) as any[];

  beforeAll(async () => {
    paid = await startPaidServices({ rpcUrl: anvil.rpcUrl });
    h = await startVerify(dialect, { rpcUrl: anvil.rpcUrl });
    key = (await post(h.url, '/v1/keys', {})).json.key;
    await collect();
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await paid?.stop();
  });

  it('before any change: history_consistent and price_sane', async () => {
    const a = await check(urlOf('x402-v2-weather'));
    expect(codes(a, 'info')).toEqual(expect.arrayContaining(['history_consistent', 'price_sane']));
    expect(a.signals.recent_changes).toMatchObject({ window_days: 30, change_ids: [] });
  });

  it('a payTo swapped to a never-paid wallet: do_not_pay with pay_to_changed_recently (critical) citing the change record', async () => {
    const oldPayTo = paid.terms('mpp-search').payTo.toLowerCase();
    paid.setPayTo('mpp-search', newPayTo);
    paid.setPrice('x402-v2-weather', (BigInt(paid.terms('x402-v2-weather').price) * 2n).toString());
    const second = await collect();
    expect(second.changes).toBeGreaterThan(0);
    const recorded = (await changesOf('mpp-search')).filter((c) => c.kind === 'pay_to_changed');
    expect(recorded.length).toBe(1);

    const a = await check(urlOf('mpp-search'));
    expect(a.verdict).toBe('do_not_pay');
    expect(codes(a, 'critical')).toEqual(['pay_to_changed_recently']);
    expect(codes(a)).not.toContain('history_consistent');
    const [r] = reasonsOf(a, 'pay_to_changed_recently');
    expect(r.evidence).toMatchObject({
      pay_to: newPayTo,
      previous_pay_to: [oldPayTo],
      inbound_payments: { count: 0, first_time_unix: null, last_time_unix: null },
      change_ids: [recorded[0].id],
      snapshot_ids: [recorded[0].before_snapshot_id, recorded[0].after_snapshot_id],
      changed_at: recorded[0].at,
    });
    expect(a.signals.recent_changes.change_ids).toEqual([recorded[0].id]);
  });

  it('a payment in a token that is not on the token list proves nothing: still do_not_pay', async () => {
    // Anyone can mint a token and pay the new wallet with it (src/domain/token-list.ts).
    await seedPayment(h.store, payer, newPayTo, 99, 1_767_225_500, { token: `0x20c0${'9'.repeat(36)}` });
    const a = await check(urlOf('mpp-search'));
    expect(a.verdict).toBe('do_not_pay');
    expect(reasonsOf(a, 'pay_to_changed_recently')[0]).toMatchObject({ severity: 'critical' });
  });

  it('once a payment to the new payTo is observed: caution, pay_to_changed_recently is a warning', async () => {
    await seedPayment(h.store, payer, newPayTo, 100, 1_767_225_600);
    const a = await check(urlOf('mpp-search'));
    expect(a.verdict).toBe('caution');
    expect(codes(a, 'critical')).toEqual([]);
    expect(codes(a, 'warning')).toContain('pay_to_changed_recently');
    expect(codes(a)).not.toContain('history_consistent');
    expect(reasonsOf(a, 'pay_to_changed_recently')[0].evidence.inbound_payments).toEqual({
      count: 1,
      first_time_unix: 1_767_225_600,
      last_time_unix: 1_767_225_600,
    });
  });

  it('a doubled price: price_raised_recently with the exact amounts, no price_sane, no history_consistent', async () => {
    const recorded = (await changesOf('x402-v2-weather')).filter((c) => c.kind === 'price_changed');
    const a = await check(urlOf('x402-v2-weather'));
    expect(a.verdict).toBe('caution');
    expect(codes(a)).not.toContain('price_sane');
    expect(codes(a)).not.toContain('history_consistent');
    const raised = reasonsOf(a, 'price_raised_recently');
    // One per offer (the weather service offers pathUSD and AlphaUSD), each citing its own record.
    expect(raised.length).toBe(a.offers.length);
    expect(raised.map((r) => r.evidence.change_ids[0]).sort()).toEqual(recorded.map((c) => c.id).sort());
    for (const r of raised) {
      expect(r.severity).toBe('warning');
      expect(r.evidence).toMatchObject({
        old_amount_atomic: '10000',
        new_amount_atomic: '20000',
        old_amount: '0.01',
        new_amount: '0.02',
        ratio: '2',
      });
    }
  });

  it('changes older than the window no longer count', async () => {
    const later = new Date(Date.now() + 31 * 86_400_000);
    const { evidence } = await gatherEvidence(urlOf('x402-v2-weather'), {
      store: h.store,
      assets: assetResolver(anvil.rpcUrl),
      timeoutMs: 5000,
      maxBytes: 1 << 20,
      allowLoopback: true,
      changeWindowDays: 30,
      now: later,
    });
    expect(evidence.recent_changes?.changes).toEqual([]);
    const a = assessTrust(evidence, later);
    expect(a.reasons.map((r) => r.code)).toEqual(expect.arrayContaining(['history_consistent', 'price_sane']));
  });
});
