/**
 * One collector per store: the lock of src/store/chain/collector-lock.ts on real SQLite files and a real PostgreSQL
 * database, taken from two separate store handles as two processes would. (Release by SIGKILL is exercised
 * with real processes in collector-robustness.test.ts.) On PostgreSQL the lock lives in one session: the tests
 * end that session for real (pg_terminate_backend) and check the lock is taken again, or, when another collector
 * took it meanwhile, that the holder learns it and its collector stops before writing.
 */
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { CollectorFailed, launchCollector } from '../../src/chain/collector/index.js';
import { loadConfig } from '../../src/config.js';
import { generateLoad } from '../../src/demo/activity.js';
import { getCheckpoint } from '../../src/store/chain/index.js';
import { acquireCollectorLock, COLLECTOR_LOCK_KEY, CollectorLockedError } from '../../src/store/chain/collector-lock.js';
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
    if (dialect === 'sqlite')
      expect(msg).toBe(`another collector (pid ${process.pid}) holds the store ${db.url}; stop it first, or use serve to read the store`);
    else expect(msg).toMatch(/^another collector \(PostgreSQL session pid \d+\) holds the store postgres:\/\/.*; stop it first/);
    await first.release();
    await first.release(); // idempotent
    const second = await acquireCollectorLock(b, db.url);
    await second.release();
  });
});

/** Backend pid of the PostgreSQL session holding the collector lock in this store's database, or null. */
async function lockHolder(store: Store): Promise<number | null> {
  const r = await sql<{ pid: number }>`select pid from pg_locks where locktype = 'advisory' and granted
    and database = (select oid from pg_database where datname = current_database())
    and ((classid::bigint << 32) | objid::bigint) = ${sql.lit(COLLECTOR_LOCK_KEY)}::bigint`.execute(store.db);
  return r.rows[0] ? Number(r.rows[0].pid) : null;
}

/** Ends a PostgreSQL session for real and waits (up to 5 s) until it is gone, its locks with it. */
async function terminate(admin: Store, pid: number | null): Promise<void> {
  expect(pid).not.toBeNull();
  const r = await sql<{ done: boolean }>`select pg_terminate_backend(${pid}, 5000) as done`.execute(admin.db);
  expect(r.rows[0]?.done).toBe(true);
}

describe('collector lock on postgres when its session ends', () => {
  let db: TestDb;
  let node: AnvilNode | null = null;
  const stores: Store[] = [];
  // Released even when a test fails half-way: a pinned lock session would keep its store's pool from closing.
  const releases: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const r of releases.splice(0)) await r().catch(() => {});
    for (const s of stores.splice(0)) await s.close();
    await db?.drop();
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('takes the lock again in a new session when nobody else took it', async () => {
    db = await createTestDb('postgres');
    const a = await openStore(db.url);
    const admin = await openStore(db.url);
    stores.push(a, admin);
    const lock = await acquireCollectorLock(a, db.url);
    releases.push(() => lock.release());
    await lock.assertHeld();
    const first = await lockHolder(admin);
    expect(first).not.toBeNull();
    await terminate(admin, first);
    expect(await lockHolder(admin)).toBeNull();
    await lock.assertHeld();
    const second = await lockHolder(admin);
    expect(second).not.toBeNull();
    expect(second).not.toBe(first);
    await lock.release();
    expect(await lockHolder(admin)).toBeNull();
  });

  it('tells the holder, and stops its collector before any write, when another collector took the lock', async () => {
    node = await startAnvil();
    await generateLoad(node.rpcUrl, { transactions: 20, perBlock: 2 });
    db = await createTestDb('postgres');
    const a = await openStore(db.url);
    const b = await openStore(db.url);
    stores.push(a, b);
    const config = loadConfig({ db: db.url, rpcUrl: node.rpcUrl, from: 0, logLevel: 'silent' });
    const launched = await launchCollector(config, a, pino({ level: 'silent' }), { once: true });
    releases.push(() => launched.release());
    await terminate(b, await lockHolder(b));
    const other = await acquireCollectorLock(b, db.url);
    releases.push(() => other.release());
    const failed = await launched.collector.run().then(
      () => null,
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(CollectorFailed);
    expect((failed as Error).message).toMatch(/^lost the collector lock: another collector \(PostgreSQL session pid \d+\) holds the store/);
    expect(launched.collector.status().state).toBe('error');
    expect(await getCheckpoint(a)).toBeNull();
    await expect(acquireCollectorLock(a, db.url)).rejects.toBeInstanceOf(CollectorLockedError);
    await expect(launched.release()).resolves.toBeUndefined();
  }, 120_000);
});
