/**
 * analysePayers (src/trust/payers.ts over src/store/trust/payers.ts): who paid a payTo over the window, from the
 * rollups the real writer keeps: distinct payers, top share, self-payments, and funding links of each kind with
 * their transaction hashes; unlisted tokens and failed payments ignored. SQLite and PostgreSQL.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { analysePayers } from '../../src/trust/payers.js';
import { DIALECTS, storeFactory } from '../helpers/db.js';
import { PAYERS_EXAMINED_MAX } from '../../src/store/trust/payers.js';
import { seedPayment, seedPayments, type SeedPaymentSpec } from './helpers.js';

const JUNK = '0x20c0000000000000000000000000000000000bad';
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const PAY_TO = addr(0xaaaa);
const FUNDER = addr(0xf0f0); // funds the payTo first, then some payers
const COMMON = addr(0xc0c0); // first-funds most payers of another payTo
const T = 1_767_225_600; // 2026-01-01
const NOW = new Date((T + 10 * 86_400) * 1000);
const txOf = (height: number) => `0x${height.toString(16).padStart(64, 'a')}`;

describe.each(DIALECTS)('analysePayers on %s', (dialect) => {
  const stores = storeFactory(dialect);
  afterAll(() => stores.cleanup());

  it('counts listed payers, the top share and self-payments, and links payers funded by the payTo or its funder', async () => {
    const s = await stores.fresh();
    let h = 100;
    const pay = (from: string, to: string, amount: string, o: Parameters<typeof seedPayment>[5] = {}) =>
      seedPayment(s, from, to, ++h, T + h * 60, { direct: true, amount, ...o });
    await pay(FUNDER, PAY_TO, '5'); // the payTo's first inflow: FUNDER is its funder (h 101)
    await pay(PAY_TO, addr(1), '1'); // the payTo funds wallet 1 (h 102)
    await pay(PAY_TO, addr(2), '1'); // and wallet 2 (h 103)
    await pay(FUNDER, addr(3), '1'); // its funder funds wallet 3 (h 104)
    await pay(addr(0x99), addr(4), '1'); // an unrelated address funds wallet 4
    for (const w of [1, 2, 3, 4]) await pay(addr(w), PAY_TO, '0.5');
    await pay(addr(5), PAY_TO, '0.5'); // wallet 5 was never funded within the window
    await pay(PAY_TO, PAY_TO, '1'); // a self-payment
    await pay(addr(6), PAY_TO, '100', { token: JUNK }); // an unlisted token proves nothing
    await pay(addr(7), PAY_TO, '100', { execution: 'failed' }); // reverted: not paid

    const a = await analysePayers(s, PAY_TO.toUpperCase().replace('0X', '0x'), { now: NOW });
    expect(a).toMatchObject({
      pay_to: PAY_TO,
      payments: 7,
      nominal: '8.5', // 5 + 4 × 0.5 + 0.5 + 1
      distinct_payers: 6, // FUNDER and wallets 1–5
      top_payer: FUNDER,
      top_payer_payments: 1,
      top_payer_tx: txOf(101),
      self_payments: 1,
      funder: { address: FUNDER, time: T + 101 * 60, tx: txOf(101) },
      payers_examined: 6,
      capped: false,
      common_funder: null,
      self_funded_payers: 3,
      funding_links_total: 3,
      complete: expect.any(Boolean),
    });
    expect(a.top_payer_share).toBeCloseTo(5 / 8.5, 6);
    expect(a.self_funded_share).toBeCloseTo((1 + 3 * 0.5) / 8.5, 6); // the self-payment and wallets 1–3
    expect(a.covered_since).not.toBeNull();
    expect(a.funding_links).toEqual(
      expect.arrayContaining([
        { payer: addr(1), funder: PAY_TO, kind: 'pay_to', time: T + 102 * 60, tx: txOf(102), nominal: '0.5' },
        { payer: addr(2), funder: PAY_TO, kind: 'pay_to', time: T + 103 * 60, tx: txOf(103), nominal: '0.5' },
        { payer: addr(3), funder: FUNDER, kind: 'pay_to_funder', time: T + 104 * 60, tx: txOf(104), nominal: '0.5' },
      ]),
    );
    expect(a.funding_links).toHaveLength(3);
  });

  it('names one common funder of most payers without counting it as self-funding; nothing paid is zero payers', async () => {
    const s = await stores.fresh();
    let h = 100;
    const pay = (from: string, to: string, amount: string) => seedPayment(s, from, to, ++h, T + h * 60, { direct: true, amount });
    await pay(addr(0x77), PAY_TO, '1'); // the payTo's first payer (its "funder"), funded by nobody we see
    for (const w of [1, 2, 3, 4]) await pay(COMMON, addr(w), '2');
    await pay(addr(0x55), addr(5), '2');
    for (const w of [1, 2, 3, 4, 5]) await pay(addr(w), PAY_TO, '1');
    const a = await analysePayers(s, PAY_TO, { now: NOW });
    expect(a).toMatchObject({
      distinct_payers: 6,
      common_funder: { address: COMMON, payers: 4 },
      self_funded_payers: 0,
      self_funded_share: 0,
    });
    expect(a.funding_links.map((l) => [l.payer, l.kind])).toEqual(
      expect.arrayContaining([1, 2, 3, 4].map((w) => [addr(w), 'common_funder'])),
    );
    const none = await analysePayers(s, addr(0xdead), { now: NOW });
    expect(none).toMatchObject({ payments: 0, nominal: null, distinct_payers: 0, top_payer: null, top_payer_share: null, funder: null });
    // Outside the window (more than 30 days later) nothing counts.
    const later = await analysePayers(s, PAY_TO, { now: new Date(NOW.getTime() + 60 * 86_400_000) });
    expect(later).toMatchObject({ payments: 0, distinct_payers: 0 });
  });

  it('sums amounts too large for the integer columns exactly, beside ordinary ones of the same payer', async () => {
    const s = await stores.fresh();
    let h = 100;
    const pay = (from: string, to: string, amount: string) => seedPayment(s, from, to, ++h, T + h * 60, { direct: true, amount });
    const huge = '2000000000000000.25'; // 2 × 10^15 whole units: kept in the rollups' `big` part (../../src/store/chain/rollup-amounts.ts)
    await pay(addr(1), PAY_TO, huge);
    await pay(addr(1), PAY_TO, '0.5');
    await pay(addr(2), PAY_TO, huge);
    await pay(addr(3), PAY_TO, '1');
    const a = await analysePayers(s, PAY_TO, { now: NOW });
    expect(a).toMatchObject({ payments: 4, nominal: '4000000000000002', distinct_payers: 3, top_payer: addr(1), top_payer_payments: 2 });
  });

  it('examines the largest 1,000 payers only, says so, and keeps the other figures exact over every payer', async () => {
    const s = await stores.fresh();
    const payments: SeedPaymentSpec[] = [];
    const pay = (from: string, to: string, amount: string) =>
      payments.push({ from, to, amount, direct: true, height: 100 + payments.length, time: T + payments.length * 10 });
    const big = PAYERS_EXAMINED_MAX; // payers 1…1000 pay 1 each: the examined ones
    const small = [big + 1, big + 2, big + 3]; // pay 0.01 each: beyond the cap
    for (const w of [1, 2, 3, 4, 5, ...small]) pay(PAY_TO, addr(w), '1'); // the payTo funds 5 large and the 3 small payers
    for (let w = 1; w <= big; w++) pay(addr(w), PAY_TO, '1');
    for (const w of small) pay(addr(w), PAY_TO, '0.01');
    await seedPayments(s, payments);

    const a = await analysePayers(s, PAY_TO, { now: NOW });
    expect(a).toMatchObject({
      payments: big + 3,
      nominal: '1000.03',
      distinct_payers: big + 3,
      top_payer: addr(1), // ties at 1: the lowest address
      payers_examined: big,
      capped: true,
      // Links among the examined payers only: the 3 small self-funded payers are missed, so these are lower bounds…
      funding_links_total: 5,
      self_funded_payers: 5,
    });
    expect(a.top_payer_share).toBeCloseTo(1 / 1000.03, 6);
    expect(a.self_funded_share).toBeCloseTo(5 / 1000.03, 6);
    // …and examined_share bounds what was missed: the true share (5.03 / 1000.03) is at most self_funded_share + 1 − examined_share.
    expect(a.examined_share).toBeCloseTo(1000 / 1000.03, 6);
    expect(5.03 / 1000.03).toBeLessThanOrEqual(a.self_funded_share! + 1 - a.examined_share! + 1e-9);
    expect(a.funding_links.map((l) => l.payer)).toEqual([1, 2, 3, 4, 5].map(addr));
  });
});
