/**
 * Access to POST /v1/check on both store dialects: free keys (issued once, hashed, rate-limited), 401s,
 * request validation with nothing metered, exact metering under concurrency (a key at 990 with 50 parallel
 * checks → 10 successes, 40 × 429), failed checks releasing their reservation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBadServers, type BadServers } from '../helpers/bad-servers.js';
import { DIALECTS } from '../helpers/db.js';
import { listApiKeys, setUsage, usageCounter } from '../../src/store/trust/index.js';
import { hashApiKey, issueApiKey } from '../../src/trust/keys.js';
import { utcMonth } from '../../src/trust/metering.js';
import { post, startVerify, type VerifyHarness } from './helpers.js';

let bad: BadServers;
beforeAll(async () => {
  bad = await startBadServers();
});
afterAll(async () => {
  await bad?.stop();
});

describe.each(DIALECTS)('trust-check access on %s', (dialect) => {
  let h: VerifyHarness;
  beforeAll(async () => {
    // 50 checks of one key at once: the in-flight caps set high, so the quota is what refuses (test/trust/check-slots.test.ts has the caps).
    h = await startVerify(dialect, { verifyKeysPerHour: '3', verifyMaxInFlight: '100', verifyMaxInFlightPerClient: '60' });
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  });

  it('POST /v1/keys shows a free key once and stores only its hash; the 4th key in an hour from one address is 429', async () => {
    const r = await post(h.url, '/v1/keys', {});
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ plan: 'free', monthly_checks: 1000 });
    expect(r.json.key).toMatch(/^pw_[A-Za-z0-9_-]{43}$/);
    const stored = (await listApiKeys(h.store)).find((k) => k.id === r.json.key_id)!;
    expect(stored.key_hash).toBe(hashApiKey(r.json.key));
    expect(JSON.stringify(stored)).not.toContain(r.json.key);
    await post(h.url, '/v1/keys', {});
    await post(h.url, '/v1/keys', {});
    const limited = await post(h.url, '/v1/keys', {});
    expect(limited.status).toBe(429);
    expect(limited.json.error).toMatch(/rate limited/);
    expect(limited.headers.get('retry-after')).toBeTruthy();
  });

  it('401 without a key (no per-call payment configured), with a malformed header, an unknown key or a revoked key', async () => {
    const url = `${bad.origin}/free`;
    expect((await post(h.url, '/v1/check', { url })).status).toBe(401);
    expect((await post(h.url, '/v1/check', { url }, { authorization: 'Basic abc' })).status).toBe(401);
    const unknown = await post(h.url, '/v1/check', { url }, { authorization: `Bearer pw_${'A'.repeat(43)}` });
    expect(unknown.status).toBe(401);
    expect(unknown.json.error).toMatch(/invalid or revoked/);
  });

  it('bad bodies are 400/413/415 with {error} and are never metered', async () => {
    const { key, row } = await issueApiKey(h.store, 'free', 'operator');
    const auth = { authorization: `Bearer ${key}` };
    const cases: [unknown, number][] = [
      [{}, 400],
      [{ url: 'ftp://example.com/x' }, 400],
      [{ url: 'not a url' }, 400],
      [{ url: `https://example.com/${'a'.repeat(2100)}` }, 400],
      [{ url: 'https://example.com', extra: 1 }, 400],
      ['{"url":', 400],
      [{ url: `https://example.com/?q=${'a'.repeat(20_000)}` }, 413],
    ];
    for (const [body, status] of cases) {
      const r = await post(h.url, '/v1/check', body, auth);
      expect(r.status, JSON.stringify(body).slice(0, 60)).toBe(status);
      expect(typeof r.json.error).toBe('string');
    }
    const text = await fetch(`${h.url}/v1/check`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', ...auth },
      body: 'https://example.com',
    });
    // Only application/json is read (src/http/json-body.ts): anything else is 415, as on the intake.
    expect(text.status).toBe(415);
    expect((await text.json()).error).toBe('unsupported content type: send the body as application/json');
    // A refused address is a failed check too.
    const refused = await post(h.url, '/v1/check', { url: 'http://10.0.0.1/' }, auth);
    expect(refused.status).toBe(400);
    const c = await usageCounter(h.store, row.id, utcMonth());
    expect(c === null || (c.used === 0 && c.reserved === 0)).toBe(true);
  });

  it('a key at 990 with 50 concurrent checks: exactly 10 succeed, 40 get 429 naming the paid options; failures release', async () => {
    const { key, row } = await issueApiKey(h.store, 'free', 'operator');
    const month = utcMonth();
    await setUsage(h.store, row.id, month, 990);
    // Five failing checks first (refused address): they reserve and release, and must not count.
    const refused = await Promise.all(
      Array.from({ length: 5 }, () => post(h.url, '/v1/check', { url: 'http://169.254.169.254/' }, { authorization: `Bearer ${key}` })),
    );
    expect(refused.every((r) => r.status === 400)).toBe(true);
    expect(await usageCounter(h.store, row.id, month)).toMatchObject({ used: 990, reserved: 0 });

    const results = await Promise.all(
      Array.from({ length: 50 }, () => post(h.url, '/v1/check', { url: `${bad.origin}/free` }, { authorization: `Bearer ${key}` })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
    const limited = results.find((r) => r.status === 429)!;
    expect(limited.json.error).toMatch(/paid-plan key/);
    expect(limited.json.error).toMatch(/x402/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // do_not_pay answers are successful checks.
    expect(results.find((r) => r.status === 200)!.json.verdict).toBe('do_not_pay');
    expect(await usageCounter(h.store, row.id, month)).toMatchObject({ used: 1000, reserved: 0 });
  }, 60_000);
});
