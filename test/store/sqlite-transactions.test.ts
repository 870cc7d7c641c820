/**
 * SQLite write transactions take the write lock when they begin (src/store/sqlite.ts ImmediateSqliteDialect): a
 * transaction that reads first and writes later is never refused with SQLITE_BUSY_SNAPSHOT because another
 * connection (the collector's writer thread, another process) committed in between; the other connection
 * waits for the lock instead. Real SQLite file, real second connection.
 */
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { openStore, type Store } from '../../src/store/db.js';
import { getCheckpoint } from '../../src/store/chain/index.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('SQLite write transactions', () => {
  it('a transaction that reads, then writes after another connection tried to commit, commits', async () => {
    const db: TestDb = await createTestDb('sqlite');
    cleanup.push(() => db.drop());
    const store: Store = await openStore(db.url);
    cleanup.push(() => store.close());
    // Another writer of the same file, not waiting for locks (busy_timeout 0), with a table of its own.
    const other = new Database(db.url.slice('sqlite:'.length));
    cleanup.push(() => {
      other.close();
    });
    other.pragma('busy_timeout = 0');
    other.exec('CREATE TABLE other_writes (x INTEGER)');
    const otherWrite = other.prepare('INSERT INTO other_writes VALUES (1)');

    let otherRefused: string | null = null;
    await store.db.transaction().execute(async (trx) => {
      await trx.selectFrom('checkpoint').selectAll().execute(); // the read that starts a deferred snapshot
      try {
        otherWrite.run(); // commits at once unless this transaction holds the write lock
      } catch (e) {
        otherRefused = (e as { code?: string }).code ?? 'unknown';
      }
      await trx
        .insertInto('checkpoint')
        .values({ id: 1, height: 7, hash: `0x${'11'.repeat(32)}`, updated_at: new Date().toISOString() })
        .execute();
    });

    expect(otherRefused).toBe('SQLITE_BUSY');
    expect((await getCheckpoint(store))?.height).toBe(7);
    otherWrite.run(); // the lock is free again once the transaction committed
    expect(other.prepare('SELECT count(*) AS n FROM other_writes').get()).toEqual({ n: 1 });
  });
});
