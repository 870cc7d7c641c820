/**
 * Trust checks in flight over real loopback sockets: one key (or one address) holding slow checks gets 429 beyond
 * its share while a second client still gets its check through; the global cap answers 503 only when several
 * clients fill it. Clients are told apart by their source address (127.0.0.1, 127.0.0.2, … all reach loopback).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBadServers, type BadServers } from '../helpers/bad-servers.js';
import { issueApiKey } from '../../src/trust/keys.js';
import { effectivePerClient } from '../../src/limits/check-slots.js';
import { postFrom, startVerify, type VerifyHarness } from './helpers.js';

let bad: BadServers;
beforeAll(async () => {
  bad = await startBadServers();
});
afterAll(async () => {
  await bad?.stop();
});

/** POST /v1/check from source address `from` with `key`. */
function check(h: VerifyHarness, from: string, key: string, url: string) {
  return postFrom(h.url, from, '/v1/check', { url }, { authorization: `Bearer ${key}` });
}

async function slowHits(n: number): Promise<void> {
  for (let i = 0; i < 500 && (bad.hits.get('/slow') ?? 0) < n; i++) await new Promise((r) => setTimeout(r, 10));
}

it('the per-client cap is always below the global count, so one client never holds every slot', () => {
  expect(effectivePerClient(32, 4)).toBe(4);
  expect(effectivePerClient(32, 64)).toBe(31);
  expect(effectivePerClient(3, 4)).toBe(2);
  expect(effectivePerClient(2, 4)).toBe(1);
  expect(effectivePerClient(1, 4)).toBe(1);
});

describe('checks in flight per client (defaults: 32 global, 4 per client)', () => {
  let h: VerifyHarness;
  beforeAll(async () => {
    h = await startVerify('sqlite', { rateLimitPerMinute: '1000' });
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  });

  it('one key holding 40 slow checks: 4 run, 36 get 429 with Retry-After; the same key elsewhere and the same address with another key get 429; a second client gets 200', async () => {
    bad.reset();
    const hog = (await issueApiKey(h.store, 'free', 'operator')).key;
    const otherKeySameAddress = (await issueApiKey(h.store, 'free', 'operator')).key;
    const second = (await issueApiKey(h.store, 'free', 'operator')).key;
    const slow = Array.from({ length: 40 }, () => check(h, '127.0.0.1', hog, `${bad.origin}/slow?ms=8000`));
    await slowHits(4);
    const sameKeyElsewhere = await check(h, '127.0.0.3', hog, `${bad.origin}/free`);
    const sameAddress = await check(h, '127.0.0.1', otherKeySameAddress, `${bad.origin}/free`);
    const bystander = await check(h, '127.0.0.2', second, `${bad.origin}/free`);
    const held = await Promise.all(slow);

    expect(bystander.status, JSON.stringify(bystander.json)).toBe(200);
    expect(sameKeyElsewhere.status).toBe(429);
    expect(sameAddress.status).toBe(429);
    expect(sameAddress.json.error).toMatch(/at most 4 run at once per client address and per API key/);
    const statuses = held.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(36);
    expect(held.find((r) => r.status === 429)!.retryAfter).toBe('1');
    expect(bad.hits.get('/slow')).toBe(4);
  }, 30_000);
});

describe('global slots (3 global: 2 per client)', () => {
  let h: VerifyHarness;
  beforeAll(async () => {
    h = await startVerify('sqlite', { verifyMaxInFlight: '3' });
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  });

  it('two clients fill the 3 slots: a third client gets 503 with Retry-After, not metered; the slots come back when checks end', async () => {
    bad.reset();
    const [a, b, c] = await Promise.all([0, 1, 2].map(async () => (await issueApiKey(h.store, 'free', 'operator')).key));
    const slow = [
      check(h, '127.0.0.1', a, `${bad.origin}/slow?ms=1500`),
      check(h, '127.0.0.1', a, `${bad.origin}/slow?ms=1500`),
      check(h, '127.0.0.2', b, `${bad.origin}/slow?ms=1500`),
    ];
    await slowHits(3);
    const refused = await check(h, '127.0.0.3', c, `${bad.origin}/free`);
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toBe('1');
    expect(refused.json.error).toMatch(/too many checks in progress: at most 3 run at once/);
    expect((await Promise.all(slow)).map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await check(h, '127.0.0.3', c, `${bad.origin}/free`)).status).toBe(200);
  }, 30_000);
});
