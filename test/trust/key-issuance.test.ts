/**
 * Free keys: issuance bounded per client address (IPv6 by /64) and UTC month, counted in the store so a restart
 * or a second replica on the same store counts once; a free key unused for the idle period expires. Both dialects.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBadServers, type BadServers } from '../helpers/bad-servers.js';
import { DIALECTS } from '../helpers/db.js';
import { openStore } from '../../src/store/db.js';
import { loadConfig } from '../../src/config.js';
import { buildVerifyApp } from '../../src/trust/app.js';
import { issueApiKey, issueFreeKey } from '../../src/trust/keys.js';
import { clientKey } from '../../src/limits/client-key.js';
import { touchApiKey } from '../../src/store/trust/index.js';
import { postFrom, startVerify, type VerifyHarness } from './helpers.js';

let bad: BadServers;
beforeAll(async () => {
  bad = await startBadServers();
});
afterAll(async () => {
  await bad?.stop();
});

describe.each(DIALECTS)('free key issuance on %s', (dialect) => {
  let h: VerifyHarness;
  beforeAll(async () => {
    h = await startVerify(dialect, { verifyFreeKeysPerMonth: '2', verifyKeysPerHour: '100', verifyKeyIdleDays: '30' });
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  });

  it('2 keys a month per address: the 3rd is 429 until the month ends, also from a second replica on the same store; another address still gets one', async () => {
    const first = await postFrom(h.url, '127.0.0.5', '/v1/keys', {});
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ plan: 'free', monthly_checks: 1000, expires_after_idle_days: 30 });
    expect((await postFrom(h.url, '127.0.0.5', '/v1/keys', {})).status).toBe(201);
    const third = await postFrom(h.url, '127.0.0.5', '/v1/keys', {});
    expect(third.status).toBe(429);
    expect(third.json.error).toMatch(/at most 2 free keys per client address \(IPv6 \/64\) per UTC calendar month/);
    const now = new Date();
    const monthEnd = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    expect(Math.abs(Number(third.retryAfter) - (monthEnd - now.getTime()) / 1000)).toBeLessThan(60);

    // A second replica (its own process memory, the same store): the count holds.
    const store2 = await openStore(h.db.url);
    const config = loadConfig({ db: h.db.url, logLevel: 'silent', verifyFreeKeysPerMonth: '2', verifyKeysPerHour: '100' }, {});
    const replica = await buildVerifyApp({ store: store2, config, components: new Map() }, { logger: false });
    await replica.listen({ host: '127.0.0.1', port: 0 });
    try {
      const base = `http://127.0.0.1:${(replica.server.address() as AddressInfo).port}`;
      expect((await postFrom(base, '127.0.0.5', '/v1/keys', {})).status).toBe(429);
      expect((await postFrom(base, '127.0.0.6', '/v1/keys', {})).status).toBe(201);
    } finally {
      await replica.close();
      await store2.close();
    }
  });

  it('an IPv6 /64 counts as one client; concurrent requests never overrun the count', async () => {
    const a = clientKey('2001:db8:1:2::a');
    const b = clientKey('2001:db8:1:2:ffff::b');
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => issueFreeKey(h.store, i % 2 ? a : b, 2)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    await expect(issueFreeKey(h.store, clientKey('2001:db8:1:3::a'), 2)).resolves.toBeTruthy();
  });

  it('a free key unused for the idle period is refused as expired (401); a recent use keeps it; paid keys never expire', async () => {
    const old = new Date(Date.now() - 31 * 86_400_000);
    const idle = await issueApiKey(h.store, 'free', 'operator', null, old);
    const used = await issueApiKey(h.store, 'free', 'operator', null, old);
    await touchApiKey(h.store, used.row.id, new Date(Date.now() - 86_400_000).toISOString());
    const paid = await issueApiKey(h.store, 'paid', 'operator', null, old);
    const url = `${bad.origin}/free`;
    const expired = await postFrom(h.url, '127.0.0.7', '/v1/check', { url }, { authorization: `Bearer ${idle.key}` });
    expect(expired.status).toBe(401);
    expect(expired.json.error).toMatch(/API key expired: a free key unused for more than 30 days expires/);
    expect((await postFrom(h.url, '127.0.0.7', '/v1/check', { url }, { authorization: `Bearer ${used.key}` })).status).toBe(200);
    expect((await postFrom(h.url, '127.0.0.7', '/v1/check', { url }, { authorization: `Bearer ${paid.key}` })).status).toBe(200);
  });
});
