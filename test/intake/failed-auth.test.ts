/**
 * Failed authentication against a hostile client, over real sockets on 127.0.0.1 with SQLite and PostgreSQL
 * stores: failed intake signatures and unknown senders, bad operator tokens and bad trust-check API keys are
 * counted per client address, and past the limit (PAYWATCH_AUTH_FAILURE_LIMIT, default 30 per minute) the
 * answer is 429 with Retry-After and {error}, decided before any store read: the tests close the server's store
 * once the limit is reached, so a request that still reached the store would answer 5xx, not 429.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { DIALECTS, createTestDb, type TestDb } from '../helpers/db.js';
import { openStore, type Store } from '../../src/store/db.js';
import { KeyVault } from '../../src/intake/keys.js';
import { issueOperatorToken, issueSender } from '../../src/intake/operator.js';
import { MasterSecret } from '../../src/secrets/index.js';
import { clientKey } from '../../src/limits/client-key.js';
import ipaddr from 'ipaddr.js';
import { startVerify } from '../trust/helpers.js';
import { SECRET, deliver, envelope, now, startServer, type Delivery, type Server } from './helpers.js';

/** The default of PAYWATCH_AUTH_FAILURE_LIMIT (src/config.ts). */
const LIMIT = 30;

/** Statuses of `n` requests made one after another. */
async function sequence(n: number, send: (i: number) => Promise<{ status: number }>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await send(i)).status);
  return out;
}

/** Stops a server whose store the test already closed (closing it twice is not the point here). */
const stopApp = (s: Server) => s.app.close();

describe('clientKey', () => {
  it('groups IPv6 clients by /64, keeps IPv4 (also IPv4-mapped) addresses apart, and passes anything else through', () => {
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientKey('::1')).toBe('::/64');
    expect(clientKey('::ffff:203.0.113.5')).toBe('203.0.113.5');
    expect(clientKey('203.0.113.5')).not.toBe(clientKey('203.0.113.6'));
    expect(clientKey('not an address')).toBe('not an address');
    // The dotted-quad fast path answers what ipaddr.js would.
    for (const ip of ['0.0.0.0', '9.9.9.9', '10.1.2.3', '127.0.0.1', '192.168.100.200', '255.255.255.255'])
      expect(clientKey(ip)).toBe(ipaddr.parse(ip).toString());
  });
});

describe.each(DIALECTS)('failed authentication on %s', (dialect) => {
  let db: TestDb;
  let store: Store;
  let conn: { id: string; key: string };
  let token: string;

  beforeAll(async () => {
    db = await createTestDb(dialect);
    store = await openStore(db.url);
    conn = await issueSender(store, new KeyVault(MasterSecret.parse(SECRET)), 'connection', 'target', 'mcp', 'test');
    token = (await issueOperatorToken(store, 'ops')).token;
  });

  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it(`answers ${LIMIT} failed intake authentications from one address 401, then 429 with Retry-After, before any store read`, async () => {
    const server = await startServer(db.url);
    try {
      const good = envelope('mcp', 'fa-good');
      // Bad signatures, unknown senders and stale timestamps all count.
      const bad: Delivery[] = [
        { senderId: conn.id, key: conn.key, body: good, signature: '0'.repeat(64) },
        { senderId: `conn_${randomBytes(8).toString('hex')}`, key: conn.key, body: good },
        { senderId: conn.id, key: conn.key, body: good, timestamp: now() - 3600 },
      ];
      const statuses = await sequence(LIMIT + 10, (i) => deliver(server.url, bad[i % bad.length]));
      const first429 = statuses.indexOf(429);
      console.log(`intake (${dialect}): ${first429} answers 401 before the first 429`);
      expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(401));
      expect(statuses.slice(LIMIT)).toEqual(Array(10).fill(429));

      // The address is refused as a whole until the window ends, even with a valid signature.
      const r = await deliver(server.url, { senderId: conn.id, key: conn.key, body: good });
      expect(r.status).toBe(429);
      expect(Object.keys(r.body)).toEqual(['error']);
      expect(r.body.error).toMatch(
        /^too many failed authentications from this address: at most 30 failed intake authentications per 60 s; retry after \d+ s$/,
      );
      const retry = Number(r.headers.get('retry-after'));
      expect(retry).toBeGreaterThan(0);
      expect(retry).toBeLessThanOrEqual(60);

      // Decided before any store read: with the store closed, the answer is still 429.
      await server.store.close();
      expect((await deliver(server.url, bad[0])).status).toBe(429);
      expect((await deliver(server.url, { ...bad[0], path: '/api/intelligence/outcomes', senderHeader: 'x-svc-producer' })).status).toBe(
        429,
      );
    } finally {
      await stopApp(server);
    }
  });

  it('keeps a flood of bad signatures from one address to the limit plus the requests in flight, then answers 429', async () => {
    const server = await startServer(db.url);
    try {
      const body = envelope('mcp', 'flood');
      const tally: Record<number, number> = {};
      const workers = 8;
      const each = 40;
      const started = Date.now();
      await Promise.all(
        Array.from({ length: workers }, async () => {
          for (let i = 0; i < each; i++) {
            const r = await deliver(server.url, { senderId: conn.id, key: conn.key, body, signature: 'f'.repeat(64) });
            tally[r.status] = (tally[r.status] ?? 0) + 1;
          }
        }),
      );
      console.log(
        `intake flood (${dialect}, ${workers} connections × ${each} requests, ${Date.now() - started} ms): ${JSON.stringify(tally)}`,
      );
      expect(Object.keys(tally).sort()).toEqual(['401', '429']);
      // Requests already past the check when the limit is reached still fail as 401: at most one per connection.
      expect(tally[401]).toBeGreaterThanOrEqual(LIMIT);
      expect(tally[401]).toBeLessThanOrEqual(LIMIT + workers);
      expect(tally[429]).toBe(workers * each - tally[401]);
    } finally {
      await server.close();
    }
  });

  it('remembers unknown sender ids, so a repeated unknown id costs no store read', async () => {
    const server = await startServer(db.url);
    try {
      const body = envelope('mcp', 'unknown');
      const ghost = { senderId: 'conn_00000000deadbeef', key: conn.key, body };
      const first = await deliver(server.url, ghost);
      expect(first.status).toBe(401);
      expect(first.body.error).toMatch(/unknown or revoked connection/);
      await server.store.close();
      // Repeated: answered from the negative cache, the same 401 although the store is gone.
      expect(await deliver(server.url, ghost)).toMatchObject({ status: 401, body: first.body });
      // A new unknown id does need the store, which now fails: proof that the store really is closed.
      expect((await deliver(server.url, { ...ghost, senderId: 'conn_00000000deadbee0' })).status).toBeGreaterThanOrEqual(500);
      // An id that cannot have been issued is refused without a lookup.
      expect((await deliver(server.url, { ...ghost, senderId: 'conn_not-an-issued-id' })).status).toBe(401);
    } finally {
      await stopApp(server);
    }
  });

  it(`answers ${LIMIT} bad operator tokens from one address 401, then 429 before the token is looked up`, async () => {
    const server = await startServer(db.url);
    try {
      const get = (auth: string) => fetch(`${server.url}/api/operator/events?env=test`, { headers: { authorization: auth } });
      expect((await get(`Bearer ${token}`)).status).toBe(200);
      const statuses = await sequence(LIMIT + 5, (i) =>
        get(i % 2 ? `Bearer ${token}x` : `Bearer op_0000000000000000.pwop_${'A'.repeat(43)}`),
      );
      console.log(`operator reads (${dialect}): ${statuses.indexOf(429)} answers 401 before the first 429`);
      expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(401));
      expect(statuses.slice(LIMIT)).toEqual(Array(5).fill(429));
      const r = await get(`Bearer ${token}`);
      expect(r.status).toBe(429);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await r.json()).toEqual({
        error: expect.stringMatching(/^too many failed authentications from this address: at most 30 failed operator tokens per 60 s/),
      });
      await server.store.close();
      expect((await get('Bearer nope')).status).toBe(429);
    } finally {
      await stopApp(server);
    }
  });

  it(`answers ${LIMIT} bad trust-check API keys from one address 401, then 429 before the key is looked up`, async () => {
    const h = await startVerify(dialect);
    try {
      const check = (auth: string) =>
        fetch(`${h.url}/v1/check`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: auth },
          body: JSON.stringify({ url: 'https://example.com/x' }),
        });
      const statuses = await sequence(LIMIT + 5, (i) => check(i % 2 ? `Bearer pw_${randomBytes(32).toString('base64url')}` : 'Basic abc'));
      console.log(`trust check (${dialect}): ${statuses.indexOf(429)} answers 401 before the first 429`);
      expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(401));
      expect(statuses.slice(LIMIT)).toEqual(Array(5).fill(429));
      const r = await check(`Bearer pw_${'A'.repeat(43)}`);
      expect(r.status).toBe(429);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await r.json()).toEqual({
        error: expect.stringMatching(/^too many failed authentications from this address: at most 30 failed API keys per 60 s/),
      });
      await h.store.close();
      expect((await check(`Bearer pw_${'B'.repeat(43)}`)).status).toBe(429);
    } finally {
      await h.app.close();
      await h.db.drop();
    }
  });

  it('takes the limit from PAYWATCH_AUTH_FAILURE_LIMIT', async () => {
    const server = await startServer(db.url, { PAYWATCH_AUTH_FAILURE_LIMIT: '3' });
    try {
      const statuses = await sequence(5, () =>
        deliver(server.url, { senderId: conn.id, key: conn.key, body: '{}', signature: '0'.repeat(64) }),
      );
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
    } finally {
      await server.close();
    }
  });
});
