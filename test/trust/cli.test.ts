/**
 * The CLI of the trust check, as a user runs it: `paywatch verify` on its own port, a free key from
 * POST /v1/keys, operator keys (paid plan), usage and invoice lines per month, revocation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/chain/anvil.js';
import { startBadServers, type BadServers } from '../helpers/bad-servers.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { runCli, startCli } from '../e2e/cli.js';
import { utcMonth } from '../../src/trust/metering.js';
import { post } from './helpers.js';

let db: TestDb;
let bad: BadServers;
let verify: ReturnType<typeof startCli>;
let base: string;
let env: Record<string, string>;

beforeAll(async () => {
  db = await createTestDb('sqlite');
  bad = await startBadServers();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = { PAYWATCH_DB: db.url, PAYWATCH_VERIFY_ALLOW_LOOPBACK: '1' };
  // Migrate first so the server and the operator commands never race to create tables.
  await runCli(['operator', 'key', 'list'], env);
  verify = startCli(['verify', '--verify-port', String(port)], env);
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${base}/v1/openapi.json`)).ok) break;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}, 90_000);

afterAll(async () => {
  verify?.child.kill('SIGTERM');
  await verify?.done;
  await bad?.stop();
  await db?.drop();
});

describe('paywatch verify and operator key/usage', () => {
  it('serves its own OpenAPI 3.1 document describing every answer member', async () => {
    const doc = await (await fetch(`${base}/v1/openapi.json`)).json();
    expect(doc.openapi).toBe('3.1.0');
    const ok = doc.paths['/v1/check'].post.responses['200'].content['application/json'].schema;
    expect(Object.keys(ok.properties).sort()).toEqual([
      'checked_at',
      'disclaimers',
      'evidence_hash',
      'offers',
      'policy',
      'provider',
      'reasons',
      'service',
      'signals',
      'snapshot_id',
      'url',
      'verdict',
    ]);
    expect(Object.keys(doc.paths['/v1/check'].post.responses).sort()).toEqual(['200', '400', '401', '402', '415', '429', '503']);
  });

  it('a free key from POST /v1/keys checks a URL; a paid operator key is invoiced at 0.01 per check; revoke → 401', async () => {
    const free = (await post(base, '/v1/keys', {})).json.key;
    const r = await post(base, '/v1/check', { url: `${bad.origin}/free` }, { authorization: `Bearer ${free}` });
    expect(r.status).toBe(200);

    const created = await runCli(['operator', 'key', 'create', '--plan', 'paid', '--label', 'acme', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const paid = JSON.parse(created.stdout);
    for (let i = 0; i < 3; i++)
      expect((await post(base, '/v1/check', { url: `${bad.origin}/free` }, { authorization: `Bearer ${paid.key}` })).status).toBe(200);
    // A failed check (refused address) is not metered.
    expect((await post(base, '/v1/check', { url: 'http://10.0.0.1/' }, { authorization: `Bearer ${paid.key}` })).status).toBe(400);

    const usage = await runCli(['operator', 'usage', '--month', utcMonth(), '--json'], env);
    expect(usage.code, usage.stderr).toBe(0);
    const inv = JSON.parse(usage.stdout);
    expect(inv.lines.find((l: { key_id: string }) => l.key_id === paid.key_id)).toMatchObject({
      plan: 'paid',
      checks: 3,
      unit_price_usd: '0.01',
      amount_usd: '0.03',
    });
    expect(inv.lines.find((l: { plan: string }) => l.plan === 'free')).toMatchObject({ checks: 1, amount_usd: null });
    expect(inv.total_usd).toBe('0.03');

    const list = await runCli(['operator', 'key', 'list', '--json'], env);
    expect(list.stdout).not.toContain(paid.key);
    expect((await runCli(['operator', 'key', 'revoke', paid.key_id], env)).code).toBe(0);
    expect((await post(base, '/v1/check', { url: `${bad.origin}/free` }, { authorization: `Bearer ${paid.key}` })).status).toBe(401);
    const again = await runCli(['operator', 'key', 'revoke', paid.key_id], env);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/no active key/);
    const badMonth = await runCli(['operator', 'usage', '--month', '2026-13'], env);
    expect(badMonth.code).toBe(2);
  }, 240_000);
});
