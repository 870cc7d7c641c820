/**
 * One collector per store: the lock of src/store/collector-lock.ts on real SQLite files and a real PostgreSQL
 * database, taken from two separate store handles as two processes would. (Release by SIGKILL is exercised
 * with real processes in collector-robustness.test.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { acquireCollectorLock, CollectorLockedError } from '../../src/store/collector-lock.js';
import { openStore, type Store } from '../../src/store/db.js';
import { createTestDb, DIALECTS, type TestDb } from '../helpers/db.js';

describe.each(DIALECTS)('collector lock on %s', (dialect) => {
  let db: TestDb;
  const stores: Store[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    await db?.drop();
  });

  it('lets one holder in, refuses a second with a clear message, and admits it after release', async () => {
    db = await createTestDb(dialect);
    const a = await openStore(db.url);
    const b = await openStore(db.url);
    stores.push(a, b);
    const first = await acquireCollectorLock(a, db.url);
    const refused = await acquireCollectorLock(b, db.url).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(CollectorLockedError);
    const msg = (refused as Error).message;
    if (dialect === 'sqlite') expect(msg).toBe(`another collector (pid ${process.pid}) holds the store ${db.url}; stop it first, or use serve to read the store`);
    else expect(msg).toMatch(/^another collector \(PostgreSQL session pid \d+\) holds the store postgres:\/\/.*; stop it first/);
    await first.release();
    await first.release(); // idempotent
    const second = await acquireCollectorLock(b, db.url);
    await second.release();
  });
});
