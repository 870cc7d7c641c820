/**
 * Exactly-once intake under concurrency and crashes, on SQLite and PostgreSQL: 200 concurrent deliveries of
 * 50 distinct events store exactly 50 records and every retry gets its event's original receipt; a server
 * process killed with SIGKILL in the middle of a burst loses no acknowledged event and duplicates none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { DIALECTS, createTestDb, type TestDb } from '../helpers/db.js';
import { freePort } from '../../src/chain/anvil.js';
import { openStore, type Store } from '../../src/store/db.js';
import { KeyVault } from '../../src/intake/keys.js';
import { issueSender, revokeSenderNow, rotateSender } from '../../src/intake/operator.js';
import { TTL_MS } from '../../src/intake/key-cache.js';
import { MasterSecret } from '../../src/secrets/index.js';
import { startCli } from '../e2e/cli.js';
import { SECRET, deliver, envelope, startServer, type Server } from './helpers.js';

describe.each(DIALECTS)('exactly-once intake on %s', (dialect) => {
  let db: TestDb;
  let store: Store;
  let conn: { id: string; key: string };

  beforeAll(async () => {
    db = await createTestDb(dialect);
    store = await openStore(db.url);
    // The same function `paywatch operator connection create` calls (the CLI itself is covered in protocol-events.test.ts).
    conn = await issueSender(store, new KeyVault(MasterSecret.parse(SECRET)), 'connection', 'burst', 'mcp', 'test');
  });

  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  const rowsOf = async (prefix: string) =>
    store.db
      .selectFrom('intake_protocol_events')
      .select(['event_id', 'received_at', 'body_sha256'])
      .where('connection_id', '=', conn.id)
      .where('event_id', 'like', `${prefix}%`)
      .execute();

  it('stores exactly 50 records for 200 concurrent deliveries of 50 events, and every retry gets the original receipt', async () => {
    const server: Server = await startServer(db.url);
    try {
      const bodies = Array.from({ length: 50 }, (_, i) => envelope('mcp', `cc-${i}`));
      const sends = Array.from({ length: 200 }, (_, n) => bodies[n % 50]);
      const results = await Promise.all(sends.map((body) => deliver(server.url, { senderId: conn.id, key: conn.key, body })));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(50);
      expect(statuses.filter((s) => s === 200)).toHaveLength(150);
      const stored = await rowsOf('cc-');
      expect(stored).toHaveLength(50);
      const byId = new Map(stored.map((r) => [r.event_id, r]));
      for (const r of results) {
        const s = byId.get(r.body.event_id as string)!;
        expect(r.body).toEqual({ event_id: r.body.event_id, received_at: s.received_at, body_sha256: s.body_sha256 });
      }
    } finally {
      await server.close();
    }
  });

  it('answers concurrent deliveries of one event_id with two different bodies: one 201, 200 for its copies, 409 for the other body', async () => {
    const server: Server = await startServer(db.url);
    try {
      const a = envelope('mcp', 'race-1');
      const b = envelope('mcp', 'race-1', 'test', { jsonrpc: '2.0', id: 99, method: 'tools/list' });
      const sends = Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b));
      const results = await Promise.all(sends.map((body) => deliver(server.url, { senderId: conn.id, key: conn.key, body })));
      const stored = await rowsOf('race-');
      expect(stored).toHaveLength(1);
      const winner = stored[0].body_sha256 === createHash('sha256').update(a).digest('hex') ? a : b;
      results.forEach((r, i) => {
        if (sends[i] === winner) expect([200, 201]).toContain(r.status);
        else expect(r.status).toBe(409);
      });
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('verifies a key issued by rotation at once while older keys are cached, and honours a revocation once the cache entry expires', async () => {
    const server: Server = await startServer(db.url);
    try {
      const vault = new KeyVault(MasterSecret.parse(SECRET));
      const c = await issueSender(store, vault, 'connection', 'cached', 'mcp', 'test');
      expect((await deliver(server.url, { senderId: c.id, key: c.key, body: envelope('mcp', 'kc-1') })).status).toBe(201);
      const rotated = await rotateSender(store, vault, 'connection', c.id, 3600);
      expect((await deliver(server.url, { senderId: c.id, key: rotated.key, body: envelope('mcp', 'kc-2') })).status).toBe(201);
      await revokeSenderNow(store, 'connection', c.id);
      await new Promise((r) => setTimeout(r, TTL_MS + 100));
      const r = await deliver(server.url, { senderId: c.id, key: rotated.key, body: envelope('mcp', 'kc-3') });
      expect(r.status).toBe(401);
      expect(r.body.error).toMatch(/unknown or revoked connection/);
    } finally {
      await server.close();
    }
  });

  /** Starts `paywatch serve` as a child on a free port and waits until it answers. */
  async function serveChild() {
    const port = await freePort();
    const proc = startCli(['serve', '--db', db.url, '--port', String(port)], { PAYWATCH_SECRET: SECRET });
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      if (proc.child.exitCode !== null) throw new Error(`serve exited: ${(await proc.done).stderr}`);
      try {
        if ((await fetch(`${url}/api/openapi.json`)).ok) break;
      } catch {
        if (i > 600) throw new Error('serve did not start within 60 s');
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return { ...proc, url };
  }

  it('keeps every acknowledged event exactly once when the server is SIGKILLed during a burst', async () => {
    const bodies = Array.from({ length: 400 }, (_, i) => envelope('mcp', `kill-${i}`));
    const first = await serveChild();
    const acked = new Map<string, Record<string, unknown>>();
    let next = 0;
    let killed = false;
    const worker = async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        try {
          const r = await deliver(first.url, { senderId: conn.id, key: conn.key, body });
          if (r.status === 201 || r.status === 200) acked.set(r.body.event_id as string, r.body);
          if (acked.size >= 60 && !killed) {
            killed = true;
            first.child.kill('SIGKILL');
          }
        } catch {
          if (killed) return; // connection refused or reset: the server is gone
          throw new Error('delivery failed before the kill');
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const exit = await first.done;
    expect(exit.signal).toBe('SIGKILL');
    expect(acked.size).toBeGreaterThanOrEqual(60);
    expect(acked.size).toBeLessThan(bodies.length);

    const second = await serveChild();
    try {
      const stored = new Map((await rowsOf('kill-')).map((r) => [r.event_id, r]));
      for (const [id, receipt] of acked) {
        const s = stored.get(id);
        expect(s, `acknowledged ${id} missing after restart`).toBeDefined();
        expect(receipt).toEqual({ event_id: id, received_at: s!.received_at, body_sha256: s!.body_sha256 });
      }
      // Retrying the whole burst against the restarted server: acknowledged events answer with their original receipt.
      for (const body of bodies) {
        const r = await deliver(second.url, { senderId: conn.id, key: conn.key, body });
        const id = r.body.event_id as string;
        if (acked.has(id)) expect(r).toMatchObject({ status: 200, body: acked.get(id) });
        else expect([200, 201]).toContain(r.status);
      }
      const after = await rowsOf('kill-');
      expect(after).toHaveLength(bodies.length);
      expect(new Set(after.map((r) => r.event_id)).size).toBe(bodies.length);
    } finally {
      second.child.kill('SIGTERM');
      await second.done;
    }
  }, 240_000);
});
