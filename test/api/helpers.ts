/**
 * Builds a real app over a fresh, seeded store of either dialect for API tests, and validates answers
 * against the app's own OpenAPI document (ajv 2020 + ajv-formats).
 */
import type { FastifyInstance } from 'fastify';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildApp } from '../../src/api/app.js';
import type { LiveComponents } from '../../src/context.js';
import { loadConfig, type Flags } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/db.js';
import { writeBlocks } from '../../src/store/chain/index.js';
import type { BlockObservations } from '../../src/domain/observation.js';
import { createTestDb, type TestDb, type TestDialect } from '../helpers/db.js';

export interface ApiFixture {
  app: FastifyInstance;
  store: Store;
  db: TestDb;
  close(): Promise<void>;
}

/** A fresh database of `dialect` holding `blocks`, and an app over it (logger off). */
export async function apiFixture(
  dialect: TestDialect,
  blocks: BlockObservations[],
  flags: Flags = {},
  components: LiveComponents = new Map(),
): Promise<ApiFixture> {
  const db = await createTestDb(dialect);
  const store = await openStore(db.url);
  if (blocks.length) {
    const last = blocks[blocks.length - 1];
    await writeBlocks(store, blocks, { height: last.height, hash: last.hash });
  }
  const app = await buildApp({ store, config: loadConfig({ db: db.url, ...flags }, {}), components }, { logger: false });
  return {
    app,
    store,
    db,
    close: async () => {
      await app.close();
      await store.close().catch(() => {});
      await db.drop();
    },
  };
}

type OpenApiDoc = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
};

/**
 * A validator for real answers: validate(path, status, body) checks `body` against the document's response
 * schema for GET `path` and `status`, returning ajv's error list (empty when valid).
 */
export function responseValidator(doc: OpenApiDoc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  return (path: string, status: number, body: unknown, type = 'application/json'): unknown[] => {
    const op = dereference(doc, doc.paths[path]?.get);
    const schema = op?.responses[String(status)]?.content?.[type]?.schema;
    if (!schema) return [`no schema for GET ${path} ${status} ${type}`];
    const validate = ajv.compile(schema);
    return validate(body) ? [] : (validate.errors ?? []);
  };
}

/**
 * `value` with every local `$ref` ("#/components/...") of `doc` replaced by the object it points to, recursively
 * (the documents' shared responses, headers and the Error schema; they hold no cycles).
 */
export function dereference<T>(doc: object, value: T): T {
  if (Array.isArray(value)) return value.map((v) => dereference(doc, v)) as T;
  if (value === null || typeof value !== 'object') return value;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/')) {
    const target = ref
      .slice(2)
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<any>((o, p) => o?.[p], doc);
    if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
    return dereference(doc, target);
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, dereference(doc, v)])) as T;
}
