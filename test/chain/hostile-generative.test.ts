/**
 * Generative: hostile tokens and transactions on a real anvil node in Tempo mode, drawn by fast-check (fixed seed,
 * 16 draws) plus the extremes as fixed examples (a 1 MiB symbol with 600 logs; an AlphaUSD imitation with 2,000
 * logs in one transaction, sent first). Symbols of 0 B to 1 MiB, binary and invalid UTF-8, bidi overrides, imitations of listed
 * symbols, reverting and gas-burning symbol() calls; 1–600 drawn Transfer logs per transaction and the 2,000 fixed (the HostileToken fixture
 * controls symbol(); paywatch reads no name()). One real collector collects them all; then collection must have
 * reached the head with no gap and no quarantined block, every stored observation must stay under its byte cap
 * (CHAIN_DATA_LIMITS), and the list, detail and export answers and the served explorer page (real buildApp, and
 * real Chromium for the transactions page) must stay under the size caps below.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { chromium } from 'playwright-core';
import { createPublicClient, http, type Hash, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { ANVIL_KEYS, startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { Collector } from '../../src/chain/collector/collector.js';
import { CHAIN_DATA_LIMITS } from '../../src/chain/decode/limits.js';
import { TempoRpc } from '../../src/chain/rpc.js';
import { TokenRegistry } from '../../src/chain/tokens.js';
import { loadConfig } from '../../src/config.js';
import { writeLocalTokenList } from '../../src/demo/token-list.js';
import { TokenList } from '../../src/domain/token-list.js';
import { getCheckpoint, getCoverage, readQuarantined } from '../../src/store/chain/index.js';
import { openStore, type Store } from '../../src/store/db.js';
import { deployHostileToken, sprayTransfers, type HostileSymbol } from '../fixtures/hostile/hostile-token.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { finalizedHeight } from '../e2e/rpc.js';
import { finalize } from './live-payments.js';

const TO = '0x00000000000000000000000000000000000b0b01';
const MIB = 1 << 20;
const SEED = 240_024;
const RUNS = 16;

/** Size caps of the answers (bytes): what a client or a browser may be asked to take for one page. */
const CAPS = {
  /** One detail: the stored detail's cap plus the served members around it. */
  detail: CHAIN_DATA_LIMITS.detail_bytes.value + 64 * 1024,
  /** One list or export row. */
  row: 4 * 1024,
  /** The explorer's served HTML shell. */
  html: 256 * 1024,
  /** The transactions page laid out in Chromium, pixels: a page of rows, not one row per megabyte. */
  pageHeightPx: 20_000,
  pageWidthPx: 2 * 1280,
};

type Case = { symbol: HostileSymbol; logs: number };

/** Listed symbols and look-alikes (Cyrillic а, capital I for l, zero-width joiner, right-to-left override). */
const IMITATIONS = ['AlphaUSD', 'AIphaUSD', '\u0410lphaUSD', 'Alpha\u200dUSD', '\u202eDSUahplA', 'pathUSD', 'BetaUSD '];

const symbolArb: fc.Arbitrary<HostileSymbol> = fc.oneof(
  fc.uint8Array({ minLength: 0, maxLength: 200 }).map((bytes) => ({ bytes })),
  fc.string({ unit: 'binary', maxLength: 80 }).map((s) => ({ bytes: s })),
  fc.constantFrom(...IMITATIONS).map((s) => ({ bytes: s })),
  fc
    .record({ byte: fc.constantFrom('A', '\u00ff', '\u202e'), length: fc.constantFrom(0, 1, 64, 65, 4096, 100_000, MIB) })
    .map(({ byte, length }) => ({ repeat: byte, length })),
  fc.constant({ revert: true as const }),
  fc.constant({ burnGas: true as const }),
);
// Drawn sprays stay at most 600 logs (the 2,000-log extreme is a fixed example): on anvil, one account's transaction
// after its 2,000-log spray was never mined, so each case is sent from the next dev account, and the test stays short.
const logsArb = fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 600 }));

const CASES: Case[] = [
  { symbol: { bytes: 'AlphaUSD' }, logs: 2000 },
  { symbol: { repeat: 'A', length: MIB }, logs: 600 },
  ...fc.sample(fc.record({ symbol: symbolArb, logs: logsArb }), { seed: SEED, numRuns: RUNS }),
];

let anvil: AnvilNode;
let dir: string;
let listPath: string;
let db: TestDb;
let store: Store;
let app: FastifyInstance;
let head: number;
const sent: { token: string; hash: Hash; c: Case }[] = [];
const started = Date.now();

beforeAll(async () => {
  anvil = await startAnvil();
  dir = mkdtempSync(join(tmpdir(), 'paywatch-hostile-generative-'));
  listPath = writeLocalTokenList(dir);
  for (const [i, c] of CASES.entries()) {
    const key = ANVIL_KEYS[i % ANVIL_KEYS.length];
    const token = await deployHostileToken(anvil.rpcUrl, key, c.symbol);
    sent.push({ token, hash: await sprayTransfers(anvil.rpcUrl, key, token, TO, c.logs), c });
  }
  await finalize(anvil.rpcUrl);
  head = await finalizedHeight(anvil.rpcUrl);
  db = await createTestDb('sqlite');
  store = await openStore(db.url, { tokenList: TokenList.read(listPath) });
  const rpc = await TempoRpc.connect({ url: anvil.rpcUrl });
  const tokens = new TokenRegistry(createPublicClient({ transport: http(anvil.rpcUrl) }) as PublicClient);
  await new Collector({ store, rpc, tokens, log: pino({ level: 'silent' }), from: 0, batchSize: 8, pollIntervalMs: 50, once: true }).run();
  app = await buildApp({ store, config: loadConfig({ db: db.url }, {}), components: new Map() }, { logger: false });
}, 300_000);

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.drop();
  await anvil?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  console.info(`hostile-generative: ${CASES.length} cases, wall time ${((Date.now() - started) / 1000).toFixed(1)} s`);
});

describe(`${CASES.length} hostile transactions (seed ${SEED})`, () => {
  it('collection reaches the head: checkpoint at the head, one coverage interval, nothing quarantined, every transaction stored', async () => {
    expect((await getCheckpoint(store))?.height).toBe(head);
    expect(await getCoverage(store)).toEqual([{ first: 0, last: head }]);
    expect(await readQuarantined(store)).toEqual([]);
    const stored = new Set((await store.db.selectFrom('observations').select('hash').execute()).map((r) => r.hash));
    for (const s of sent) expect(stored.has(s.hash.toLowerCase()), JSON.stringify(s.c).slice(0, 120)).toBe(true);
  });

  it('every stored observation stays under its byte caps (observation_bytes in all, detail_bytes for its detail)', async () => {
    const rows = await store.db.selectFrom('observations').selectAll().execute();
    const details = new Map(
      (await store.db.selectFrom('observation_details').select(['seq', 'detail']).execute()).map((d) => [Number(d.seq), d.detail]),
    );
    for (const row of rows) {
      const detail = details.get(Number(row.seq)) ?? '';
      const bytes = Object.values(row).reduce<number>((n, v) => n + (v == null ? 0 : Buffer.byteLength(String(v))), 0);
      expect(Buffer.byteLength(detail)).toBeLessThanOrEqual(CHAIN_DATA_LIMITS.detail_bytes.value);
      expect(bytes + Buffer.byteLength(detail)).toBeLessThanOrEqual(CHAIN_DATA_LIMITS.observation_bytes.value);
      expect(Buffer.byteLength(row.asset ?? '')).toBeLessThanOrEqual(CHAIN_DATA_LIMITS.symbol_bytes.value);
    }
  });

  it('never lets a hostile token be listed: asset_listed false on every one', async () => {
    for (const s of sent) {
      const d = (await app.inject(`/api/transactions/${s.hash}`)).json();
      expect(d.asset_listed, JSON.stringify(s.c).slice(0, 120)).toBe(false);
    }
  });

  it('list, detail and export answers stay under their size caps', async () => {
    const list = await app.inject('/api/transactions?limit=100');
    expect(list.statusCode).toBe(200);
    const n = list.json().rows.length;
    expect(n).toBeGreaterThanOrEqual(Math.min(100, CASES.length));
    expect(list.rawPayload.length).toBeLessThanOrEqual(n * CAPS.row);
    for (const s of sent) {
      const d = await app.inject(`/api/transactions/${s.hash}`);
      expect(d.statusCode).toBe(200);
      expect(d.rawPayload.length).toBeLessThanOrEqual(CAPS.detail);
    }
    const exp = await app.inject('/api/export');
    expect(exp.statusCode).toBe(200);
    const lines = exp.body.trim().split('\n').length;
    expect(exp.rawPayload.length).toBeLessThanOrEqual(lines * CAPS.row);
  });

  it('the served explorer page stays under its size caps, in Chromium too', async () => {
    const html = await app.inject('/transactions');
    expect(html.statusCode).toBe(200);
    expect(html.rawPayload.length).toBeLessThanOrEqual(CAPS.html);
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const profile = mkdtempSync(join(tmpdir(), 'paywatch-chromium-'));
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
      headless: true,
      viewport: { width: 1280, height: 900 },
    });
    try {
      const page = await browser.newPage();
      await page.goto(`${url}/transactions`);
      await page.waitForLoadState('networkidle');
      await page.waitForFunction(() => !document.body.innerText.includes('Loading'), undefined, { timeout: 30_000 });
      const size = await page.evaluate(() => ({ h: document.documentElement.scrollHeight, w: document.documentElement.scrollWidth }));
      expect(size.h).toBeLessThanOrEqual(CAPS.pageHeightPx);
      expect(size.w).toBeLessThanOrEqual(CAPS.pageWidthPx);
    } finally {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    }
  }, 120_000);
});
