/**
 * Named prepared statements on PostgreSQL (src/store/pg-prepared.ts): the collector's full-size INSERT chunks
 * run as named statements on the connection, everything else unnamed, and the results are those of the
 * unnamed path.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/store/db.js';
import { listTransactions, writeBlocks } from '../../src/store/chain-repo.js';
import { MAX_PREPARED_TEXTS, preparedOnPostgres } from '../../src/store/pg-prepared.js';
import { PG_PREPARED_ROWS } from '../../src/store/chain/write.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { makeBlocks, observationsOf } from '../helpers/observations.js';

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

  it('writes full chunks of PG_PREPARED_ROWS rows through named statements, the rest unnamed, and stores every row', async () => {
    const s = await singleConnectionStore();
    const blocks = makeBlocks({ count: PG_PREPARED_ROWS * 2 + 37, seed: 5 });
    const last = blocks[blocks.length - 1];
    await writeBlocks(s, blocks, { height: last.height, hash: last.hash });
    const { rows } = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements where name like 'pw\\_%'`.execute(s.db);
    const observationInserts = rows.filter((r) => r.statement.startsWith('insert into "observations"'));
    expect(observationInserts).toHaveLength(1);
    expect(observationInserts[0].statement.match(/\(\$\d+/g)).toHaveLength(PG_PREPARED_ROWS);
    const page = await listTransactions(s, {}, { limit: 100, offset: 0 });
    expect(page.total).toBe(observationsOf(blocks).length);
    // Written again: the hashes are skipped, nothing doubles.
    await writeBlocks(s, blocks, { height: last.height, hash: last.hash });
    expect((await listTransactions(s, {}, { limit: 1, offset: 0 })).total).toBe(observationsOf(blocks).length);
  });

  it('marks at most MAX_PREPARED_TEXTS texts; a text past the limit is returned unchanged and runs unnamed', async () => {
    for (let i = 0; i < MAX_PREPARED_TEXTS + 5; i++) expect(preparedOnPostgres(`select ${i} as n`)).toBe(`select ${i} as n`);
    const s = await singleConnectionStore();
    const { rows } = await sql<{ n: number }>`${sql.raw(`select ${MAX_PREPARED_TEXTS + 4} as n`)}`.execute(s.db);
    expect(rows[0].n).toBe(MAX_PREPARED_TEXTS + 4);
    const named = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(s.db);
    expect(named.rows.map((r) => r.statement)).not.toContain(`select ${MAX_PREPARED_TEXTS + 4} as n`);
  });
});
