/**
 * Both OpenAPI documents as the listeners serve them: every operation has an operationId (unique in its document),
 * every tag used is declared, public operations say `security: []`, reads document ETag, Cache-Control and the
 * rate-limit headers, every route documents 429 and 503 with Retry-After; the finisher refuses an operation it
 * has no id for. (Redocly's recommended rules run on the same documents in CI: npm run lint:openapi.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { finishDocument } from '../../src/api/openapi.js';
import { loadConfig } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/db.js';
import { buildVerifyApp } from '../../src/trust/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

type Op = { operationId?: string; tags?: string[]; security?: unknown[]; responses: Record<string, { headers?: Record<string, unknown> }> };
type Doc = { tags: { name: string; description: string }[]; servers: { url: string }[]; paths: Record<string, Record<string, Op>> };

let db: TestDb;
let store: Store;
const docs: Record<'api' | 'verify', Doc> = {} as never;

beforeAll(async () => {
  db = await createTestDb('sqlite');
  store = await openStore(db.url);
  const ctx = { store, config: loadConfig({ db: db.url, publicUrl: 'https://paywatch.example' }, {}), components: new Map() };
  for (const [name, build, path] of [['api', buildApp, '/api/openapi.json'], ['verify', buildVerifyApp, '/v1/openapi.json']] as const) {
    const app = await build(ctx, { logger: false });
    docs[name] = (await app.inject(path)).json() as Doc;
    await app.close();
  }
});
afterAll(async () => {
  await store?.close();
  await db?.drop();
});

const operations = (d: Doc) => Object.entries(d.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, method, path, op })));

describe('the OpenAPI documents', () => {
  it('give every operation an operationId unique in its document and declare every tag they use', () => {
    for (const d of Object.values(docs)) {
      const ids = operations(d).map((o) => o.op.operationId);
      expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
      const declared = new Set(d.tags.map((t) => t.name));
      for (const { key, op } of operations(d)) for (const t of op.tags ?? []) expect(declared.has(t), `${key} tag ${t}`).toBe(true);
      expect(d.tags.every((t) => t.description.length > 0)).toBe(true);
    }
    expect(docs.api.servers).toEqual([{ url: 'https://paywatch.example' }]);
  });

  it('say which operations are public and which take a key', () => {
    for (const { key, op } of operations(docs.api)) expect(op.security, key).toEqual([]);
    expect(docs.verify.paths['/v1/check'].post.security).toEqual([{ apiKey: [] }, {}]);
  });

  it('document the headers and the 429 and 503 answers clients rely on', () => {
    const list = docs.api.paths['/api/transactions'].get.responses;
    expect(Object.keys(list['200'].headers ?? {})).toEqual(expect.arrayContaining(['ETag', 'Cache-Control', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id']));
    expect(list['304']).toBeDefined();
    for (const d of Object.values(docs)) {
      for (const { key, path, op } of operations(d)) {
        if (path === '/healthz' || path === '/readyz') continue;
        for (const status of ['429', '503']) expect(Object.keys(op.responses[status]?.headers ?? {}), `${key} ${status}`).toContain('Retry-After');
      }
    }
  });

  it('cannot be built with an operation it has no id for', () => {
    const doc = { info: {}, paths: { '/api/new': { get: { responses: {} } } } };
    expect(() => finishDocument(doc, { server: 'http://x' })).toThrow(/no operationId for GET \/api\/new/);
  });
});
