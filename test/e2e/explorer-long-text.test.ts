/**
 * Long outside text in the explorer, in a real browser (Debian's chromium driven by playwright-core): a provider
 * whose service has a 200 KB description without a space (stored straight into the store, as rows stored before
 * the reader's cap were: the explorer must hold on its own) and a 3,000-character path in its URL. The provider
 * page does not grow wider than the window, wide or phone-width, and the description is isolated in a <bdi>.
 * Needs the built explorer (dist/web, `npm run build`).
 */
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config.js';
import { providerDomain, serviceId } from '../../src/intel/service-id.js';
import { openStore, type Store } from '../../src/store/db.js';
import { finishCollectRun, startCollectRun, upsertService } from '../../src/store/intel/index.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

const CHROMIUM = '/usr/bin/chromium';
const URL_ = `https://long-text.example/${'p'.repeat(3000)}`;
const DESCRIPTION = `\u202e${'x'.repeat(200 * 1024)}`;

let db: TestDb;
let store: Store;
let app: FastifyInstance;
let base: string;
let browser: Browser;

beforeAll(async () => {
  db = await createTestDb('sqlite');
  store = await openStore(db.url);
  const run = await startCollectRun(store);
  await upsertService(store, {
    service_id: serviceId('GET', URL_),
    domain: providerDomain(URL_),
    method: 'GET',
    url: URL_,
    tool: null,
    description: DESCRIPTION,
    source: 'test',
    seen_at: new Date(),
  });
  await finishCollectRun(store, run, { services: 1, snapshots: 0, changes: 0, error: null });
  app = await buildApp({ store, config: loadConfig({ db: db.url }, {}), components: new Map() }, { logger: false });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'], headless: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await store?.close();
  await db?.drop();
});

it.each([
  [1280, 900],
  [375, 700],
])(
  'a 200 KB description and a 3,000-character URL do not widen the provider page (%i px wide)',
  async (width, height) => {
    const page = await browser.newPage({ viewport: { width, height } });
    try {
      await page.goto(`${base}/providers/${encodeURIComponent(providerDomain(URL_))}`);
      await page.waitForSelector('.description bdi', { timeout: 30_000 });
      const { scroll, client, text } = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
        text: document.querySelector('.description bdi')?.textContent?.length ?? 0,
      }));
      expect(text).toBe(DESCRIPTION.length);
      expect(scroll).toBeLessThanOrEqual(client + 2);
    } finally {
      await page.close();
    }
  },
  120_000,
);
