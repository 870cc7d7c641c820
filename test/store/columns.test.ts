/**
 * The transaction's members are declared once (TRANSACTION_MEMBERS, src/domain/observation.ts); the pieces derived
 * from it must agree with it and with what the store, the seed and the API really hold: the migrated
 * `observations` table's columns, LIST_COLUMNS, the rows serializeObservation writes, the observations the seed
 * generates, the answers the store reads back and the public zod schema.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { TRANSACTION_MEMBERS, type MemberName } from '../../src/domain/observation.js';
import { LIST_COLUMNS, serializeObservation } from '../../src/store/chain/rows.js';
import { getTransaction, listTransactions, writeBlocks } from '../../src/store/chain/index.js';
import { TransactionDetailSchema, TransactionListSchema, TransactionSchema } from '../../src/chain/schemas.js';
import { DIALECTS, storeFactory } from '../helpers/db.js';
import { makeBlocks, observationsOf } from '../helpers/observations.js';

const names = Object.keys(TRANSACTION_MEMBERS) as MemberName[];
const observed = names.filter((m) => TRANSACTION_MEMBERS[m].observed);
const stored = names.filter((m) => TRANSACTION_MEMBERS[m].stored !== null);
const served = names.filter((m) => TRANSACTION_MEMBERS[m].served !== null);
const sorted = (xs: Iterable<string>) => [...xs].sort();

describe('transaction members', () => {
  const blocks = makeBlocks({ count: 60, seed: 11 });
  const observations = observationsOf(blocks);

  it('every generated observation has exactly the observed members, non-null where declared so', () => {
    for (const o of observations) {
      expect(sorted(Object.keys(o))).toEqual(sorted(observed));
      for (const m of observed) if (!TRANSACTION_MEMBERS[m].nullable) expect(o[m as keyof typeof o], m).not.toBeNull();
    }
  });

  it('every member is observed, stored or served (none is declared for nothing)', () => {
    for (const m of names) expect(observed.includes(m) || stored.includes(m) || served.includes(m), m).toBe(true);
  });

  it('a serialized observation has exactly the stored members as columns', () => {
    for (const o of observations) expect(sorted(Object.keys(serializeObservation(o).row))).toEqual(sorted(stored));
  });

  it('LIST_COLUMNS are the stored members but tx_index, in declaration order', () => {
    expect([...LIST_COLUMNS]).toEqual(stored.filter((m) => m !== 'tx_index'));
  });

  it('the public zod schemas have the served members in declaration order, nullable exactly where declared so', () => {
    expect(Object.keys(TransactionSchema.shape)).toEqual(served);
    expect(Object.keys(TransactionDetailSchema.shape).slice(0, served.length)).toEqual(served);
    for (const m of served) {
      const schema = TransactionSchema.shape[m as keyof typeof TransactionSchema.shape];
      expect(schema.safeParse(null).success, m).toBe(TRANSACTION_MEMBERS[m].nullable);
      expect(schema.description, m).toBe(TRANSACTION_MEMBERS[m].served);
    }
  });
});

describe.each(DIALECTS)('transaction members on %s', (dialect) => {
  const stores = storeFactory(dialect);
  afterAll(() => stores.cleanup());

  it('the migrated observations table has exactly the stored members plus the rank seq', async () => {
    const s = await stores.fresh();
    const table = (await s.db.introspection.getTables()).find((t) => t.name === 'observations');
    expect(sorted(table!.columns.map((c) => c.name))).toEqual(sorted([...stored, 'seq']));
    for (const c of LIST_COLUMNS) expect(table!.columns.map((t) => t.name)).toContain(c);
    for (const c of table!.columns) {
      // SQLite reports its TEXT primary key as nullable (a legacy quirk); writes never leave it null.
      if (c.name === 'seq' || (c.name === 'hash' && dialect === 'sqlite')) continue;
      expect(c.isNullable, c.name).toBe(TRANSACTION_MEMBERS[c.name as MemberName].nullable);
    }
  });

  it('rows read back have exactly the served members and pass the public schema; details add the retained data', async () => {
    const s = await stores.fresh();
    const blocks = makeBlocks({ count: 40, seed: 12 });
    const last = blocks[blocks.length - 1];
    await writeBlocks(s, blocks, { height: last.height, hash: last.hash });
    const page = await listTransactions(s, {}, { limit: 100, offset: 0 });
    expect(page.rows.length).toBe(observationsOf(blocks).length);
    for (const r of page.rows) expect(sorted(Object.keys(r))).toEqual(sorted(served));
    expect(TransactionListSchema.safeParse({ ...page, limit: 100, offset: 0 }).success).toBe(true);
    const detail = await getTransaction(s, page.rows[0].hash);
    expect(sorted(Object.keys(detail!))).toEqual(sorted(Object.keys(TransactionDetailSchema.shape)));
  });
});
