/**
 * Hostile token metadata and oversized transactions, end to end on SQLite and PostgreSQL: on a real anvil node in
 * Tempo mode, contracts whose symbol() answers 1 MiB (and one transaction emitting 600 Transfer logs of it),
 * 100,000 bytes, a right-to-left override, bytes that are not UTF-8, a revert, or a loop that burns all gas.
 * The real `paywatch collect --once` must pass them all (exit 0, nothing on stderr), store each observation under
 * its byte cap, and the API (real buildApp) must serve each as what it is: `asset` null, `asset_contract` kept,
 * never listed, and a forensics note saying why.
 */
import { readStoredDetails } from '../../src/store/chain/stored-details.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createPublicClient, http, toHex, type Hash } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { ANVIL_KEYS, startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { CHAIN_DATA_LIMITS } from '../../src/chain/decode/limits.js';
import { loadConfig } from '../../src/config.js';
import { writeLocalTokenList } from '../../src/demo/token-list.js';
import { TokenList } from '../../src/domain/token-list.js';
import { openStore, type Store } from '../../src/store/db.js';
import { createTestDb, DIALECTS, type TestDb } from '../helpers/db.js';
import { runCli } from '../e2e/cli.js';
import { deployHostileToken, sprayTransfers, type HostileSymbol } from '../fixtures/hostile/hostile-token.js';
import { finalize } from './live-payments.js';

const KEY = ANVIL_KEYS[3];
const TO = '0x00000000000000000000000000000000000b0b00';
const MIB = 1 << 20;

/** The cases: how symbol() behaves, how many Transfer logs the transaction emits, and the note expected. */
const CASES: Record<string, { symbol: HostileSymbol; logs: number; kind: string; prefix?: string }> = {
  'a 1 MiB symbol, 600 Transfer logs in one transaction': { symbol: { repeat: 'A', length: MIB }, logs: 600, kind: 'metadata_call_failed' },
  'a 100,000-byte symbol': { symbol: { repeat: 'B', length: 100_000 }, logs: 1, kind: 'oversized_metadata', prefix: 'B'.repeat(32) },
  'a right-to-left override imitating AlphaUSD': {
    symbol: { bytes: '\u202eDSUahplA' },
    logs: 1,
    kind: 'bidi_override',
    prefix: '\\u202eDSUahplA',
  },
  'a symbol that is not UTF-8': {
    symbol: { bytes: new Uint8Array([0x41, 0xff, 0xfe, 0x42]) },
    logs: 1,
    kind: 'invalid_metadata',
    prefix: 'A\\xff\\xfeB',
  },
  'a symbol() that reverts': { symbol: { revert: true }, logs: 1, kind: 'metadata_call_failed' },
  'a symbol() that burns all its gas': { symbol: { burnGas: true }, logs: 1, kind: 'metadata_call_failed' },
};

let anvil: AnvilNode;
let dir: string;
let listPath: string;
const sent = new Map<string, { token: string; hash: Hash }>();

beforeAll(async () => {
  anvil = await startAnvil();
  dir = mkdtempSync(join(tmpdir(), 'paywatch-hostile-metadata-'));
  listPath = writeLocalTokenList(dir);
  for (const [name, c] of Object.entries(CASES)) {
    const token = await deployHostileToken(anvil.rpcUrl, KEY, c.symbol);
    sent.set(name, { token, hash: await sprayTransfers(anvil.rpcUrl, KEY, token, TO, c.logs) });
  }
  await finalize(anvil.rpcUrl);
}, 180_000);

afterAll(async () => {
  await anvil?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('the 1 MiB token really answers 1 MiB when a call has the gas for it (a node default), and nothing within the metadata gas cap', async () => {
  const c = createPublicClient({ transport: http(anvil.rpcUrl) });
  const { token } = sent.get('a 1 MiB symbol, 600 Transfer logs in one transaction')!;
  const call = (gas: number) =>
    c.request({ method: 'eth_call', params: [{ to: token as `0x${string}`, data: '0x95d89b41', gas: toHex(gas) }, 'latest'] });
  const answer = await call(30_000_000);
  expect(BigInt(`0x${answer.slice(66, 130)}`)).toBe(BigInt(MIB));
  await expect(call(CHAIN_DATA_LIMITS.metadata_gas.value)).rejects.toThrow(/OutOfGas|out of gas/i);
});

describe.each(DIALECTS)('collect --once past hostile tokens, on %s', (dialect) => {
  let db: TestDb;
  let store: Store;
  let app: FastifyInstance;
  let collected: { code: number | null; stderr: string };
  const get = async (url: string) => {
    const r = await app.inject({ method: 'GET', url });
    return { status: r.statusCode, body: r.json() };
  };

  beforeAll(async () => {
    db = await createTestDb(dialect);
    collected = await runCli(['collect', '--once', '--db', db.url, '--rpc', anvil.rpcUrl, '--from', '0', '--tokenlist', listPath]);
    store = await openStore(db.url, { tokenList: TokenList.read(listPath) });
    app = await buildApp({ store, config: loadConfig({ db: db.url }, {}), components: new Map() }, { logger: false });
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.drop();
  });

  it('collects every block: exit 0, nothing on stderr', () => {
    expect(collected.stderr).toBe('');
    expect(collected.code).toBe(0);
  });

  it.each(Object.keys(CASES))('%s: asset null, asset_contract kept, unlisted, with a note saying why', async (name) => {
    const { token, hash } = sent.get(name)!;
    const c = CASES[name];
    const { status, body: d } = await get(`/api/transactions/${hash}`);
    expect(status).toBe(200);
    expect(d).toMatchObject({ asset: null, asset_contract: token, asset_listed: false, nominal: null, execution: 'success' });
    const note = d.forensics.find((f: { kind: string }) => f.kind === c.kind);
    expect(note).toMatchObject({ asset_contract: token, member: 'symbol' });
    if (c.prefix !== undefined) expect(note.prefix).toBe(c.prefix);
    for (const leg of d.legs ?? []) expect(leg).toMatchObject({ asset: null, asset_contract: token, asset_listed: false });
  });

  it('stores the 600-log transaction reduced and under its byte cap: the legs cap named in decode and forensics', async () => {
    const { hash } = sent.get('a 1 MiB symbol, 600 Transfer logs in one transaction')!;
    const row = await store.db.selectFrom('observations').selectAll().where('hash', '=', hash).executeTakeFirstOrThrow();
    const [detail] = await readStoredDetails(
      store.db,
      await store.db.selectFrom('observation_details').selectAll().where('seq', '=', row.seq).execute(),
    );
    if (typeof detail !== 'string') throw new Error(`detail of ${hash} unreadable: ${String(detail)}`);
    const bytes =
      Object.values(row).reduce<number>((n, v) => n + (v == null ? 0 : Buffer.byteLength(String(v))), 0) + Buffer.byteLength(detail);
    expect(bytes).toBeLessThan(8192);
    expect(Buffer.byteLength(detail)).toBeLessThanOrEqual(CHAIN_DATA_LIMITS.detail_bytes.value);
    expect(row.decode).toMatch(/^partial: 600 legs exceed the cap of 256 per transaction/);
    const d = (await get(`/api/transactions/${hash}`)).body;
    expect(d.legs).toBeNull();
    expect(d.forensics[0]).toMatchObject({ kind: 'cap_exceeded', cap: 'legs_per_transaction', limit: 256, count: 600 });
    expect(d.amount).toBe('0.000001');
  });

  it('never lets a refused symbol name a listed token: asset=AlphaUSD and q=AlphaUSD stay on the listed contract', async () => {
    const { token } = sent.get('a right-to-left override imitating AlphaUSD')!;
    for (const url of ['/api/transactions?asset=AlphaUSD&limit=100', '/api/transactions?q=AlphaUSD&limit=100'])
      expect((await get(url)).body.rows.some((r: { asset_contract: string }) => r.asset_contract === token)).toBe(false);
    const byContract = (await get(`/api/transactions?asset=${token}`)).body.rows;
    expect(byContract.map((r: { asset: unknown }) => r.asset)).toEqual([null]);
  });
});
