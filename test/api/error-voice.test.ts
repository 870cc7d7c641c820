/**
 * One error voice on every route family: public reads (chain, providers, intelligence), the signed intake, the
 * operator reads and the trust check. A table of bad requests asserts each one's status, the `{error}` shape and the
 * message form (`invalid query parameter 'X': …`, `unknown query parameter 'x'`, `malformed body: …`, …); a second
 * table, generated over every numeric parameter of every public list, checks that no 400 carries a validator's own
 * phrasing. Real apps over a real SQLite store, a finished collection run, a real operator token and sender key.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { buildVerifyApp } from '../../src/trust/app.js';
import { loadConfig } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/db.js';
import { finishCollectRun, startCollectRun } from '../../src/store/intel/index.js';
import { issueOperatorToken, issueSender } from '../../src/intake/operator.js';
import { KeyVault } from '../../src/intake/keys.js';
import { loadMasterSecret } from '../../src/secrets/index.js';
import { signDelivery } from '../../src/intake/signature.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

const SECRET = 'ab'.repeat(32);

/** What validators say on their own, which no answer may carry (zod, ajv, V8's JSON.parse). */
const VALIDATOR_PHRASING = /too big|too small|invalid input|expected|received|invalid option|invalid string|nan\b|body is not valid json/i;

type Listener = 'api' | 'verify';
interface Bad {
  listener: Listener;
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  status: number;
  /** The exact message, or a pattern it must match. */
  error: string | RegExp;
}

const json = { 'content-type': 'application/json' };
const QUERY_FORM = /^(invalid query parameter '[a-z_]+': [a-z]|unknown query parameter '[a-z_]+')/;
const SINCE_FIRST = "invalid query parameter 'since': must be less than until (since is inclusive, until exclusive; got since=6, until=5)";

/** Bad requests and what each must answer (operator and intake rows get their credentials in beforeAll). */
const TABLE: Bad[] = [
  // Chain endpoints.
  {
    listener: 'api',
    method: 'GET',
    url: '/api/transactions?limit=0x10',
    status: 400,
    error: "invalid query parameter 'limit': must be a base-10 integer",
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/transactions?limit=',
    status: 400,
    error: "invalid query parameter 'limit': must not be empty (omit the parameter for its default)",
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/transactions?limit=1&limit=2',
    status: 400,
    error: "invalid query parameter 'limit': must be given once",
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/transactions?limit=101',
    status: 400,
    error: "invalid query parameter 'limit': must be at most 100",
  },
  { listener: 'api', method: 'GET', url: '/api/transactions?since=6&until=5', status: 400, error: SINCE_FIRST },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/transactions?q=a&q=b',
    status: 400,
    error: "invalid query parameter 'q': must be given once",
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/transactions?execution=maybe',
    status: 400,
    error: "invalid query parameter 'execution': must be one of success, failed, unknown",
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/metrics/series?bucket=week',
    status: 400,
    error: "invalid query parameter 'bucket': must be one of hour, day",
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/metrics?exclude=self_payment,bogus',
    status: 400,
    error: "invalid query parameter 'exclude': must be a comma-separated list of self_payment, self_funded",
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/export?exclude=self_funded&exclude=self_payment',
    status: 400,
    error: "invalid query parameter 'exclude': must be given once",
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/transactions/0x12',
    status: 400,
    error: "invalid path parameter 'hash': must be 0x followed by 64 hexadecimal digits",
  },
  { listener: 'api', method: 'GET', url: '/api/status?x=1', status: 400, error: "unknown query parameter 'x'" },
  // The export ignores offset entirely: any value is exempt from every check.
  { listener: 'api', method: 'GET', url: '/api/export?offset=-1', status: 200, error: '' },
  { listener: 'api', method: 'GET', url: '/api/export?offset=2000000', status: 200, error: '' },
  { listener: 'api', method: 'GET', url: '/api/export?offset=1&offset=2', status: 200, error: '' },
  { listener: 'api', method: 'GET', url: '/api/export?offset=', status: 200, error: '' },
  { listener: 'api', method: 'GET', url: '/api/export?offset=abc&limit=1', status: 400, error: "unknown query parameter 'limit'" },
  // Providers.
  {
    listener: 'api',
    method: 'GET',
    url: '/api/providers?limit=0x10',
    status: 400,
    error: "invalid query parameter 'limit': must be a base-10 integer",
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/providers?limit=1e1',
    status: 400,
    error: "invalid query parameter 'limit': must be a base-10 integer",
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/providers?offset=',
    status: 400,
    error: "invalid query parameter 'offset': must not be empty (omit the parameter for its default)",
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/providers?limit=1&limit=2',
    status: 400,
    error: "invalid query parameter 'limit': must be given once",
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/providers?limit=101',
    status: 400,
    error: "invalid query parameter 'limit': must be at most 100",
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/providers?include_stale=yes',
    status: 400,
    error: "invalid query parameter 'include_stale': must be true or false",
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/providers?check=nope',
    status: 400,
    error: /^invalid query parameter 'check': must be one of payment_required, /,
  },
  { listener: 'api', method: 'GET', url: '/api/providers?q=', status: 200, error: '' },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/providers/a%20b',
    status: 400,
    error: "invalid path parameter 'domain': must be a host name (or [IPv6]) with an optional :port",
  },
  // Intelligence.
  {
    listener: 'api',
    method: 'GET',
    url: '/api/intelligence/offers?until=',
    status: 400,
    error: "invalid query parameter 'until': must not be empty (omit the parameter for its default)",
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/intelligence/offers?since=0x10',
    status: 400,
    error: /^invalid query parameter 'since': must be a plain decimal number/,
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/intelligence/offers?since=1e1',
    status: 400,
    error: /^invalid query parameter 'since': must be a plain decimal number/,
  },
  { listener: 'api', method: 'GET', url: '/api/intelligence/offers?since=1.5&until=2', status: 200, error: '' },
  { listener: 'api', method: 'GET', url: '/api/intelligence/changes?since=6&until=5', status: 400, error: SINCE_FIRST },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/intelligence/offers?limit=1e1',
    status: 400,
    error: "invalid query parameter 'limit': must be a base-10 integer",
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/intelligence/offers?service_id=a&service_id=b',
    status: 400,
    error: "invalid query parameter 'service_id': must be given once",
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/intelligence/history?domain=',
    status: 400,
    error: "invalid query parameter 'domain': must not be empty",
  },
  // Routing.
  { listener: 'api', method: 'GET', url: '/api/intelligence/outcomes', status: 405, error: 'method GET not allowed here; use POST' },
  {
    listener: 'api',
    method: 'OPTIONS',
    url: '/api/intelligence/outcomes',
    status: 405,
    error: 'method OPTIONS not allowed here; use POST',
  },
  { listener: 'api', method: 'GET', url: '/assets/x.js', status: 404, error: 'no route GET /assets/x.js' },
  // Intake (bodies refused before the signature is read).
  {
    listener: 'api',
    method: 'POST',
    url: '/api/protocol-events',
    headers: { 'content-type': 'text/plain' },
    body: 'x',
    status: 415,
    error: 'unsupported content type: send the body as application/json',
  },
  {
    listener: 'api',
    method: 'POST',
    url: '/api/intelligence/outcomes',
    headers: { ...json, 'content-encoding': 'gzip' },
    body: gzipSync('{}'),
    status: 415,
    error: 'unsupported content encoding: send the body uncompressed (no Content-Encoding)',
  },
  // Operator reads (the token is added in beforeAll where the row says `Bearer OK`).
  {
    listener: 'api',
    method: 'GET',
    url: '/api/operator/events?env=test',
    status: 401,
    error: 'operator token required: send Authorization: Bearer <operator token>',
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/operator/events?env=test',
    headers: { authorization: 'Bearer nope' },
    status: 401,
    error: 'invalid operator token: it is unknown or revoked; send Authorization: Bearer <a live operator token>',
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/operator/events?env=prod',
    headers: { authorization: 'Bearer OK' },
    status: 400,
    error: "invalid query parameter 'env': is required: test or live (the two are never mixed in one answer)",
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/operator/events?env=test&limit=1&limit=2',
    headers: { authorization: 'Bearer OK' },
    status: 400,
    error: "invalid query parameter 'limit': must be given once",
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/operator/costs?env=test&since=6&until=5',
    headers: { authorization: 'Bearer OK' },
    status: 400,
    error: SINCE_FIRST,
  },
  {
    listener: 'api',
    method: 'GET',
    url: '/api/operator/costs?env=test&period=week',
    headers: { authorization: 'Bearer OK' },
    status: 400,
    error: "invalid query parameter 'period': must be one of day, month",
  },
  // Trust check.
  {
    listener: 'verify',
    method: 'POST',
    url: '/v1/check',
    headers: { 'content-type': 'text/plain' },
    body: '{"url":"https://a.example/"}',
    status: 415,
    error: 'unsupported content type: send the body as application/json',
  },
  {
    listener: 'verify',
    method: 'POST',
    url: '/v1/check',
    headers: { ...json, 'content-encoding': 'gzip' },
    body: gzipSync('{"url":"https://a.example/"}'),
    status: 415,
    error: 'unsupported content encoding: send the body uncompressed (no Content-Encoding)',
  },
  {
    listener: 'verify',
    method: 'POST',
    url: '/v1/check',
    headers: json,
    body: '{"url":"https://a.example/","url":"https://b.example/"}',
    status: 400,
    error: 'malformed body: duplicate member name at character 28 (a name may appear once per object)',
  },
  {
    listener: 'verify',
    method: 'POST',
    url: '/v1/check',
    headers: json,
    body: '{"__proto__":{"x":1},"url":"https://a.example/"}',
    status: 400,
    error: /^malformed body: member name "__proto__" at character 1 is refused/,
  },
  {
    listener: 'verify',
    method: 'POST',
    url: '/v1/check',
    headers: json,
    body: '{',
    status: 400,
    error: 'malformed body: not valid JSON (at character 1)',
  },
  {
    listener: 'verify',
    method: 'POST',
    url: '/v1/check',
    headers: json,
    body: '{"url":5}',
    status: 400,
    error: "invalid body member 'url': must be text",
  },
  {
    listener: 'verify',
    method: 'POST',
    url: '/v1/check',
    headers: json,
    body: '{"url":"ftp://a.example/"}',
    status: 400,
    error: "invalid body member 'url': must be an absolute http or https URL",
  },
  {
    listener: 'verify',
    method: 'POST',
    url: '/v1/check',
    headers: json,
    body: '[]',
    status: 400,
    error: 'invalid body: must be a JSON object',
  },
  {
    listener: 'verify',
    method: 'POST',
    url: '/v1/check',
    headers: json,
    body: '{"url":"https://a.example/","x":1}',
    status: 400,
    error: "unknown body member 'x'",
  },
  {
    listener: 'verify',
    method: 'POST',
    url: '/v1/keys',
    headers: json,
    body: '{"plan":"paid"}',
    status: 400,
    error: "unknown body member 'plan'",
  },
  {
    listener: 'verify',
    method: 'POST',
    url: '/v1/keys',
    headers: json,
    body: '[]',
    status: 400,
    error: 'invalid body: must be a JSON object',
  },
  {
    listener: 'verify',
    method: 'POST',
    url: '/v1/keys',
    headers: { 'content-type': 'text/plain' },
    body: 'x',
    status: 415,
    error: 'unsupported content type: send the body as application/json',
  },
  { listener: 'verify', method: 'GET', url: '/v1/check', status: 405, error: 'method GET not allowed here; use OPTIONS, POST' },
];

/** Every numeric parameter of every public list, with values that must be refused. */
const NUMERIC: [string, string[]][] = [
  ['/api/transactions', ['limit', 'offset', 'since', 'until']],
  ['/api/metrics', ['since', 'until']],
  ['/api/metrics/series', ['since', 'until']],
  ['/api/export', ['since', 'until']],
  ['/api/providers', ['limit', 'offset']],
  ['/api/intelligence/offers', ['limit', 'offset', 'since', 'until']],
  ['/api/intelligence/changes', ['limit', 'offset', 'since', 'until']],
  ['/api/intelligence/history', ['limit', 'offset', 'since', 'until']],
];
const BAD_NUMBERS = ['', '0x10', '1e1', '-1', '+1', 'abc', '1,5', '99999999999999999999', ' 1'];

describe('one error voice on every route family', () => {
  let db: TestDb;
  let store: Store;
  let apps: Record<Listener, FastifyInstance>;
  let token: string;

  beforeAll(async () => {
    db = await createTestDb('sqlite');
    store = await openStore(db.url);
    const config = loadConfig({ db: db.url }, { PAYWATCH_SECRET: SECRET, PAYWATCH_VERIFY_FREE_KEYS_PER_MONTH: '100' });
    const ctx = { store, config, components: new Map() };
    apps = { api: await buildApp(ctx, { logger: false }), verify: await buildVerifyApp(ctx, { logger: false }) };
    await finishCollectRun(store, await startCollectRun(store), { services: 0, snapshots: 0, changes: 0, error: null });
    token = (await issueOperatorToken(store, 'ops')).token;
    // A real sender, so the intake's own duplicate-member refusal is reached past the signature.
    const sender = await issueSender(store, new KeyVault(loadMasterSecret(config)!), 'connection', 'app', 'acp', 'test');
    const body = `{"schema":"paywatch.protocol.v1","schema":"paywatch.protocol.v1","protocol":"acp"}`;
    const ts = Math.floor(Date.now() / 1000);
    TABLE.push({
      listener: 'api',
      method: 'POST',
      url: '/api/protocol-events',
      headers: {
        ...json,
        'x-svc-connection': sender.id,
        'x-svc-timestamp': String(ts),
        'x-svc-signature': signDelivery(sender.key, ts, body),
      },
      body,
      status: 400,
      error: /^malformed body: duplicate member name at character \d+ \(a name may appear once per object\)$/,
    });
  });
  afterAll(async () => {
    await apps.api.close();
    await apps.verify.close();
    await store.close();
    await db.drop();
  });

  const send = (r: Pick<Bad, 'listener' | 'method' | 'url' | 'headers' | 'body'>) => {
    const headers = { ...r.headers };
    if (headers.authorization === 'Bearer OK') headers.authorization = `Bearer ${token}`;
    return apps[r.listener].inject({ method: r.method as 'GET', url: r.url, headers, payload: r.body });
  };

  it('answers each bad request of the table with its status, an {error} body and the message in its form', async () => {
    // Rows are read here, after beforeAll added the signed intake row.
    expect(TABLE.length).toBeGreaterThan(50);
    for (const row of TABLE) {
      const res = await send(row);
      const what = `${row.method} ${row.url} ${row.body ? String(row.body).slice(0, 60) : ''}`;
      expect(res.statusCode, `${what}: ${res.body.slice(0, 200)}`).toBe(row.status);
      if (row.status < 400) continue;
      expect(res.headers['content-type'], what).toMatch(/^application\/json/);
      const body = res.json() as Record<string, unknown>;
      expect(Object.keys(body), what).toEqual(['error']);
      if (typeof row.error === 'string') expect(body.error, what).toBe(row.error);
      else expect(body.error, what).toMatch(row.error);
      expect(body.error, what).not.toMatch(VALIDATOR_PHRASING);
    }
  });

  it('refuses free keys past the hourly limit naming the limit and its window in seconds', async () => {
    const answers = [];
    // A client of its own: the table's refused key requests count against 127.0.0.1's hour.
    for (let i = 0; i < 6; i++) answers.push(await apps.verify.inject({ method: 'POST', url: '/v1/keys', remoteAddress: '203.0.113.7' }));
    expect(answers.slice(0, 5).map((a) => a.statusCode)).toEqual([201, 201, 201, 201, 201]);
    const last = answers[5]!;
    expect(last.statusCode).toBe(429);
    const retry = Number(last.headers['retry-after']);
    expect(retry).toBeGreaterThan(3500);
    expect(last.json()).toEqual({ error: `rate limited: at most 5 keys per hour per client; retry after ${retry} s` });
  });

  it('refuses every malformed numeric value of every public list in the query form, never with validator phrasing', async () => {
    let refused = 0;
    for (const [path, params] of NUMERIC) {
      for (const p of params) {
        const extra = path === '/api/intelligence/history' ? '&domain=a.example' : '';
        for (const v of [...BAD_NUMBERS.map((b) => `${p}=${encodeURIComponent(b)}`), `${p}=1&${p}=2`]) {
          const url = `${path}?${v}${extra}`;
          const res = await send({ listener: 'api', method: 'GET', url });
          expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).toBe(400);
          const { error } = res.json() as { error: string };
          expect(error, url).toMatch(QUERY_FORM);
          expect(error, url).toContain(`'${p}'`);
          expect(error, url).not.toMatch(VALIDATOR_PHRASING);
          refused++;
        }
      }
    }
    expect(refused).toBe(NUMERIC.reduce((n, [, ps]) => n + ps.length, 0) * (BAD_NUMBERS.length + 1));
  });
});
