/**
 * Both OpenAPI documents as the listeners serve them: every operation has an operationId (unique in its document),
 * every tag used is declared, public operations say `security: []`, every rate-limited route documents 429 and 503
 * with Retry-After (and 304 where an ETag applies), the servers are the configured public URLs or relative; the
 * finisher refuses an operation it has no id for. Over real sockets: every header a document lists for an answer
 * is on that answer (reads, their 304s, errors, 429s, the MCP endpoint, the trust check). (Redocly's recommended
 * rules run on the same documents in CI: npm run lint:openapi.)
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { finishDocument } from '../../src/http/openapi.js';
import { loadConfig, type Flags } from '../../src/config.js';
import { writeBlocks } from '../../src/store/chain/index.js';
import { openStore, type Store } from '../../src/store/db.js';
import { buildVerifyApp } from '../../src/trust/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { makeBlocks } from '../helpers/observations.js';
import { dereference } from './helpers.js';

type Response = { $ref?: string; headers?: Record<string, unknown>; content?: Record<string, { schema: object }> };
type Op = { operationId?: string; tags?: string[]; security?: unknown[]; responses: Record<string, Response> };
type Doc = {
  tags: { name: string; description: string }[];
  servers: { url: string }[];
  paths: Record<string, Record<string, Op>>;
  components: Record<string, Record<string, unknown>>;
};

let db: TestDb;
let store: Store;
const docs: Record<'api' | 'verify', Doc> = {} as never;
const blocks = makeBlocks({ count: 12, seed: 5 });

/** Builds one app over the shared store with these flags. */
const build = (kind: 'api' | 'verify', flags: Flags = {}): Promise<FastifyInstance> =>
  (kind === 'api' ? buildApp : buildVerifyApp)(
    { store, config: loadConfig({ db: db.url, ...flags }, {}), components: new Map() },
    { logger: false },
  );

/** Starts `app` on a free port of 127.0.0.1 and returns its base URL. */
async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  db = await createTestDb('sqlite');
  store = await openStore(db.url);
  const last = blocks[blocks.length - 1]!;
  await writeBlocks(store, blocks, { height: last.height, hash: last.hash });
  for (const [name, path] of [
    ['api', '/api/openapi.json'],
    ['verify', '/v1/openapi.json'],
  ] as const) {
    const app = await build(name, { publicUrl: 'https://paywatch.example/' });
    docs[name] = (await app.inject(path)).json() as Doc;
    await app.close();
  }
}, 60_000);
afterAll(async () => {
  await store?.close();
  await db?.drop();
});

const operations = (d: Doc) =>
  Object.entries(d.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, method, path, op })),
  );

/** The header names `doc` documents for `status` of `method path` (lower-case), $refs resolved. */
function documentedHeaders(doc: Doc, method: string, path: string, status: number): string[] {
  const r = dereference(doc, doc.paths[path]?.[method]?.responses[String(status)]);
  expect(r, `${method.toUpperCase()} ${path} documents ${status}`).toBeDefined();
  return Object.keys(r!.headers ?? {}).map((h) => h.toLowerCase());
}

/** Checks that the answer `r` to `method path` is documented with its status and carries every documented header. */
function expectDocumented(doc: Doc, method: string, path: string, r: globalThis.Response): void {
  const documented = documentedHeaders(doc, method, path, r.status);
  const missing = documented.filter((h) => !r.headers.has(h));
  expect(missing, `${method.toUpperCase()} ${path} ${r.status} lacks documented headers`).toEqual([]);
}

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
    expect(docs.api.paths['/api/transactions'].get.operationId).toBe('listTransactions');
  });

  it('name the configured public URL as their server, or a relative one when none is configured', () => {
    expect(docs.api.servers.map((s) => s.url)).toEqual(['https://paywatch.example']);
    expect(docs.verify.servers.map((s) => s.url)).toEqual(['/']);
  });

  it('describe read-only access only on the public listener: reads, and the MCP endpoint of read-only tools', () => {
    const writes = operations(docs.api)
      .filter((o) => o.method !== 'get')
      .map((o) => o.key);
    expect(writes).toEqual(['POST /api/mcp']);
    expect(Object.keys(docs.api.paths).filter((p) => /protocol-events|outcomes|operator/.test(p))).toEqual([]);
  });

  it('say which operations are public and which take a key', () => {
    for (const { key, op } of operations(docs.api)) expect(op.security, key).toEqual([]);
    expect(docs.verify.paths['/v1/check'].post.security).toEqual([{ apiKey: [] }, {}]);
  });

  it('document the headers, 304, 429 and 503 answers clients rely on, stating each shared part once', () => {
    expect(documentedHeaders(docs.api, 'get', '/api/transactions', 200)).toEqual(
      expect.arrayContaining(['etag', 'cache-control', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-request-id']),
    );
    expect(documentedHeaders(docs.api, 'get', '/api/transactions', 304)).toEqual(expect.arrayContaining(['etag', 'x-ratelimit-remaining']));
    expect(docs.api.paths['/api/export'].get.responses['304']).toBeUndefined();
    for (const d of Object.values(docs)) {
      for (const { key, method, path } of operations(d)) {
        if (path === '/healthz' || path === '/readyz' || path === '/readyz/collector') continue;
        for (const status of [429, 503]) expect(documentedHeaders(d, method, path, status), `${key} ${status}`).toContain('retry-after');
        const error = dereference(d, d.paths[path]![method]!.responses['429']!).content!['application/json']!.schema;
        expect(error, key).toMatchObject({ required: ['error'], properties: { error: { type: 'string' } } });
      }
      // Shared parts are components: the Error schema and X-Request-Id appear once, referred to everywhere.
      expect(Object.keys(d.components.headers ?? {})).toContain('X-Request-Id');
      expect(JSON.stringify(d.paths)).not.toMatch(/"X-Request-Id":\{"description"/);
    }
  });

  it("type the contract's integer constants integer, describe decode by its served values, and declare the export's errors JSON", async () => {
    // Every constant number anywhere in both documents (chain_id 4217, integrity.maximum 5, x402Version 1) is an integer.
    const numberConstants: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (!node || typeof node !== 'object') return;
      const n = node as Record<string, unknown>;
      const constants = [...((n.enum as unknown[]) ?? []), ...('const' in n ? [n.const] : [])];
      if (constants.some((v) => typeof v === 'number') && n.type !== 'integer') numberConstants.push(`${at}: ${JSON.stringify(n)}`);
      for (const [k, v] of Object.entries(n)) walk(v, `${at}/${k}`);
    };
    for (const d of Object.values(docs)) walk(d, '#');
    expect(numberConstants).toEqual([]);
    const row = dereference(docs.api, docs.api.paths['/api/transactions'].get.responses['200'].content!['application/json'].schema) as {
      properties: {
        rows: { items: { properties: Record<string, { type: string; enum?: number[]; description: string; properties?: any }> } };
      };
    };
    const members = row.properties.rows.items.properties;
    expect(members.chain_id).toMatchObject({ type: 'integer', enum: [4217] });
    expect(members.integrity.properties.maximum).toMatchObject({ type: 'integer', enum: [5] });
    // decode is described by the values it really takes, and every served value has one of those forms.
    expect(members.decode.description).toMatch(/`full`.*`partial: <reasons>`.*`partial: 1 undecoded call\(s\)`.*`none: no receipt`/);
    const app = await build('api');
    try {
      const served = (await app.inject('/api/transactions?limit=100')).json() as { rows: { decode: string }[] };
      expect(served.rows.length).toBeGreaterThan(0);
      for (const r of served.rows) expect(r.decode).toMatch(/^(full|partial: .+|none: .+)$/);
      // The export's errors are served as JSON, and documented so (never text/csv).
      const bad = await app.inject('/api/export?since=x');
      expect(bad.statusCode).toBe(400);
      expect(bad.headers['content-type']).toMatch(/^application\/json/);
    } finally {
      await app.close();
    }
    const exportAnswers = docs.api.paths['/api/export'].get.responses;
    expect(Object.keys(exportAnswers['200'].content!)).toEqual(['text/csv']);
    for (const status of ['400', '429', '503']) {
      const answer = dereference(docs.api, exportAnswers[status]) as Response;
      expect(Object.keys(answer.content!), `export ${status}`).toEqual(['application/json']);
    }
  });

  it('cannot be built with an operation it has no id for', () => {
    const doc = { info: {}, paths: { '/api/new': { get: { responses: {} } } } };
    expect(() => finishDocument(doc, { server: 'http://x' })).toThrow(/no operationId for GET \/api\/new/);
  });
});

describe('the headers the documents list are the ones the listeners send (real sockets)', () => {
  it('on every public read, its 304, its errors, and the MCP endpoint', async () => {
    const app = await build('api', { rateLimitPerMinute: 100_000 });
    try {
      const base = await listen(app);
      const hash = ((await (await fetch(`${base}/api/transactions?limit=1`)).json()) as { rows: { hash: string }[] }).rows[0]!.hash;
      const concrete: Record<string, string> = {
        '/api/transactions/{hash}': `/api/transactions/${hash}`,
        '/api/providers/{domain}': '/api/providers/unlisted.example',
        '/api/intelligence/history': '/api/intelligence/history?domain=unlisted.example',
      };
      const reads = operations(docs.api).filter((o) => o.method === 'get');
      expect(reads.length).toBeGreaterThanOrEqual(15);
      let notModified = 0;
      for (const { path } of reads) {
        const r = await fetch(base + (concrete[path] ?? path));
        await r.arrayBuffer();
        // Every route answers a documented status (intelligence lists: 503 before the first collection run).
        expectDocumented(docs.api, 'get', path, r);
        const etag = r.headers.get('etag');
        if (r.status === 200 && docs.api.paths[path]!.get!.responses['304']) {
          const again = await fetch(base + (concrete[path] ?? path), { headers: { 'if-none-match': etag ?? '' } });
          // 304 unless the answer changed meanwhile (status's lag_seconds moves with the clock): then a new ETag.
          if (again.status !== 304) expect(again.headers.get('etag'), path).not.toBe(etag);
          else notModified++;
          expectDocumented(docs.api, 'get', path, again);
        }
      }
      expect(notModified).toBeGreaterThanOrEqual(6);
      const bad = await fetch(`${base}/api/transactions?limit=0`);
      expect(bad.status).toBe(400);
      expectDocumented(docs.api, 'get', '/api/transactions', bad);

      const mcp = await fetch(`${base}/api/mcp`, {
        method: 'POST',
        headers: { origin: 'https://elsewhere.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(mcp.status).toBe(200);
      expectDocumented(docs.api, 'post', '/api/mcp', mcp);
      // The cross-origin answer itself (not only its preflight) lets a page read it.
      expect(mcp.headers.get('access-control-allow-origin')).toBe('*');
    } finally {
      await app.close();
    }
  }, 60_000);

  it('on a rate-limited public read', async () => {
    const app = await build('api', { rateLimitPerMinute: 1 });
    try {
      const base = await listen(app);
      expect((await fetch(`${base}/api/coverage`)).status).toBe(200);
      const r = await fetch(`${base}/api/coverage`);
      expect(r.status).toBe(429);
      expectDocumented(docs.api, 'get', '/api/coverage', r);
    } finally {
      await app.close();
    }
  });

  it('on the trust check: a key issued, a check without one, a key refused past the hourly limit', async () => {
    const app = await build('verify', { verifyKeysPerHour: 1 });
    try {
      const base = await listen(app);
      for (const status of [201, 429]) {
        const r = await fetch(`${base}/v1/keys`, { method: 'POST' });
        expect(r.status).toBe(status);
        expectDocumented(docs.verify, 'post', '/v1/keys', r);
      }
      const check = await fetch(`${base}/v1/check`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://a.example/' }),
      });
      expect(check.status).toBe(401);
      expectDocumented(docs.verify, 'post', '/v1/check', check);
    } finally {
      await app.close();
    }
  });
});
