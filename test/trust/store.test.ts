/**
 * receivedPayments (src/store/trust/index.ts), the "observed inbound payments" of a payTo: direct recipients and
 * leg payees, successful only, restricted to listed token contracts when a list is given. SQLite and PostgreSQL.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { receivedPayments } from '../../src/store/trust/index.js';
import { DIALECTS, storeFactory } from '../helpers/db.js';
import { seedPayment } from './helpers.js';

const PATH_USD = '0x20c0000000000000000000000000000000000000';
const JUNK = '0x20c0000000000000000000000000000000000bad';
const PAY_TO = `0x${'ab'.repeat(20)}`;
const PAYER = `0x${'cd'.repeat(20)}`;
const T = 1_767_225_600;

describe.each(DIALECTS)('receivedPayments on %s', (dialect) => {
  const stores = storeFactory(dialect);
  afterAll(() => stores.cleanup());

  it('counts direct and leg payments, successful only, and restricts the paying token to listed contracts', async () => {
    const s = await stores.fresh();
    await seedPayment(s, PAYER, PAY_TO, 10, T + 10, { direct: true }); // pathUSD, the payTo is the recipient
    await seedPayment(s, PAYER, PAY_TO, 20, T + 20); // pathUSD, a leg pays it
    await seedPayment(s, PAYER, PAY_TO, 30, T + 30, { token: JUNK }); // an unlisted token, through a leg
    await seedPayment(s, PAYER, PAY_TO, 40, T + 40, { token: JUNK, direct: true }); // an unlisted token, direct
    await seedPayment(s, PAYER, PAY_TO, 50, T + 50, { execution: 'failed' }); // reverted: not received

    expect(await receivedPayments(s, PAY_TO, null)).toEqual({ count: 4, first_time_unix: T + 10, last_time_unix: T + 40 });
    expect(await receivedPayments(s, PAY_TO, [PATH_USD])).toEqual({ count: 2, first_time_unix: T + 10, last_time_unix: T + 20 });
    expect(await receivedPayments(s, PAY_TO, [PATH_USD.toUpperCase().replace('0X', '0x')])).toMatchObject({ count: 2 });
    expect(await receivedPayments(s, PAY_TO, [JUNK])).toEqual({ count: 2, first_time_unix: T + 30, last_time_unix: T + 40 });
    expect(await receivedPayments(s, PAY_TO, [])).toEqual({ count: 0, first_time_unix: null, last_time_unix: null });
    expect(await receivedPayments(s, PAYER, [PATH_USD])).toEqual({ count: 0, first_time_unix: null, last_time_unix: null });
  });
});
