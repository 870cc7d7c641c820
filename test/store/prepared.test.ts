/**
 * Prepared statements (src/store/prepared.ts): on PostgreSQL the collector's full-size INSERT chunks and the texts
 * executePrepared runs are named statements on the connection, everything else unnamed, and the results are those
 * of the unnamed path; on both dialects executePrepared answers and fails like any query.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CompiledQuery, sql } from 'kysely';
import { openStore, type Store } from '../../src/store/db.js';
import { listTransactions, writeBlocks } from '../../src/store/chain/index.js';
import { executePrepared, MAX_PREPARED_TEXTS, preparedOnPostgres } from '../../src/store/prepared.js';
import { StoreUnavailable } from '../../src/store/outage.js';
import { PG_PREPARED_ROWS } from '../../src/store/chain/write.js';
import { createTestDb, DIALECTS, type TestDb } from '../helpers/db.js';
import { makeBlocks, observationsOf } from '../helpers/observations.js';

describe.each(DIALECTS)('executePrepared on %s', (dialect) => {
  const dbs: TestDb[] = [];
  afterAll(async () => Promise.all(dbs.map((d) => d.drop())));

  it('runs a prepared statement again and again, concurrently, and fails like any query once the store is closed', async () => {
    const t = await createTestDb(dialect);
    dbs.push(t);
    const s = await openStore(t.url);
    await sql`create table prep_t (a integer primary key, b text)`.execute(s.db);
    const insert = (a: number) =>
      executePrepared(
        s,
        CompiledQuery.raw(`insert into prep_t (a, b) values (${dialect === 'postgres' ? '$1, $2' : '?, ?'}) returning a, b`, [a, `v${a}`]),
      );
    const rows = await Promise.all(Array.from({ length: 30 }, (_, i) => insert(i)));
    expect(rows.map((r) => r[0])).toEqual(Array.from({ length: 30 }, (_, i) => ({ a: i, b: `v${i}` })));
    await expect(insert(0)).rejects.toThrow(/unique|UNIQUE|duplicate/);
    await s.close();
    await expect(insert(99)).rejects.toBeInstanceOf(StoreUnavailable);
  });
});

describe('named prepared statements on PostgreSQL', () => {
  const opened: { db: TestDb; store: Store }[] = [];
  afterAll(async () => {
    for (const o of opened) await o.store.close().catch(() => {});
    for (const o of opened) await o.db.drop();
  });
  /** A store with one pooled connection, so the session that wrote is the one asked. */
  async function singleConnectionStore(): Promise<Store> {
    const db = await createTestDb('postgres');
    const store = await openStore(db.url, { poolSize: 1 });
    opened.push({ db, store });
    return store;
  }
  const preparedTexts = async (s: Store) =>
    (
      await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements where name like 'pw\\_%'`.execute(
        s.db,
      )
    ).rows;

  it('writes full chunks of PG_PREPARED_ROWS rows through named statements, the rest unnamed, and stores every row', async () => {
    const s = await singleConnectionStore();
    const blocks = makeBlocks({ count: PG_PREPARED_ROWS * 2 + 37, seed: 5 });
    const last = blocks[blocks.length - 1];
    await writeBlocks(s, blocks, { height: last.height, hash: last.hash });
    const observationInserts = (await preparedTexts(s)).filter((r) => r.statement.startsWith('insert into "observations"'));
    expect(observationInserts).toHaveLength(1);
    expect(observationInserts[0].statement.match(/\(\$\d+/g)).toHaveLength(PG_PREPARED_ROWS);
    const page = await listTransactions(s, {}, { limit: 100, offset: 0 });
    expect(page.total).toBe(observationsOf(blocks).length);
    // Written again: the hashes are skipped, nothing doubles.
    await writeBlocks(s, blocks, { height: last.height, hash: last.hash });
    expect((await listTransactions(s, {}, { limit: 1, offset: 0 })).total).toBe(observationsOf(blocks).length);
  });

  it('runs executePrepared texts as named statements, once per text', async () => {
    const s = await singleConnectionStore();
    const text = 'select $1::int + 1 as n';
    for (let i = 0; i < 3; i++) expect(await executePrepared(s, CompiledQuery.raw(text, [i]))).toEqual([{ n: i + 1 }]);
    expect((await preparedTexts(s)).filter((r) => r.statement === text)).toHaveLength(1);
  });

  // Last: it uses up the marks this file's process has left.
  it('marks at most MAX_PREPARED_TEXTS texts; a text past the limit is returned unchanged and runs unnamed', async () => {
    for (let i = 0; i < MAX_PREPARED_TEXTS + 5; i++) expect(preparedOnPostgres(`select ${i} as n`)).toBe(`select ${i} as n`);
    const s = await singleConnectionStore();
    const { rows } = await sql<{ n: number }>`${sql.raw(`select ${MAX_PREPARED_TEXTS + 4} as n`)}`.execute(s.db);
    expect(rows[0].n).toBe(MAX_PREPARED_TEXTS + 4);
    const named = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(s.db);
    expect(named.rows.map((r) => r.statement)).not.toContain(`select ${MAX_PREPARED_TEXTS + 4} as n`);
  });
});
