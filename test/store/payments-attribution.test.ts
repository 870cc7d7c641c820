/**
 * Attribution in the store: rows written after the intel knows a service are attributed by the writer; rows
 * written before are attributed by the pass the intel collector runs (reattributePayments) from their stored
 * details, without re-collecting; an EIP-3009 settlement to an x402 payTo on Tempo becomes protocol x402; a pass
 * that changes rows bumps the store version.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { BlockObservations, Leg, Observation } from '../../src/domain/observation.js';
import { computeMetrics, exportRows, getTransaction, listTransactions, writeBlocks } from '../../src/store/chain/index.js';
import { exportRecord } from '../../src/api/csv.js';
import { reattributePayments } from '../../src/store/payments/reattribute.js';
import { decodeMppAttribution, mppFingerprint } from '../../src/domain/mpp-attribution.js';
import type { Store } from '../../src/store/db.js';
import { DIALECTS, storeFactory } from '../helpers/db.js';

const TOKEN = '0x20c0000000000000000000000000000000000000';
const PAY_MPP = `0x${'a1'.repeat(20)}`;
const PAY_X402 = `0x${'e5'.repeat(20)}`;
const UNRELATED = `0x${'c3'.repeat(20)}`;
const PAYER = `0x${'d4'.repeat(20)}`;
const FACILITATOR = `0x${'f0'.repeat(20)}`;
const T0 = 1_790_000_000;

const memoFor = (realm: string) => `0xef1ed71201${mppFingerprint(realm).slice(2)}${'0'.repeat(20)}${'07'.repeat(7)}`;

/** A block of one payment of 1 token to `to` at time `t`. */
function payment(height: number, t: number, to: string, memo: string | null, more: Partial<Leg> = {}, sender = PAYER): BlockObservations {
  const hash = `0x${height.toString(16).padStart(64, '0')}` as `0x${string}`;
  const leg: Leg = {
    from: PAYER,
    to,
    asset_contract: TOKEN,
    amount: '1',
    amount_atomic: '1000000',
    log_index: 0,
    memo,
    payer: PAYER,
    settlement: null,
    x402_proxy: null,
    ...more,
  };
  const o: Observation = {
    hash,
    time: t,
    height,
    tx_index: 0,
    chain_id: 4217,
    sender,
    recipient: to,
    asset: 'pathUSD',
    asset_contract: TOKEN,
    amount: '1',
    nominal_parts: [{ asset_contract: TOKEN, amount: '1' }],
    fee: '0.001',
    exchange: null,
    protocol: memo ? 'mpp' : null,
    category: memo ? 'payment' : 'transfer',
    execution: 'success',
    decode: 'full',
    integrity: { score: 0, maximum: 5, version: '1', scope: 'test', stages: [] },
    detail: {
      transaction: null,
      receipt: null,
      evidence: null,
      calls: null,
      forensics: null,
      unknown: null,
      legs: [leg],
      payer: PAYER,
      settlement: more.settlement ?? null,
      // As the decoder records it (src/chain/decode/payments.ts attributionOf).
      attribution: memo ? { log_index: 0, ...decodeMppAttribution(memo)! } : null,
    },
  };
  return { height, hash, time: t, observations: [o] };
}

async function offer(s: Store, service_id: string, domain: string, protocol: 'mpp' | 'x402', pay_to: string, at: number, realm?: string) {
  await s.db
    .insertInto('intel_offers')
    .values({
      service_id,
      domain,
      snapshot_id: null,
      source_name: null,
      observed_at: new Date(at * 1000).toISOString(),
      protocol,
      x402_version: protocol === 'x402' ? 2 : null,
      scheme: protocol === 'x402' ? 'exact' : 'charge',
      method: protocol === 'mpp' ? 'tempo' : null,
      network: 'eip155:4217',
      asset: TOKEN,
      amount_atomic: '1000000',
      amount: '1',
      decimals: 6,
      pay_to,
      max_timeout_seconds: null,
      expires: null,
      description: null,
      resource: null,
      extra: realm ? JSON.stringify({ realm }) : null,
      source: 'probe',
      evidence_hash: null,
    } as never)
    .execute();
}

const columns = async (s: Store) =>
  Object.fromEntries(
    (
      await s.db
        .selectFrom('observations')
        .select(['height', 'service_id', 'provider', 'attribution_method', 'attribution_ambiguous', 'protocol'])
        .execute()
    ).map((r) => [
      Number(r.height),
      [
        r.service_id,
        r.provider,
        r.attribution_method,
        r.attribution_ambiguous == null ? null : Number(r.attribution_ambiguous),
        r.protocol,
      ],
    ]),
  );

describe.each(DIALECTS)('payment attribution on %s', (dialect) => {
  const stores = storeFactory(dialect);
  afterAll(() => stores.cleanup());

  it('attributes at collection when the intel is known, and re-derives older rows when it arrives', async () => {
    const s = await stores.fresh();
    const write = (b: BlockObservations) => writeBlocks(s, [b], { height: b.height, hash: b.hash });
    // Collected before any intel: nothing attributed.
    await write(payment(1, T0 + 10, PAY_MPP, memoFor('search.example')));
    await write(payment(2, T0 + 20, UNRELATED, memoFor('search.example'))); // forged memo, unrelated recipient
    await write(payment(3, T0 + 30, PAY_X402, null, { settlement: 'eip3009' }, FACILITATOR));
    await write(payment(4, T0 + 40, UNRELATED, null, { settlement: 'eip3009' }, FACILITATOR)); // no x402 offer names it
    expect(Object.values(await columns(s)).every(([id, , method]) => id === null && method === null)).toBe(true);

    // The intel collector stores offers seen before those payments, then runs the pass.
    await offer(s, 'svc-search', 'search.example', 'mpp', PAY_MPP, T0, 'search.example');
    await offer(s, 'svc-check', 'check.example', 'x402', PAY_X402, T0);
    const before = (await s.db.selectFrom('chain_stats').select('updated_at').executeTakeFirstOrThrow()).updated_at;
    await new Promise((r) => setTimeout(r, 5));
    const r = await reattributePayments(s);
    expect(r).toMatchObject({ offers: 2, changed: 3 });
    const after = await s.db.selectFrom('chain_stats').select(['updated_at', 'payments_offer_id']).executeTakeFirstOrThrow();
    expect(after.updated_at).not.toBe(before);
    expect(await columns(s)).toEqual({
      1: ['svc-search', 'search.example', 'memo_and_pay_to', 0, 'mpp'],
      2: ['svc-search', 'search.example', 'memo', 0, 'mpp'],
      3: ['svc-check', 'check.example', 'pay_to', 0, 'x402'],
      4: [null, null, null, null, null],
    });
    // Nothing new: the next pass reads nothing.
    expect(await reattributePayments(s)).toEqual({ offers: 0, rows: 0, changed: 0 });

    // Collected after: the writer attributes at once (a second service shares the payTo from now on: ambiguous).
    await offer(s, 'svc-search-2', 'search.example', 'mpp', PAY_MPP, T0 + 50, 'search.example');
    await write(payment(5, T0 + 60, PAY_MPP, memoFor('search.example')));
    await write(payment(6, T0 + 70, PAY_X402, null, { settlement: 'eip3009' }, FACILITATOR));
    const now = await columns(s);
    expect(now[5]).toEqual(['svc-search', 'search.example', 'memo_and_pay_to', 1, 'mpp']);
    expect(now[6]).toEqual(['svc-check', 'check.example', 'pay_to', 0, 'x402']);
    // The pass applies the new service to older rows by realm: payment 1 predates its payTo, payment 2 is memo-only.
    expect((await reattributePayments(s)).changed).toBe(1);
    const last = await columns(s);
    expect(last[1]).toEqual(['svc-search', 'search.example', 'memo_and_pay_to', 0, 'mpp']);
    expect(last[2]).toEqual(['svc-search', 'search.example', 'memo', 1, 'mpp']);

    // The filters read the columns.
    const heights = async (f: Parameters<typeof listTransactions>[1]) =>
      (await listTransactions(s, f, { limit: 10, offset: 0 })).rows.map((r) => r.height).sort();
    expect(await heights({ service_id: 'svc-check' })).toEqual([3, 6]);
    expect(await heights({ provider: 'search.example' })).toEqual([1, 2, 5]);
    expect(await heights({ protocol: 'x402' })).toEqual([3, 6]);
    expect(await heights({ protocol: 'unknown' })).toEqual([4]);
    expect(await heights({ payer: PAYER, recipient: UNRELATED })).toEqual([2, 4]);
    expect(await heights({ category: 'payment', protocol: 'mpp' })).toEqual([1, 2, 5]);
    expect(await heights({ payer: FACILITATOR })).toEqual([]);

    // Metrics count distinct payers (never the facilitator that sent) and recipients; a self-payment is not a payer.
    await write(payment(7, T0 + 80, PAYER, null));
    expect(await computeMetrics(s, {})).toMatchObject({ distinct_payers: 1, distinct_recipients: 4 });
    expect(await computeMetrics(s, { recipient: PAYER })).toMatchObject({ analyzed: 1, distinct_payers: 0, distinct_recipients: 1 });
    expect(await computeMetrics(s, { payer: FACILITATOR })).toMatchObject({
      analyzed: 0,
      distinct_payers: null,
      distinct_recipients: null,
    });
  });

  it('serves payer, self_payment, client fingerprint, service, provider and method on rows and in the export', async () => {
    const s = await stores.fresh();
    await offer(s, 'svc-search', 'search.example', 'mpp', PAY_MPP, T0, 'search.example');
    const write = (b: BlockObservations) => writeBlocks(s, [b], { height: b.height, hash: b.hash });
    const client = `0xef1ed71201${mppFingerprint('search.example').slice(2)}${'ab'.repeat(10)}${'07'.repeat(7)}`;
    await write(payment(1, T0 + 10, PAY_MPP, client));
    await write(payment(2, T0 + 20, UNRELATED, memoFor('search.example'))); // forged memo, unrelated recipient
    await write(payment(3, T0 + 30, PAYER, null)); // a self-payment
    const members = (r: Record<string, unknown>) =>
      ['payer', 'self_payment', 'client_fingerprint', 'service_id', 'provider', 'attribution_method'].map((m) => r[m]);
    const rows = Object.fromEntries((await listTransactions(s, {}, { limit: 10, offset: 0 })).rows.map((r) => [r.height, members(r)]));
    expect(rows).toEqual({
      1: [PAYER, false, `0x${'ab'.repeat(10)}`, 'svc-search', 'search.example', 'memo_and_pay_to'],
      2: [PAYER, false, null, 'svc-search', 'search.example', 'memo'],
      3: [PAYER, true, null, null, null, null],
    });
    const exported: Record<string, unknown>[] = [];
    for await (const batch of exportRows(s, {})) for (const r of batch) exported.push(exportRecord(r));
    expect(exported.map((r) => [r.height, ...members(r)])).toEqual([
      [3, PAYER, 'true', undefined, undefined, undefined, undefined],
      [2, PAYER, 'false', undefined, 'svc-search', 'search.example', 'memo'],
      [1, PAYER, 'false', `0x${'ab'.repeat(10)}`, 'svc-search', 'search.example', 'memo_and_pay_to'],
    ]);
  });

  it("serves the attribution of the transaction's attributed leg and of each leg in the detail, and its settlement", async () => {
    const s = await stores.fresh();
    await offer(s, 'svc-a', 'search.example', 'mpp', PAY_MPP, T0, 'search.example');
    await offer(s, 'svc-b', 'search.example', 'mpp', PAY_MPP, T0, 'search.example');
    const write = (b: BlockObservations) => writeBlocks(s, [b], { height: b.height, hash: b.hash });
    const client = `0xef1ed71201${mppFingerprint('search.example').slice(2)}${'ab'.repeat(10)}${'07'.repeat(7)}`;
    // Two legs: the memo's to a payTo of both services, a larger one to an unrelated address (not attributed).
    const two = payment(1, T0 + 10, PAY_MPP, client);
    const legs = two.observations[0].detail.legs!;
    legs.push({ ...legs[0], to: UNRELATED, amount: '5', amount_atomic: '5000000', log_index: 1, memo: null });
    await write(two);
    await write(payment(2, T0 + 20, UNRELATED, memoFor('search.example'))); // forged memo, unrelated recipient
    await write(payment(3, T0 + 30, UNRELATED, null, { settlement: 'eip3009' }, FACILITATOR));
    await write(payment(4, T0 + 40, UNRELATED, memoFor('nobody.example')));
    const detail = async (height: number) => (await getTransaction(s, `0x${height.toString(16).padStart(64, '0')}`))!;
    const fingerprint = mppFingerprint('search.example');
    const both = {
      server_fingerprint: fingerprint,
      nonce: `0x${'07'.repeat(7)}`,
      candidates: ['svc-a', 'svc-b'],
      ambiguous: true,
    };
    const d1 = await detail(1);
    expect(d1.attribution).toEqual({ log_index: 0, ...both, client_fingerprint: `0x${'ab'.repeat(10)}`, method: 'memo_and_pay_to' });
    expect(d1.legs!.map((g) => g.attribution)).toEqual([d1.attribution, null]);
    expect([d1.service_id, d1.attribution_method, d1.settlement]).toEqual(['svc-a', 'memo_and_pay_to', null]);
    // A forged memo is the payer's claim: memo at best, never memo_and_pay_to.
    expect((await detail(2)).attribution).toEqual({ log_index: 0, ...both, client_fingerprint: null, method: 'memo' });
    // An EIP-3009 transfer to an address no x402 offer names: no protocol, no attribution, its settlement said.
    const d3 = await detail(3);
    expect([d3.protocol, d3.attribution, d3.settlement, d3.payer, d3.sender]).toEqual([null, null, 'eip3009', PAYER, FACILITATOR]);
    // A memo naming a realm no service has: its fingerprints, no candidate.
    expect((await detail(4)).attribution).toEqual({
      log_index: 0,
      server_fingerprint: mppFingerprint('nobody.example'),
      client_fingerprint: null,
      nonce: `0x${'07'.repeat(7)}`,
      candidates: [],
      method: null,
      ambiguous: null,
    });
  });
});
