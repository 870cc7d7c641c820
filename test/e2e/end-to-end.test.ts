/**
 * The main job, end to end, on SQLite and PostgreSQL: a real anvil node in Tempo mode, real varied activity
 * (generateActivity, which also returns the ground truth), the real `paywatch collect --once` process, then the
 * real API (buildApp + inject) checked against the ground truth on every chain endpoint.
 */
import { parse } from 'csv-parse/sync';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { loadConfig } from '../../src/config.js';
import { generateActivity, type ExpectedObservation, type GroundTruth } from '../../src/demo/activity.js';
import { sumDecimals } from '../../src/domain/money.js';
import { openStore, type Store } from '../../src/store/db.js';
import { createTestDb, DIALECTS, type TestDb } from '../helpers/db.js';
import { runCli } from './cli.js';
import { localTokenList } from '../../src/demo/token-list.js';
import { finalizedHeight } from './rpc.js';

let anvil: AnvilNode;
let truth: GroundTruth;
let head: number;

beforeAll(async () => {
  anvil = await startAnvil();
  truth = await generateActivity(anvil.rpcUrl);
  head = await finalizedHeight(anvil.rpcUrl);
}, 180_000);

afterAll(async () => {
  await anvil?.stop();
});

/** The members every endpoint must agree on with the ground truth. */
const MEMBERS = [
  'sender',
  'recipient',
  'asset',
  'asset_contract',
  'amount',
  'nominal',
  'fee',
  'execution',
  'exchange',
  'protocol',
] as const;
const expected = (t: ExpectedObservation) => Object.fromEntries(MEMBERS.map((m) => [m, t[m]]));
const picked = (row: Record<string, unknown>) => Object.fromEntries(MEMBERS.map((m) => [m, row[m]]));

describe.each(DIALECTS)('collect --once, then the API, on %s', (dialect) => {
  let db: TestDb;
  let store: Store;
  let app: FastifyInstance;
  const get = async (url: string) => {
    const r = await app.inject({ method: 'GET', url });
    return {
      status: r.statusCode,
      body: r.headers['content-type']?.toString().startsWith('application/json') ? r.json() : r.body,
      headers: r.headers,
    };
  };

  beforeAll(async () => {
    db = await createTestDb(dialect);
    const r = await runCli(['collect', '--once', '--db', db.url, '--rpc', anvil.rpcUrl, '--from', '0']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // The API follows the local chain's token list, where every genesis token is listed (the truth's nominal).
    store = await openStore(db.url, { tokenList: localTokenList() });
    app = await buildApp({ store, config: loadConfig({ db: db.url, rpcUrl: anvil.rpcUrl }, {}), components: new Map() }, { logger: false });
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.drop();
  });

  it('stores exactly the generated transactions, with coverage from 0 to the finalized head', async () => {
    const status = await get('/api/status');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      chain_id: 4217,
      total_transactions: truth.transactions.length,
      independent_consensus_verified: false,
    });
    expect(status.body.checkpoint).toMatchObject({ height: head });
    expect(status.body.collector).toMatchObject({ state: 'stopped', last_block: head, finalized_head: head });
    const coverage = await get('/api/coverage');
    expect(coverage.body.intervals).toEqual([{ first: 0, last: head, blocks: head + 1 }]);
  });

  it('serves every generated transaction in detail with the ground truth and integrity score 2', async () => {
    for (const t of truth.transactions) {
      const r = await get(`/api/transactions/${t.hash}`);
      expect(r.status, t.label).toBe(200);
      expect(picked(r.body), t.label).toEqual(expected(t));
      expect(r.body.height, t.label).toBe(t.height);
      expect(r.body.integrity.score, t.label).toBe(2);
      expect(
        r.body.integrity.stages.map((s: { status: string }) => s.status),
        t.label,
      ).toEqual(['pass', 'pass']);
    }
  });

  it('lists every generated transaction (found by q=hash) with the ground truth and integrity score 2', async () => {
    for (const t of truth.transactions) {
      const r = await get(`/api/transactions?q=${t.hash}`);
      expect(r.status, t.label).toBe(200);
      expect(r.body.rows, t.label).toHaveLength(1);
      expect(picked(r.body.rows[0]), t.label).toEqual(expected(t));
      expect(r.body.rows[0].integrity.score, t.label).toBe(2);
    }
  });

  it('sums nominal and fees in metrics exactly as the ground truth does', async () => {
    const r = await get('/api/metrics');
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(truth.transactions.length);
    expect(r.body.analyzed).toBe(truth.transactions.length);
    expect(r.body.truncated).toBe(false);
    expect(r.body.nominal).toBe(sumDecimals(truth.transactions.map((t) => t.nominal)));
    expect(r.body.fees).toBe(sumDecimals(truth.transactions.map((t) => t.fee)));
    const known = truth.transactions.filter((t) => t.execution !== 'unknown');
    expect(r.body.rate).toBe(known.filter((t) => t.execution === 'success').length / known.length);
  });

  it('pages through the whole set with a fixed until, returning each hash exactly once', async () => {
    const all = await get('/api/transactions?limit=100');
    const until = Math.max(...all.body.rows.map((r: { time: number }) => r.time)) + 1;
    const seen: string[] = [];
    for (let offset = 0; ; offset += 3) {
      const r = await get(`/api/transactions?limit=3&offset=${offset}&until=${until}`);
      expect(r.status).toBe(200);
      if (r.body.rows.length === 0) break;
      seen.push(...r.body.rows.map((x: { hash: string }) => x.hash));
    }
    expect(seen).toHaveLength(truth.transactions.length);
    expect(new Set(seen)).toEqual(new Set(truth.transactions.map((t) => t.hash)));
  });

  it('exports CSV that parses and matches the list, row for row', async () => {
    const r = await get('/api/export');
    expect(r.status).toBe(200);
    expect(String(r.headers['content-type'])).toMatch(/^text\/csv/);
    const records = parse(r.body as string, { columns: true }) as Record<string, string>[];
    const list = (await get('/api/transactions?limit=100')).body.rows as Record<string, unknown>[];
    expect(records.map((x) => x.hash)).toEqual(list.map((x) => x.hash));
    const cell = (v: unknown) => (v === null ? '' : String(v));
    records.forEach((rec, i) => {
      for (const m of MEMBERS) expect(rec[m], `${rec.hash} ${m}`).toBe(cell(list[i][m]));
      expect(rec.integrity_score).toBe('2');
    });
    const byHash = new Map(truth.transactions.map((t) => [t.hash, t]));
    for (const rec of records)
      for (const m of MEMBERS) expect(rec[m], `${rec.hash} ${m}`).toBe(cell(byHash.get(rec.hash as `0x${string}`)![m]));
  });
});
