/**
 * Test databases: every test (or file) gets its own SQLite file or its own PostgreSQL database, so suites run
 * in parallel without seeing each other. PostgreSQL is the machine's server at 127.0.0.1:5432 (trust auth);
 * PAYWATCH_TEST_PG overrides the admin URL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openStore, type Store } from '../../src/store/db.js';

export const PG_ADMIN_URL = process.env.PAYWATCH_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export type TestDialect = 'sqlite' | 'postgres';
export const DIALECTS: TestDialect[] = ['sqlite', 'postgres'];

export interface TestDb {
  /** A value for --db / openStore. */
  url: string;
  dialect: TestDialect;
  /** Drops the database or deletes the file. */
  drop(): Promise<void>;
}

/** Creates a fresh, empty database of the given dialect. */
export async function createTestDb(dialect: TestDialect): Promise<TestDb> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'paywatch-test-'));
    return { url: `sqlite:${join(dir, 'store.sqlite')}`, dialect, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `pw_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(PG_ADMIN_URL);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    dialect,
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * Fresh stores of one dialect for a describe block: `fresh()` opens a new, migrated store in its own database,
 * `reopen(store)` opens a second handle on the same database (as another process would), and `cleanup()`
 * (call it in afterAll) closes every handle and drops every database.
 */
export function storeFactory(dialect: TestDialect) {
  const made: { db: TestDb; store: Store }[] = [];
  const handles: Store[] = [];
  return {
    async fresh(): Promise<Store> {
      const db = await createTestDb(dialect);
      const store = await openStore(db.url);
      made.push({ db, store });
      handles.push(store);
      return store;
    },
    async reopen(store: Store): Promise<Store> {
      const entry = made.find((m) => m.store === store);
      if (!entry) throw new Error('reopen: not a store of this factory');
      const other = await openStore(entry.db.url);
      handles.push(other);
      return other;
    },
    async cleanup(): Promise<void> {
      await Promise.all(handles.map((s) => s.close().catch(() => {})));
      await Promise.all(made.map((m) => m.db.drop()));
    },
  };
}

/** The number of rows in the store's `observations` table (a count read straight from the table, not the API). */
export async function countObservations(s: Store): Promise<number> {
  const row = await s.db
    .selectFrom('observations')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
