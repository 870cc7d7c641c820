/**
 * Writes paywatch's two OpenAPI documents, as the listeners serve them, to files: the public API's
 * (GET /api/openapi.json) and the trust check's (GET /v1/openapi.json), built over a temporary empty SQLite store.
 * `npm run lint:openapi` lints them with Redocly CLI (redocly.yaml).
 * Run: node bin/run-ts.js scripts/openapi-dump.ts OUT_DIR
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/api/app.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/store/db.js';
import { buildVerifyApp } from '../src/trust/app.js';

const out = process.argv[2] ?? '.ci/out/openapi';
mkdirSync(out, { recursive: true });
const dir = mkdtempSync(join(tmpdir(), 'paywatch-openapi-'));
const db = `sqlite:${join(dir, 'store.sqlite')}`;
const store = await openStore(db);
try {
  const ctx = { store, config: loadConfig({ db }, {}), components: new Map() };
  for (const [name, app, path] of [
    ['api', await buildApp(ctx, { logger: false }), '/api/openapi.json'],
    ['verify', await buildVerifyApp(ctx, { logger: false }), '/v1/openapi.json'],
  ] as const) {
    const r = await app.inject(path);
    writeFileSync(join(out, `${name}.json`), `${JSON.stringify(r.json(), null, 2)}\n`);
    await app.close();
  }
  process.stdout.write(`wrote ${out}/api.json and ${out}/verify.json\n`);
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
