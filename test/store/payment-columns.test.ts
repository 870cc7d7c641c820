/**
 * The payment columns of migration chain_0009_payments: the writer fills payer, self_payment and the memo's
 * fingerprints from each detail, and a store written before the migration gets the same values from its stored
 * details, in batches that resume after an interruption, an unreadable detail leaving only its own row unknown.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { BlockObservations } from '../../src/domain/observation.js';
import { paymentColumnsOf } from '../../src/store/chain/payment-columns.js';
import { backfillPaymentColumns } from '../../src/store/chain/backfill-payments.js';
import { writeBlocks } from '../../src/store/chain/index.js';
import { chainMigrations } from '../../src/store/migrations/chain.js';
import { migrateStore } from '../../src/store/migrate.js';
import type { Store } from '../../src/store/db.js';
import { DIALECTS, storeFactory } from '../helpers/db.js';
import { makeBlocks } from '../helpers/observations.js';

const A = `0x${'aa'.repeat(20)}`;
const B = `0x${'bb'.repeat(20)}`;
const SERVER = '0xc62939e7f7496e1106ef';
const CLIENT = '0x6065bcf287cc18ca700f';

describe('paymentColumnsOf', () => {
  it('takes the payer and fingerprints of the detail, lower-cased, and flags a self-payment', () => {
    const attribution = {
      log_index: 1,
      version: 1,
      server_fingerprint: SERVER.toUpperCase().replace('0X', '0x'),
      client_fingerprint: CLIENT,
      nonce: '0x01',
    };
    expect(paymentColumnsOf({ payer: A.toUpperCase().replace('0X', '0x'), attribution }, B)).toEqual({
      payer: A,
      self_payment: 0,
      client_fingerprint: CLIENT,
      server_fingerprint: SERVER,
    });
    expect(paymentColumnsOf({ payer: A, attribution: { ...attribution, client_fingerprint: null } }, A)).toEqual({
      payer: A,
      self_payment: 1,
      client_fingerprint: null,
      server_fingerprint: SERVER,
    });
  });

  it('is unknown (null), never a guess, for missing, malformed or hostile members', () => {
    const none = { payer: null, self_payment: null, client_fingerprint: null, server_fingerprint: null };
    expect(paymentColumnsOf(null, A)).toEqual(none);
    expect(paymentColumnsOf({}, A)).toEqual(none);
    expect(paymentColumnsOf({ payer: null, attribution: null }, A)).toEqual(none);
    expect(paymentColumnsOf({ payer: 'not an address' as string, attribution: null }, A)).toEqual(none);
    // A payer with an unknown recipient: who paid is known, whether to themselves is not.
    expect(paymentColumnsOf({ payer: A, attribution: null }, null)).toEqual({ ...none, payer: A });
    const bad = { log_index: 0, version: 1, server_fingerprint: `${SERVER}'; drop table x`, client_fingerprint: 7 as never, nonce: '' };
    expect(paymentColumnsOf({ payer: A, attribution: bad }, B)).toEqual({ ...none, payer: A, self_payment: 0 });
  });
});

/** Seed blocks whose details carry payers (every 5th a self-payment) and, every 3rd, an attribution memo. */
function paidBlocks(count: number, seed: number): BlockObservations[] {
  const blocks = makeBlocks({ count, seed });
  let i = 0;
  for (const b of blocks)
    for (const o of b.observations) {
      const n = i++;
      o.detail.payer = n % 5 === 0 ? o.recipient : o.sender;
      o.detail.attribution =
        n % 3 === 0
          ? { log_index: 0, version: 1, server_fingerprint: SERVER, client_fingerprint: n % 2 ? CLIENT : null, nonce: '0x0102030405060708' }
          : null;
    }
  return blocks;
}

const COLUMNS = ['hash', 'payer', 'self_payment', 'client_fingerprint', 'server_fingerprint'] as const;
const paymentRows = (s: Store) => s.db.selectFrom('observations').select(COLUMNS).orderBy('hash').execute();

describe.each(DIALECTS)('payment columns on %s', (dialect) => {
  const stores = storeFactory(dialect);
  afterAll(() => stores.cleanup());

  it('the writer fills them at collection', async () => {
    const s = await stores.fresh();
    const blocks = paidBlocks(30, 3);
    const last = blocks[blocks.length - 1];
    await writeBlocks(s, blocks, { height: last.height, hash: last.hash });
    const rows = await paymentRows(s);
    const all = blocks.flatMap((b) => b.observations);
    expect(rows.length).toBe(all.length);
    for (const o of all) {
      const r = rows.find((x) => x.hash === o.hash)!;
      const want = paymentColumnsOf(o.detail, o.recipient?.toLowerCase() ?? null);
      expect({ ...r, self_payment: r.self_payment == null ? null : Number(r.self_payment) }).toEqual({ hash: o.hash, ...want });
    }
    expect(rows.some((r) => Number(r.self_payment) === 1)).toBe(true);
    expect(rows.some((r) => r.server_fingerprint === SERVER)).toBe(true);
    // Nothing left to backfill on a store written with the columns.
    expect(await backfillPaymentColumns(s)).toBe(0);
  });

  it('a store written before chain_0009 gets the same values from its details, resuming after an interruption', async () => {
    const s = await stores.fresh();
    const blocks = paidBlocks(40, 4);
    const last = blocks[blocks.length - 1];
    await writeBlocks(s, blocks, { height: last.height, hash: last.hash });
    const written = await paymentRows(s);
    const migration = chainMigrations.chain_0009_payments;
    await migration.down!(s.db);
    await migration.up(s.db);
    await migration.up(s.db); // a second run changes nothing
    const empty = await paymentRows(s);
    expect(empty.every((r) => r.payer === null && r.server_fingerprint === null)).toBe(true);
    // One row's detail is unreadable: it stays unknown, the others are filled.
    const broken = written[7].hash;
    await sql`update observation_details set packed = ${Buffer.from([1, 2, 3])} where seq = (select seq from observations where hash = ${broken})`.execute(
      s.db,
    );
    // Interrupted after the first batch of 5 rows (the error comes after that batch committed).
    let batches = 0;
    await expect(
      backfillPaymentColumns(
        s,
        (done) => {
          if (done > 0 && ++batches === 1) throw new Error('interrupted');
        },
        5,
      ),
    ).rejects.toThrow('interrupted');
    const stats = await s.db.selectFrom('chain_stats').select(['payments_next', 'payments_end']).executeTakeFirstOrThrow();
    expect(Number(stats.payments_next)).toBe(5);
    const total = written.length;
    expect(await backfillPaymentColumns(s, undefined, 5)).toBe(total - 5);
    const after = await paymentRows(s);
    expect(after.map((r) => ({ ...r, self_payment: r.self_payment == null ? null : Number(r.self_payment) }))).toEqual(
      written.map((r) =>
        r.hash === broken
          ? { hash: broken, payer: null, self_payment: null, client_fingerprint: null, server_fingerprint: null }
          : { ...r, self_payment: r.self_payment == null ? null : Number(r.self_payment) },
      ),
    );
    const done = await s.db.selectFrom('chain_stats').select(['payments_next', 'payments_end']).executeTakeFirstOrThrow();
    expect(done).toEqual({ payments_next: null, payments_end: null });
    // migrateStore runs it too, and finds nothing left.
    await migrateStore(s);
    expect(await backfillPaymentColumns(s)).toBe(0);
  });

  it('the payer, service and provider filters have their own partial indexes', async () => {
    const s = await stores.fresh();
    const names =
      dialect === 'postgres'
        ? (await sql<{ indexname: string }>`select indexname from pg_indexes where tablename = 'observations'`.execute(s.db)).rows.map(
            (r) => r.indexname,
          )
        : (
            await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'observations'`.execute(s.db)
          ).rows.map((r) => r.name);
    for (const c of ['payer', 'service_id', 'provider']) expect(names).toContain(`observations_${c}_time_asc`);
    expect(names).toContain('observations_server_fingerprint');
  });
});
