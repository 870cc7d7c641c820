/**
 * /healthz and /readyz on both listeners (inject): ready while the store answers, 503 `{error}` with the reason
 * once the store is really closed (on both dialects), never rate-limited, never cached.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/db.js';
import { buildVerifyApp } from '../../src/trust/app.js';
import { createTestDb, DIALECTS, type TestDb } from '../helpers/db.js';

const dbs: TestDb[] = [];
afterAll(async () => {
  for (const d of dbs) await d.drop();
});

describe.each(DIALECTS)('health and readiness (%s)', (dialect) => {
  it.each(['api', 'verify'] as const)('on the %s listener: ready, then 503 with the reason once the store is gone', async (listener) => {
    const db = await createTestDb(dialect);
    dbs.push(db);
    const store = await openStore(db.url);
    const ctx = { store, config: loadConfig({ db: db.url, rateLimitPerMinute: 1 }, {}), components: new Map() };
    const app = listener === 'api' ? await buildApp(ctx, { logger: false }) : await buildVerifyApp(ctx, { logger: false });
    try {
      for (let i = 0; i < 3; i++) {
        const live = await app.inject('/healthz');
        expect(live.statusCode).toBe(200); // past the 1-per-minute limit: not rate-limited
        expect(live.json()).toEqual({ status: 'ok' });
      }
      const ready = await app.inject('/readyz');
      expect(ready.statusCode).toBe(200);
      expect(ready.headers['cache-control']).toBe('no-store');
      expect(ready.json()).toMatchObject({ status: 'ready', store: { ok: true, error: null }, collector: null });
      await store.close();
      const unready = await app.inject('/readyz');
      expect(unready.statusCode).toBe(503);
      expect(unready.headers['retry-after']).toBe('5');
      expect(unready.json()).toMatchObject({ status: 'unready', error: expect.stringMatching(/^store unavailable/), store: { ok: false } });
      expect((await app.inject('/healthz')).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});
