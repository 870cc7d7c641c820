/**
 * The seeded public app the answer tests share (test/api/golden-answers.test.ts, test/mcp/twins.test.ts): a fresh
 * store of `dialect` with the deterministic synthetic chain (600 observations, seed 11) and provider intelligence
 * (6 providers × 3 services × 3 snapshots), served by the real app on a loopback port. The caller pins the clock first.
 */
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { type Flags, loadConfig } from '../../src/config.js';
import { seedStore } from '../../src/seed/chain.js';
import { seedIntel } from '../../src/seed/intel.js';
import { openStore, type Store } from '../../src/store/db.js';
import { createTestDb, type TestDialect, type TestDb } from './db.js';

export interface SeededApp {
  db: TestDb;
  store: Store;
  app: FastifyInstance;
  /** http://127.0.0.1:PORT */
  base: string;
  /** The hash of the 8th transaction of the default list (a stable, recorded transaction). */
  hash: string;
  /** Closes the app and the store and drops the database. */
  close(): Promise<void>;
}

/** Starts the seeded app; `flags` add to the config (e.g. publicUrl). */
export async function startSeededApp(dialect: TestDialect, flags: Flags = {}): Promise<SeededApp> {
  const db = await createTestDb(dialect);
  const store = await openStore(db.url);
  await seedStore(store, { count: 600, seed: 11 });
  await seedIntel(store, { providers: 6, servicesPerProvider: 3, snapshotsPerService: 3 });
  const app = await buildApp({ store, config: loadConfig({ db: db.url, ...flags }, {}), components: new Map() }, { logger: false });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const page = (await (await fetch(`${base}/api/transactions?limit=1&offset=7`)).json()) as { rows: { hash: string }[] };
  return {
    db,
    store,
    app,
    base,
    hash: page.rows[0].hash,
    close: async () => {
      await app.close();
      await store.close().catch(() => {});
      await db.drop();
    },
  };
}
