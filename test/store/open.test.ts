import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openStore, parseDbTarget } from '../../src/store/db.js';
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
