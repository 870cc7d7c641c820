/**
 * Our own dependencies down: an unreachable payment facilitator and a closed store answer 503 with Retry-After
 * (never metered, never settled); a target slower than the time budget is a completed check (unreachable).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/chain/anvil.js';
import { startBadServers, type BadServers } from '../helpers/bad-servers.js';
import { issueApiKey } from '../../src/trust/keys.js';
import { codes, post, startVerify } from './helpers.js';

let bad: BadServers;
beforeAll(async () => {
  bad = await startBadServers();
});
afterAll(async () => {
  await bad?.stop();
});

describe('dependencies', () => {
  it('facilitator unreachable: a request without a key gets 503 with Retry-After', async () => {
    const h = await startVerify('sqlite', {
      x402PayTo: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
      x402Asset: '0x20c0000000000000000000000000000000000000',
      x402FacilitatorUrl: `http://127.0.0.1:${await freePort()}`,
    });
    try {
      const r = await post(h.url, '/v1/check', { url: `${bad.origin}/free` });
      expect(r.status).toBe(503);
      expect(r.json.error).toMatch(/facilitator unavailable/);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await h.close();
    }
  });

  it('store closed: 503 with Retry-After and {error}, no stack trace', async () => {
    const h = await startVerify('sqlite');
    const { key } = await issueApiKey(h.store, 'free', 'operator');
    await h.store.close();
    try {
      const r = await post(h.url, '/v1/check', { url: `${bad.origin}/free` }, { authorization: `Bearer ${key}` });
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('5');
      expect(Object.keys(r.json)).toEqual(['error']);
    } finally {
      await h.app.close();
      await h.db.drop();
    }
  });

  it('a target slower than the time budget: completed check, do_not_pay, unreachable', async () => {
    const h = await startVerify('sqlite', { verifyTimeoutMs: '500' });
    try {
      const { key } = await issueApiKey(h.store, 'free', 'operator');
      const r = await post(h.url, '/v1/check', { url: `${bad.origin}/slow?ms=3000` }, { authorization: `Bearer ${key}` });
      expect(r.status).toBe(200);
      expect(r.json.signals.live_challenge.outcome).toBe('timeout');
      expect(codes(r.json, 'critical')).toEqual(['unreachable']);
    } finally {
      await h.close();
    }
  });
});
