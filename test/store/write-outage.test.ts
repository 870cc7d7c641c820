/**
 * A store that answers reads but cannot write is an outage: every write is 503 with Retry-After, and /readyz is 503
 * with the reason until a write succeeds again: another one, or the readiness probe's own tiny write (rolled back). Real faults: SQLite's own SQLITE_FULL (its `max_page_count` at the
 * file's size), a SQLite file opened read-only (SQLITE_READONLY), and PostgreSQL's read-only transactions (25006,
 * `default_transaction_read_only` on the database).
 */
import { afterEach, expect, it } from 'vitest';
import pg from 'pg';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { openStore, WRITE_PROBE_INTERVAL_MS, type Store } from '../../src/store/db.js';
import { loadConfig } from '../../src/config.js';
import { buildVerifyApp } from '../../src/trust/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { buildApp } from '../../src/api/app.js';
import { KeyVault } from '../../src/intake/keys.js';
import { issueSender } from '../../src/intake/operator.js';
import { MasterSecret } from '../../src/secrets/index.js';
import { SECRET, counts, deliver, envelope } from '../intake/helpers.js';

const open: { app?: FastifyInstance; stores: Store[]; dbs: TestDb[] } = { stores: [], dbs: [] };
afterEach(async () => {
  await open.app?.close();
  for (const s of open.stores.splice(0)) await s.close().catch(() => undefined);
  for (const d of open.dbs.splice(0)) await d.drop().catch(() => undefined);
});

async function verifyOver(store: Store, db: string): Promise<FastifyInstance> {
  const config = loadConfig({ db, logLevel: 'silent', verifyKeysPerHour: '100000', verifyFreeKeysPerMonth: '1000' }, {});
  open.app = await buildVerifyApp({ store, config, components: new Map() }, { logger: false });
  return open.app;
}

it('SQLite disk full (SQLITE_FULL): writes are 503 with Retry-After, /readyz 503 "disk full" until a write succeeds again', async () => {
  const db = await createTestDb('sqlite');
  open.dbs.push(db);
  const store = await openStore(db.url);
  open.stores.push(store);
  const app = await verifyOver(store, db.url);
  const pages = Number((await sql<{ page_count: number }>`pragma page_count`.execute(store.db)).rows[0].page_count);
  await sql.raw(`pragma max_page_count = ${pages}`).execute(store.db);
  let full: Awaited<ReturnType<FastifyInstance['inject']>> | null = null;
  for (let i = 0; i < 2000 && !full; i++) {
    const r = await app.inject({ method: 'POST', url: '/v1/keys' });
    if (r.statusCode !== 201) full = r;
  }
  expect(full?.statusCode).toBe(503);
  expect(full?.headers['retry-after']).toBe('5');
  expect(full?.json().error).toMatch(/store cannot answer now/);
  const unready = await app.inject({ method: 'GET', url: '/readyz' });
  expect(unready.statusCode).toBe(503);
  expect(unready.json().error).toBe('store unavailable: the store cannot write: disk full (SQLITE_FULL)');
  // Still full: the readiness probe's own write fails too, however often /readyz is asked.
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, WRITE_PROBE_INTERVAL_MS / 2));
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
  }
  // Space again: ready once the probe's own tiny write succeeds, with no other write arriving; the probe row is not kept.
  await sql.raw(`pragma max_page_count = ${pages * 100}`).execute(store.db);
  const t0 = Date.now();
  while ((await app.inject({ method: 'GET', url: '/readyz' })).statusCode !== 200) {
    expect(Date.now() - t0).toBeLessThan(WRITE_PROBE_INTERVAL_MS * 3);
    await new Promise((r) => setTimeout(r, 200));
  }
  const probeRows = await sql<{ n: number }>`select count(*) as n from kysely_migration where name = '~write-probe'`.execute(store.db);
  expect(Number(probeRows.rows[0].n)).toBe(0);
  expect((await app.inject({ method: 'POST', url: '/v1/keys' })).statusCode).toBe(201);
});

it('SQLite file opened read-only (SQLITE_READONLY): 503 with Retry-After, /readyz 503 "read-only"', async () => {
  const db = await createTestDb('sqlite');
  open.dbs.push(db);
  await (await openStore(db.url)).close();
  const store = await openStore(db.url, { readonly: true });
  open.stores.push(store);
  const app = await verifyOver(store, db.url);
  expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  const r = await app.inject({ method: 'POST', url: '/v1/keys' });
  expect(r.statusCode).toBe(503);
  expect(r.headers['retry-after']).toBe('5');
  const unready = await app.inject({ method: 'GET', url: '/readyz' });
  expect(unready.statusCode).toBe(503);
  expect(unready.json().store.error).toMatch(/^the store cannot write: read-only \(SQLITE_READONLY/);
});

it('PostgreSQL read-only transactions (25006): 503 with Retry-After, /readyz 503 "read-only" until a write succeeds', async () => {
  const db = await createTestDb('postgres');
  open.dbs.push(db);
  await (await openStore(db.url)).close();
  const name = new URL(db.url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  try {
    await admin.query(`alter database "${name}" set default_transaction_read_only = on`);
    const store = await openStore(db.url, { migrate: false });
    open.stores.push(store);
    const app = await verifyOver(store, db.url);
    const r = await app.inject({ method: 'POST', url: '/v1/keys' });
    expect(r.statusCode).toBe(503);
    expect(r.headers['retry-after']).toBe('5');
    const unready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(unready.statusCode).toBe(503);
    expect(unready.json().store.error).toBe('the store cannot write: read-only (25006)');
    await admin.query(`alter database "${name}" set default_transaction_read_only = off`);
    // New sessions can write; the store's pooled sessions keep the old default, so close them for the next write.
    await store.close();
    const again = await openStore(db.url, { migrate: false });
    open.stores.push(again);
    const app2 = await verifyOver(again, db.url);
    expect((await app2.inject({ method: 'POST', url: '/v1/keys' })).statusCode).toBe(201);
    expect((await app2.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    await app.close();
  } finally {
    await admin.query(`alter database "${name}" set default_transaction_read_only = off`).catch(() => undefined);
    await admin.end();
  }
});

it('SQLite disk full: the signed intake answers 503 with Retry-After (never 500), /readyz 503, nothing half-stored; the same delivery is stored once space is back', async () => {
  const db = await createTestDb('sqlite');
  open.dbs.push(db);
  const store = await openStore(db.url);
  open.stores.push(store);
  const conn = await issueSender(store, new KeyVault(MasterSecret.parse(SECRET)), 'connection', 'app', 'mcp', 'test');
  const config = loadConfig({ db: db.url, logLevel: 'silent' }, { PAYWATCH_SECRET: SECRET, PAYWATCH_INTAKE_RATE_LIMIT: '1000000' });
  open.app = await buildApp({ store, config, components: new Map() }, { logger: false });
  const base = await open.app.listen({ host: '127.0.0.1', port: 0 });
  const pages = Number((await sql<{ page_count: number }>`pragma page_count`.execute(store.db)).rows[0].page_count);
  await sql.raw(`pragma max_page_count = ${pages + 64}`).execute(store.db);
  const record = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', pad: 'p'.repeat(4096) } };
  let refused: { status: number; body: Record<string, unknown>; headers: Headers } | null = null;
  let body = '';
  for (let i = 0; i < 2000 && !refused; i++) {
    body = envelope('mcp', `full-${i}`, 'test', record);
    const r = await deliver(base, { senderId: conn.id, key: conn.key, body });
    if (r.status !== 201) refused = r;
  }
  expect(refused?.status).toBe(503);
  expect(refused?.headers.get('retry-after')).toBe('5');
  expect(Object.keys(refused?.body ?? {})).toEqual(['error']);
  expect(refused?.body.error).toMatch(/store cannot answer now/);
  const before = await counts(store);
  const unready = await open.app.inject({ method: 'GET', url: '/readyz' });
  expect(unready.statusCode).toBe(503);
  expect(unready.headers['retry-after']).toBe('5');
  expect(unready.json().error).toBe('store unavailable: the store cannot write: disk full (SQLITE_FULL)');
  // Space again: ready without another write, and the refused delivery, sent again, is stored once.
  await sql.raw(`pragma max_page_count = ${pages * 100}`).execute(store.db);
  const t0 = Date.now();
  while ((await open.app.inject({ method: 'GET', url: '/readyz' })).statusCode !== 200) {
    expect(Date.now() - t0).toBeLessThan(WRITE_PROBE_INTERVAL_MS * 3);
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(await counts(store)).toEqual(before);
  expect((await deliver(base, { senderId: conn.id, key: conn.key, body })).status).toBe(201);
  expect(await counts(store)).toEqual({ ...before, events: before.events + 1 });
});
