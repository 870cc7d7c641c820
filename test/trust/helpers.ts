/**
 * Shared set-up for the trust-check tests: a store, the verify app listening on loopback, seeding of provider
 * history (through the intel store's own write functions) and of chain observations (through the chain store).
 */
import type { AddressInfo } from 'node:net';
import { request } from 'node:http';
import { openStore, type Store } from '../../src/store/db.js';
import { loadConfig, type Flags } from '../../src/config.js';
import { buildVerifyApp, type BuildVerifyAppOptions } from '../../src/trust/app.js';
import type { FastifyInstance } from 'fastify';
import { createTestDb, type TestDb, type TestDialect } from '../helpers/db.js';
import { recordSnapshot, upsertService } from '../../src/store/intel/index.js';
import { providerDomain, serviceId } from '../../src/intel/service-id.js';
import { uuidv7 } from '../../src/intel/probe/snapshot-id.js';
import { parseChallenge } from '../../src/intel/challenge/index.js';
import { safeFetch } from '../../src/net/safe-fetch.js';
import type { Offer } from '../../src/domain/intel.js';
import { writeBlocks } from '../../src/store/chain/index.js';
import type { Execution, Observation } from '../../src/domain/observation.js';

export interface VerifyHarness {
  store: Store;
  db: TestDb;
  app: FastifyInstance;
  /** http://127.0.0.1:PORT */
  url: string;
  close(): Promise<void>;
}

/** Opens a fresh store and starts the verify app on a free loopback port. */
export async function startVerify(dialect: TestDialect, flags: Flags = {}, opts: BuildVerifyAppOptions = {}): Promise<VerifyHarness> {
  const db = await createTestDb(dialect);
  const store = await openStore(db.url);
  const config = loadConfig({ db: db.url, logLevel: 'silent', verifyAllowLoopback: '1', verifyTimeoutMs: 5000, ...flags }, {});
  const app = await buildVerifyApp({ store, config, components: new Map() }, { logger: false, ...opts });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  return {
    store,
    db,
    app,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await app.close();
      await store.close();
      await db.drop();
    },
  };
}

/** POSTs JSON to the verify app. */
export async function post(
  base: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: any }> {
  const r = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await r.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: r.status, headers: r.headers, json };
}

/**
 * POSTs JSON to the verify app from source address `from` (127.0.0.1, 127.0.0.2, …: every 127/8 address reaches
 * loopback), so tests can be several clients. node:http binds the local address it is given (undici's fetch did not).
 */
export function postFrom(
  base: string,
  from: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; retryAfter: string | null; json: any }> {
  const text = JSON.stringify(body);
  const target = new URL(`${base}${path}`);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        localAddress: from,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const retry = res.headers['retry-after'];
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: typeof retry === 'string' ? retry : null,
            json: JSON.parse(Buffer.concat(chunks).toString()),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** The offers a URL advertises now (an unpaid GET, parsed by the intel parser). */
export async function liveOffers(url: string): Promise<Offer[]> {
  const r = await safeFetch(url, { allowLoopback: true });
  return parseChallenge({ status: r.status, headers: r.headers, body: r.body }, { resourceUrl: url }).offers;
}

/**
 * Lists `url` in the intel store as first seen `daysAgo` days ago, with `checks` dated checks that all found
 * `offers` (a real history, written by the intel store's own functions).
 */
export async function seedHistory(store: Store, url: string, offers: Offer[], daysAgo = 30, checks = 3, source = 'bazaar'): Promise<void> {
  const sid = serviceId('GET', url);
  const domain = providerDomain(url);
  const t0 = Date.now() - daysAgo * 86_400_000;
  await upsertService(store, {
    service_id: sid,
    domain,
    method: 'GET',
    url,
    tool: null,
    description: 'seeded',
    source,
    seen_at: new Date(t0),
  });
  for (let i = 0; i < checks; i++) {
    const t = t0 + i * 3_600_000;
    await recordSnapshot(
      store,
      {
        snapshot_id: uuidv7(t),
        service_id: sid,
        checked_at: new Date(t).toISOString(),
        http_status: 402,
        latency_ms: 5,
        outcome: 'payment_required',
        error: null,
        evidence_hash: null,
        offers,
      },
      domain,
      null,
    );
  }
}

/** How seedPayment's transaction pays: its token, whether `to` is the transaction's recipient, its execution. */
export interface SeedPaymentOptions {
  /** Token contract (default pathUSD). */
  token?: string;
  /** true: `to` is the observation's primary recipient; false (default): only a leg pays it, the recipient is the token. */
  direct?: boolean;
  execution?: Execution;
  /** Amount in tokens, decimal (default 0.01; 6 decimals). */
  amount?: string;
}

/** One payment of `seedPayments`: `from` pays `to` in block `height` at `time` (UTC Unix seconds). */
export interface SeedPaymentSpec extends SeedPaymentOptions {
  from: string;
  to: string;
  height: number;
  time: number;
}

/**
 * Writes one finalized block with one TIP-20 transfer of 0.01 tokens (or `opts.amount`) from `from` (its payer) to
 * `to` (successful by default).
 */
export async function seedPayment(
  store: Store,
  from: string,
  to: string,
  height: number,
  time: number,
  opts: SeedPaymentOptions = {},
): Promise<void> {
  await seedPayments(store, [{ ...opts, from, to, height, time }]);
}

/** Writes `payments` (heights rising) in one write, one block each, as seedPayment does; the last block is the checkpoint. */
export async function seedPayments(store: Store, payments: readonly SeedPaymentSpec[]): Promise<void> {
  const blocks = payments.map((p) => ({ height: p.height, hash: txHash(p.height), time: p.time, observations: [paymentObservation(p)] }));
  const last = blocks[blocks.length - 1];
  if (last) await writeBlocks(store, blocks, { height: last.height, hash: last.hash });
}

const txHash = (height: number) => `0x${height.toString(16).padStart(64, 'a')}` as `0x${string}`;

/** The observation of one seeded payment (its hash derives from its height). */
function paymentObservation({ from, to, height, time, ...opts }: SeedPaymentSpec): Observation {
  const hash = txHash(height);
  const token = opts.token ?? '0x20c0000000000000000000000000000000000000';
  const amount = opts.amount ?? '0.01';
  const atomic = String(Math.round(Number(amount) * 1e6));
  const obs: Observation = {
    hash,
    time,
    height,
    tx_index: 0,
    chain_id: 4217,
    sender: from,
    // By default the payTo appears only as a leg's `to` (the transaction's `to` is the token contract), as for a real TIP-20 transfer.
    recipient: opts.direct ? to : token,
    asset: 'pathUSD',
    asset_contract: token,
    amount,
    nominal_parts: [{ asset_contract: token, amount }],
    fee: '0.001',
    exchange: null,
    protocol: 'x402',
    category: 'transfer',
    execution: opts.execution ?? 'success',
    decode: 'ok',
    integrity: { score: 0, maximum: 5, version: '1', scope: 'test', stages: [] },
    detail: {
      transaction: null,
      receipt: null,
      evidence: null,
      legs: [{ from, to, asset: 'pathUSD', asset_contract: token, amount, amount_atomic: atomic, log_index: 0 }],
      payer: from,
      calls: null,
      forensics: null,
      unknown: null,
    },
  };
  return obs;
}

/** Reason codes of an answer, by severity. */
export function codes(answer: { reasons: { code: string; severity: string }[] }, severity?: string): string[] {
  return answer.reasons.filter((r) => !severity || r.severity === severity).map((r) => r.code);
}
