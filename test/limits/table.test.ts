/**
 * When is a request refused: the one LIMITS table (src/limits/index.ts). docs/architecture.md shows it exactly; its
 * settings exist; and the listeners refuse as it says, each refusal naming the limit's unit with the Retry-After
 * it gives: the per-client request limit of both listeners and free-key issuance (one registration helper,
 * src/limits/register.ts), and the manifest publishes the per-client heavy budget the explorer keeps to.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config.js';
import { LIMITS, type Limit, type LimitName } from '../../src/limits/index.js';
import { SETTINGS } from '../../src/settings/index.js';
import { openStore, type Store } from '../../src/store/db.js';
import { buildVerifyApp } from '../../src/trust/app.js';
import { currentTable, DOC_TABLES, tableCells } from '../../scripts/doc-tables.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

const table = DOC_TABLES.find((t) => t.name === 'limits')!;
const doc = readFileSync(new URL(`../../${table.file}`, import.meta.url), 'utf8');
const names = Object.keys(LIMITS) as LimitName[];

describe('the limits table of docs/architecture.md', () => {
  it('is LIMITS (npm run docs:tables rewrites it)', () => {
    expect(currentTable(doc, table)).toBe(table.render());
  });

  it('has one row per limit, in order, with its scope and what is answered', () => {
    const rows = tableCells(currentTable(doc, table));
    expect(rows.map((r) => r[0]!.replace(/`/g, ''))).toEqual(names);
    rows.forEach((r, i) => {
      const l: Limit = LIMITS[names[i]!];
      expect(r[2], names[i]).toBe(l.scope);
      expect(r[5]!.startsWith(l.answer.status === null ? 'connection closed' : String(l.answer.status)), names[i]).toBe(true);
    });
  });
});

describe('LIMITS', () => {
  it('sets each bound by a setting or a fixed value, never both', () => {
    for (const name of names) {
      const l: Limit = LIMITS[name];
      expect((l.setting === null) !== (l.value === null), name).toBe(true);
      if (l.setting) expect(SETTINGS[l.setting], name).toBeDefined();
      if (l.answer.status === 429 || l.answer.status === 503) expect(l.answer.retryAfter, name).not.toBeNull();
    }
  });
});

describe('the listeners refuse as LIMITS says', () => {
  let db: TestDb;
  let store: Store;
  let api: FastifyInstance;
  let verify: FastifyInstance;
  beforeAll(async () => {
    db = await createTestDb('sqlite');
    store = await openStore(db.url);
    const config = loadConfig({ db: db.url, logLevel: 'silent', rateLimitPerMinute: 3, verifyKeysPerHour: 1, heavyPerClient: 3 }, {});
    api = await buildApp({ store, config, components: new Map() }, { logger: false });
    verify = await buildVerifyApp({ store, config, components: new Map() }, { logger: false });
  });
  afterAll(async () => {
    await api?.close();
    await verify?.close();
    await store?.close();
    await db?.drop();
  });

  it('answers the 4th request of a client in a minute on either listener with 429 naming the limit', async () => {
    for (const [app, url, name] of [
      [api, '/api/status', 'publicRequests'],
      [verify, '/v1/openapi.json', 'verifyRequests'],
    ] as const) {
      for (let i = 0; i < 3; i++) expect((await app.inject({ url, remoteAddress: '203.0.113.7' })).statusCode, name).toBe(200);
      const refused = await app.inject({ url, remoteAddress: '203.0.113.7' });
      expect(refused.statusCode, name).toBe(429);
      expect(refused.json().error).toMatch(new RegExp(`^rate limited: at most 3 ${LIMITS[name].unit}; retry after \\d+ s$`));
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(LIMITS[name].windowMs / 1000);
      // Another client still gets its own share.
      expect((await app.inject({ url, remoteAddress: '203.0.113.8' })).statusCode, name).toBe(200);
    }
  });

  it('issues one free key per client per hour, then 429 with Retry-After up to the hour', async () => {
    const issue = () => verify.inject({ method: 'POST', url: '/v1/keys', remoteAddress: '198.51.100.4' });
    expect((await issue()).statusCode).toBe(201);
    const refused = await issue();
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toMatch(new RegExp(`^rate limited: at most 1 ${LIMITS.keyIssuance.unit}; retry after \\d+ s$`));
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(LIMITS.publicRequests.windowMs / 1000);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(LIMITS.keyIssuance.windowMs / 1000);
  });

  it('publishes the per-client heavy budget in the manifest', async () => {
    const manifest = (await api.inject({ url: '/.well-known/paywatch.json', remoteAddress: '192.0.2.9' })).json();
    expect(manifest.rate_limits.heavy_requests_in_flight_per_client).toBe(3);
    expect(manifest.rate_limits.requests_per_minute_per_client).toBe(3);
  });
});
