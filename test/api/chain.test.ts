import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { Validator } from '@seriousme/openapi-schema-validator';
import pg from 'pg';
import { DIALECTS, PG_ADMIN_URL } from '../helpers/db.js';
import { makeBlocks, observationsOf, publicOrder } from '../helpers/observations.js';
import { apiFixture, responseValidator, type ApiFixture } from './helpers.js';

const blocks = makeBlocks({ count: 150, seed: 21 });
const all = observationsOf(blocks).sort(publicOrder);
const t0 = blocks[0].time;

describe.each(DIALECTS)('chain API on %s', (dialect) => {
  let f: ApiFixture;
  let validate: ReturnType<typeof responseValidator>;
  beforeAll(async () => {
    f = await apiFixture(dialect, blocks);
    validate = responseValidator((await f.app.inject('/api/openapi.json')).json());
  });
  afterAll(async () => f?.close());

  it('serves a valid OpenAPI 3.1 document, version 1.0.0, read-only', async () => {
    const doc = (await f.app.inject('/api/openapi.json')).json();
    const res = await new Validator().validate(doc);
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe('1.0.0');
    for (const p of ['/api/status', '/api/coverage', '/api/transactions', '/api/transactions/{hash}', '/api/metrics', '/api/export']) {
      expect(Object.keys(doc.paths[p]), p).toEqual(['get']);
      for (const code of ['200', '400', '429', '503']) expect(doc.paths[p].get.responses[code], `${p} ${code}`).toBeDefined();
    }
    expect(doc.paths['/api/transactions/{hash}'].get.responses['404']).toBeDefined();
  });

  it('answers every endpoint with bodies that match the document', async () => {
    const cases: [string, string][] = [
      ['/api/status', '/api/status'],
      ['/api/coverage', '/api/coverage'],
      ['/api/transactions', '/api/transactions'],
      ['/api/transactions', `/api/transactions?limit=100&offset=20&until=${t0 + 100}&execution=success`],
      ['/api/transactions/{hash}', `/api/transactions/${all[3].hash}`],
      ['/api/metrics', '/api/metrics?asset=pathUSD'],
    ];
    for (const [path, url] of cases) {
      const r = await f.app.inject(url);
      expect(r.statusCode, url).toBe(200);
      expect(validate(path, 200, r.json()), url).toEqual([]);
      expect(r.headers['cache-control'], url).toMatch(/max-age=\d+/);
      expect(r.headers.etag, url).toBeTruthy();
    }
    const status = (await f.app.inject('/api/status')).json();
    expect(status).toMatchObject({ chain_id: 4217, total_transactions: 150, service_sources: [], independent_consensus_verified: false });
    expect(status.checkpoint.height).toBe(blocks.at(-1)!.height);
    const cov = (await f.app.inject('/api/coverage')).json();
    expect(cov.intervals).toEqual([{ first: blocks[0].height, last: blocks.at(-1)!.height, blocks: blocks.length }]);
  });

  it('lists in time-desc, hash-asc order with the TransactionList envelope', async () => {
    const r = (await f.app.inject('/api/transactions?limit=40&offset=5')).json();
    expect(r).toMatchObject({ total: 150, limit: 40, offset: 5 });
    expect(r.rows.map((x: { hash: string }) => x.hash)).toEqual(all.slice(5, 45).map((o) => o.hash));
    expect(r.rows[0]).not.toHaveProperty('legs');
    const d = (await f.app.inject(`/api/transactions/${all[0].hash.toUpperCase().replace('0X', '0x')}`)).json();
    expect(d).toMatchObject({
      hash: all[0].hash,
      legs: all[0].detail.legs,
      evidence: all[0].detail.evidence,
      integrity: { score: 2, maximum: 5 },
    });
  });

  it('404 for an unrecorded hash says it is not proof of absence', async () => {
    const r = await f.app.inject(`/api/transactions/0x${'0'.repeat(64)}`);
    expect(r.statusCode).toBe(404);
    expect(r.json().error).toMatch(/not recorded.*not proof/);
    expect(validate('/api/transactions/{hash}', 404, r.json())).toEqual([]);
  });

  it('exports CSV: header, newest first, exact decimals, unit columns, empty cells for null, offset ignored', async () => {
    const r = await f.app.inject(`/api/export?offset=40&until=${t0 + 120}`);
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/csv/);
    expect(r.headers['content-disposition']).toMatch(/attachment; filename="paywatch-transactions-\d{8}T\d{6}Z\.csv"/);
    const recs = parse(r.body, { columns: true }) as Record<string, string>[];
    const want = all.filter((o) => o.time < t0 + 120);
    expect(recs.map((x) => x.hash)).toEqual(want.map((o) => o.hash));
    const eur = recs.find((x) => x.asset === 'EURC')!;
    expect(eur.nominal).toBe('');
    expect(eur.nominal_unit).toBe('');
    expect(eur.amount_unit).toBe('EURC');
    for (const [i, x] of recs.entries()) {
      expect(x.amount).toBe(want[i].amount ?? '');
      expect(x.fee).toBe(want[i].fee ?? '');
    }
    const bad = await f.app.inject('/api/export?since=abc');
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toMatch(/application\/json/);
    expect(bad.json().error).toMatch(/'since'/);
  });

  it('ETag and 304 on a matching If-None-Match', async () => {
    for (const url of ['/api/transactions?limit=5', '/api/metrics', '/api/coverage', `/api/transactions/${all[1].hash}`]) {
      const a = await f.app.inject(url);
      // The ETag names the body served (remembered pages and details carry one computed when rendered).
      expect(a.headers.etag, url).toBe(`W/"${createHash('sha1').update(a.body).digest('base64')}"`);
      expect((await f.app.inject(url)).headers.etag, url).toBe(a.headers.etag);
      const b = await f.app.inject({ url, headers: { 'if-none-match': a.headers.etag as string } });
      expect(b.statusCode, url).toBe(304);
      expect(b.body).toBe('');
      const c = await f.app.inject({ url, headers: { 'if-none-match': '"other"' } });
      expect(c.statusCode, url).toBe(200);
    }
  });

  const invalid: [string, string][] = [
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=', 'limit'],
    ['limit=1e2', 'limit'],
    ['limit=0x10', 'limit'],
    ['limit=1&limit=2', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=1000001', 'offset'],
    ['offset=1.0', 'offset'],
    ['offset=%201', 'offset'],
    ['since=-5', 'since'],
    ['since=abc', 'since'],
    ['since=99999999999999', 'since'],
    ['until=1.5', 'until'],
    ['until=', 'until'],
    [`since=${t0}&until=${t0}`, 'since'],
    [`since=${t0 + 5}&until=${t0}`, 'since'],
    [`q=${'a'.repeat(141)}`, 'q'],
    ['q=%C3%A9t%C3%A9', 'q'],
    ['q=%27%20OR%201%3D1--', 'q'],
    ['q=a%3Bdrop%20table%20observations', 'q'],
    ['q=%3Cscript%3E', 'q'],
    ['q=a%00b', 'q'],
    ['q=a%0Ab', 'q'],
    ['q=%F0%9F%92%B8', 'q'],
    ['q=a&q=b', 'q'],
    [`asset=${'x'.repeat(67)}`, 'asset'],
    ['asset=%22USDC%22', 'asset'],
    ['exchange=a%2Fb', 'exchange'],
    ['execution=ok', 'execution'],
    ['execution=SUCCESS', 'execution'],
    ['execution=', 'execution'],
    ['protocol=stripe', 'protocol'],
    ['protocol=x402&protocol=mpp', 'protocol'],
    ['category=revenue', 'category'],
    ['payer=0x1234', 'payer'],
    [`recipient=0x${'g'.repeat(40)}`, 'recipient'],
    ['service_id=svc-1', 'service_id'],
    ['provider=a%2Fb', 'provider'],
    ['foo=1', 'foo'],
    ['LIMIT=5', 'LIMIT'],
  ];
  it.each(invalid)('400 {error} naming the parameter for %s', async (qs, param) => {
    const r = await f.app.inject(`/api/transactions?${qs}`);
    expect(r.statusCode).toBe(400);
    expect(Object.keys(r.json())).toEqual(['error']);
    expect(r.json().error).toContain(`'${param}'`);
    expect(validate('/api/transactions', 400, r.json())).toEqual([]);
  });

  it('400 on metrics and export too, and for a malformed hash', async () => {
    for (const url of [
      '/api/metrics?limit=5',
      '/api/metrics?execution=x',
      '/api/export?q=%C3%A9',
      '/api/status?x=1',
      '/api/transactions/0x123',
      `/api/transactions/0x${'g'.repeat(64)}`,
    ]) {
      const r = await f.app.inject(url);
      expect(r.statusCode, url).toBe(400);
      expect(typeof r.json().error, url).toBe('string');
    }
  });

  it('stored data is unchanged after injection attempts', async () => {
    await f.app.inject("/api/transactions?q=x'%3B%20delete%20from%20observations%3B--");
    await f.app.inject('/api/transactions?asset=pathUSD%27%20or%20%271%27%3D%271');
    expect((await f.app.inject('/api/status')).json().total_transactions).toBe(150);
  });
});

describe('chain API limits and outages', () => {
  it('429 with Retry-After and rate-limit headers, body {error}', async () => {
    const f = await apiFixture('sqlite', blocks.slice(0, 5), { rateLimitPerMinute: 4 });
    try {
      const validate = responseValidator((await f.app.inject('/api/openapi.json')).json());
      for (let i = 0; i < 3; i++) expect((await f.app.inject('/api/transactions')).statusCode).toBe(200);
      const r = await f.app.inject('/api/transactions');
      expect(r.statusCode).toBe(429);
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
      expect(r.headers['x-ratelimit-limit']).toBe('4');
      expect(Object.keys(r.json())).toEqual(['error']);
      expect(validate('/api/transactions', 429, r.json())).toEqual([]);
    } finally {
      await f.close();
    }
  });

  it('counts IPv6 clients by /64: fresh addresses in one /64 share one limit, another /64 has its own', async () => {
    const f = await apiFixture('sqlite', blocks.slice(0, 5), { rateLimitPerMinute: 3 });
    try {
      const from = (remoteAddress: string) => f.app.inject({ method: 'GET', url: '/api/coverage', remoteAddress });
      for (const host of ['1', '2', '3']) expect((await from(`2001:db8:1:2::${host}`)).statusCode).toBe(200);
      expect((await from('2001:db8:1:2:ffff::9')).statusCode).toBe(429);
      expect((await from('2001:db8:1:3::1')).statusCode).toBe(200);
    } finally {
      await f.close();
    }
  });

  it('status shows the live collector of this process over the recorded state', async () => {
    const live = {
      state: 'catching_up' as const,
      source: 'http://user:secret@127.0.0.1:8545/key123',
      last_block: 7,
      finalized_head: 9,
      rate_tx_per_s: 4,
      rate_blocks_per_s: 2,
      last_error: null,
      last_error_at: null,
      updated_at: new Date().toISOString(),
      behind_blocks: 2,
      started_at: new Date().toISOString(),
    };
    const f = await apiFixture('sqlite', blocks.slice(0, 3), {}, new Map([['collector', () => live]]));
    try {
      const r = (await f.app.inject('/api/status')).json();
      expect(r.collector).toMatchObject({ state: 'catching_up', last_block: 7, finalized_head: 9, rate_tx_per_s: 4 });
      expect(r.source).toBe('http://127.0.0.1:8545');
      expect(JSON.stringify(r)).not.toContain('secret');
      expect(JSON.stringify(r)).not.toContain('key123');
      expect(Array.isArray(r.service_sources)).toBe(true);
    } finally {
      await f.close();
    }
  });

  it('export stops at the newest 10,000 matches', async () => {
    const big = makeBlocks({ count: 10_050, seed: 5, maxTxPerBlock: 40 });
    const f = await apiFixture('sqlite', big);
    try {
      const r = await f.app.inject('/api/export');
      const recs = parse(r.body, { columns: true }) as Record<string, string>[];
      expect(recs.length).toBe(10_000);
      expect(recs.map((x) => x.hash)).toEqual(
        observationsOf(big)
          .sort(publicOrder)
          .slice(0, 10_000)
          .map((o) => o.hash),
      );
      const m = (await f.app.inject('/api/metrics')).json();
      expect(m).toMatchObject({ total: 10_050, analyzed: 10_050, truncated: false });
    } finally {
      await f.close();
    }
  });

  it('never answers 5xx to random query strings (fast-check)', async () => {
    const f = await apiFixture('sqlite', blocks);
    try {
      const key = fc.constantFrom('since', 'until', 'q', 'asset', 'exchange', 'execution', 'limit', 'offset', 'x', '');
      const value = fc.oneof(
        fc.string(),
        fc.integer().map(String),
        fc.constantFrom('unknown', 'success', '0x', 'EURC', `0x${'a'.repeat(64)}`, '1e309', 'NaN', '-0'),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(key, value), { maxLength: 5 }),
          fc.constantFrom('/api/transactions', '/api/metrics', '/api/export'),
          async (pairs, path) => {
            const qs = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
            const r = await f.app.inject(`${path}?${qs}`);
            expect(r.statusCode).toBeLessThan(500);
            if (r.statusCode >= 400) expect(typeof r.json().error).toBe('string');
          },
        ),
        { numRuns: 150 },
      );
    } finally {
      await f.close();
    }
  });

  it.each(DIALECTS)('503 with Retry-After when the %s store cannot answer, never a 500', async (dialect) => {
    const f = await apiFixture(dialect, blocks.slice(0, 10));
    try {
      // Warm up with another page: a page already remembered at the current store version may still be served
      // for up to STATS_REUSE_MS (docs/decisions.md); every read that needs the store must answer 503.
      expect((await f.app.inject('/api/transactions?limit=5')).statusCode).toBe(200);
      if (dialect === 'postgres') {
        // Drop the database under the running app: open connections are terminated, new ones find no database.
        const c = new pg.Client({ connectionString: PG_ADMIN_URL });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${new URL(f.db.url).pathname.slice(1)} WITH (FORCE)`);
        await c.end();
      } else {
        await f.store.close();
      }
      for (const url of [
        '/api/status',
        '/api/coverage',
        '/api/transactions',
        `/api/transactions/${all[0].hash}`,
        '/api/metrics',
        '/api/export',
      ]) {
        const r = await f.app.inject(url);
        expect(r.statusCode, url).toBe(503);
        expect(r.headers['retry-after'], url).toBeTruthy();
        expect(r.headers['content-type'], url).toMatch(/application\/json/);
        expect(Object.keys(r.json()), url).toEqual(['error']);
      }
    } finally {
      await f.close();
    }
  });
});
