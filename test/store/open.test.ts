import { afterAll, describe, expect, it } from 'vitest';
import { Kysely, SqliteDialect, sql } from 'kysely';
import SqliteDatabase from 'better-sqlite3';
import { cachingStatements, openStore, parseDbTarget } from '../../src/store/db.js';
import { createTestDb, DIALECTS, type TestDb } from '../helpers/db.js';

describe.each(DIALECTS)('store on %s', (dialect) => {
  const dbs: TestDb[] = [];
  afterAll(async () => Promise.all(dbs.map((d) => d.drop())));

  it('opens, migrates twice idempotently and answers a query', async () => {
    const t = await createTestDb(dialect);
    dbs.push(t);
    const s = await openStore(t.url);
    await s.close();
    const s2 = await openStore(t.url);
    const r = await sql<{ one: number }>`select 1 as one`.execute(s2.db);
    expect(Number(r.rows[0].one)).toBe(1);
    expect(s2.dialect).toBe(dialect);
    await s2.close();
  });
});

describe('SQLite store file', () => {
  it('a new file gets 16 KiB pages in WAL mode; an existing file keeps its page size', async () => {
    const t = await createTestDb('sqlite');
    try {
      const s = await openStore(t.url);
      expect(Number((await sql<{ page_size: number }>`pragma page_size`.execute(s.db)).rows[0].page_size)).toBe(16384);
      expect((await sql<{ journal_mode: string }>`pragma journal_mode`.execute(s.db)).rows[0].journal_mode).toBe('wal');
      await s.close();
      const old = new SqliteDatabase(`${t.url.slice('sqlite:'.length)}.old`);
      old.pragma('page_size = 4096');
      old.exec('create table x (a integer)');
      old.close();
      const s2 = await openStore(`${t.url}.old`);
      expect(Number((await sql<{ page_size: number }>`pragma page_size`.execute(s2.db)).rows[0].page_size)).toBe(4096);
      await s2.close();
    } finally {
      await t.drop();
    }
  });
});

describe('parseDbTarget', () => {
  it('chooses the dialect from the value', () => {
    expect(parseDbTarget('postgres://u:p@h/db')).toEqual({ dialect: 'postgres', target: 'postgres://u:p@h/db' });
    expect(parseDbTarget('sqlite:./x.db')).toEqual({ dialect: 'sqlite', target: './x.db' });
    expect(parseDbTarget('./data/a.sqlite')).toEqual({ dialect: 'sqlite', target: './data/a.sqlite' });
    expect(() => parseDbTarget('  ')).toThrow();
  });
  it('reports an unreachable PostgreSQL in one line', async () => {
    await expect(openStore('postgres://postgres@127.0.0.1:1/none')).rejects.toThrow(/cannot reach PostgreSQL/);
  });
});

describe('cachingStatements (SQLite prepared-statement cache)', () => {
  it('hands out one prepared statement per SQL text, keeps at most `max`, dropping the least recently used', () => {
    const raw = new SqliteDatabase(':memory:');
    const db = cachingStatements(raw, 2);
    const a = db.prepare('select 1');
    expect(db.prepare('select 1')).toBe(a);
    const b = db.prepare('select 2');
    db.prepare('select 1'); // now 'select 2' is the least recently used
    db.prepare('select 3');
    expect(db.prepare('select 1')).toBe(a);
    expect(db.prepare('select 2')).not.toBe(b);
    db.close();
    expect(raw.open).toBe(false);
  });

  it('never hands out a statement that is still iterating, and follows schema changes', () => {
    const raw = new SqliteDatabase(':memory:');
    const db = cachingStatements(raw);
    raw.exec('create table t (a integer); insert into t values (1), (2)');
    const s = db.prepare('select * from t') as unknown as SqliteDatabase.Statement;
    const it = s.iterate();
    it.next();
    const other = db.prepare('select * from t') as unknown as SqliteDatabase.Statement;
    expect(other).not.toBe(s);
    expect(other.all()).toEqual([{ a: 1 }, { a: 2 }]);
    it.return?.();
    raw.exec('alter table t add column b text');
    expect((db.prepare('select * from t') as unknown as SqliteDatabase.Statement).all()).toEqual([
      { a: 1, b: null },
      { a: 2, b: null },
    ]);
    db.close();
  });

  it('serves Kysely: repeated queries, a stream left early, and a transaction that rolls back', async () => {
    const k = new Kysely<{ t: { a: number } }>({
      dialect: new SqliteDialect({ database: cachingStatements(new SqliteDatabase(':memory:')) }),
    });
    await k.schema.createTable('t').addColumn('a', 'integer').execute();
    for (let i = 0; i < 5; i++) await k.insertInto('t').values({ a: i }).execute();
    for await (const row of k.selectFrom('t').selectAll().stream()) if (row.a === 1) break;
    expect((await k.selectFrom('t').selectAll().execute()).map((r) => r.a)).toEqual([0, 1, 2, 3, 4]);
    await expect(
      k.transaction().execute(async (tx) => {
        await tx.insertInto('t').values({ a: 9 }).execute();
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(
      await k
        .selectFrom('t')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    ).toEqual({ n: 5 });
    await k.destroy();
  });
});
