/**
 * The offline demo: a local anvil node in Tempo mode, real varied activity driven into it (generateActivity),
 * the collector following its finalized head, and the public API over a store, all in this process.
 * Everything it starts is stopped by `stop()`.
 */
import ipaddr from 'ipaddr.js';
import { DemoError } from '../demo/errors.js';
import { startMetricsIfAsked } from './metrics.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_KEYS, freePort, startAnvil, type AnvilNode } from '../chain/anvil.js';
import type { AppContext, LiveComponents } from '../context.js';
import { listenVerify } from './commands/verify.js';
import { launchCollector, type LaunchedCollector } from '../chain/collector/index.js';
import { listenApi } from './commands/serve.js';
import { withListeningVerifyPort } from '../http/base-urls.js';
import { loadConfig, type Config, type Flags } from '../config.js';
import type { Store } from '../store/db.js';
import { openConfiguredStore } from './open-store.js';
import { generateActivity, type GroundTruth } from '../demo/activity.js';
import { ANVIL_TOKENS, writeLocalTokenList } from '../demo/token-list.js';
import { deployPaymentToken, type PaymentToken } from '../demo/payment-token.js';
import type { PaidServices } from '../demo/paid-services/index.js';
import { checkPriceAtomic } from '../trust/payment.js';
import { shortMessage } from '../domain/errors.js';
import { TEMPO_MAINNET } from '../domain/tempo.js';
import { sleep } from '../net/backoff.js';

/** The demo agent's key (anvil's well-known test account 2, never real funds): it holds payment tokens to pay for checks. */
const DEMO_PAYER_KEY = ANVIL_KEYS[2] as `0x${string}`;
/** The trust check's payTo: an address no activity step and no other demo service pays, so its payments are the checks'. */
const DEMO_OPERATOR = '0x0000000000000000000000000000000000de0c4e';

export interface DemoOptions {
  /** Flags as given (db, port, host, logLevel…); rpcUrl and from are set by the demo. */
  flags: Flags;
  log: Logger;
  /** Progress lines for the person watching (default: nothing). */
  say?: (line: string) => void;
}

export interface RunningDemo {
  /** Base URL of the API, e.g. http://127.0.0.1:41234 */
  apiUrl: string;
  rpcUrl: string;
  /** The store location (a temporary SQLite file unless `--db` was given). */
  db: string;
  /** True when the store is a temporary one, deleted by stop(). */
  temporaryStore: boolean;
  truth: GroundTruth;
  /** Transactions on the chain once the demo is up: the activity's and the demo's own (token, MPP payments). */
  transactions: number;
  /** Example requests worth trying, one URL each. */
  urls: string[];
  /** Base URL of the trust-check listener. */
  verifyUrl: string;
  /** Example trust-check commands (shell lines): get a free key into KEY, then check a URL with it. */
  checks: string[];
  /** A shell line that pays for one check with x402 (examples/pay-check.mjs) and prints the settlement. */
  paidCheck: string;
  /** The MCP endpoint (Streamable HTTP). */
  mcpUrl: string;
  /** Stops the collector, the API and anvil, releases the store and deletes a temporary store. Idempotent. */
  stop(): Promise<void>;
}

/** Seconds between blocks once the activity is in, so the collector has a moving finalized head to follow. */
const BLOCK_SECONDS = 1;

/** Stops what the demo started, last first (each entry stops one thing). */
type Cleanups = (() => Promise<void>)[];

/**
 * Starts the whole demo and returns once the collector has caught up with the generated activity.
 * @throws Error (one line) when anvil, the store, the collector or the API cannot start; whatever had started
 *   is stopped again first
 */
export async function startDemo(opts: DemoOptions): Promise<RunningDemo> {
  const say = opts.say ?? (() => {});
  const cleanups: Cleanups = [];
  const stop = async () => {
    while (cleanups.length) await cleanups.pop()!().catch((e) => opts.log.warn({ err: shortMessage(e) }, 'demo cleanup step failed'));
  };
  try {
    const { anvil, truth } = await startChain(say, cleanups);
    const paymentToken = await deployPaymentToken(anvil.rpcUrl, ANVIL_KEYS[0], {
      name: 'Demo USD',
      symbol: 'DUSD',
      holders: [privateKeyToAccount(DEMO_PAYER_KEY).address],
      amount: 1_000_000n,
    });
    const { config, temporaryStore } = await demoConfig(opts, anvil, truth, paymentToken, say, cleanups);
    const store: Store = await openConfiguredStore(config, { readers: config.readers });
    cleanups.push(() => store.close());
    say(`store: ${store.location}${temporaryStore ? ' (temporary, deleted when the demo stops; use --db to keep one)' : ''}`);
    const stopMetrics = await startMetricsIfAsked(config, store, opts.log);
    cleanups.push(stopMetrics);
    const { collector, running } = await startCollector(config, store, opts.log, cleanups);
    const components: LiveComponents = new Map([['collector', () => collector.report()]]);
    const ctx: AppContext = { store, config, components, log: opts.log };
    const { startPaidServices } = await import('../demo/paid-services/index.js');
    const ps = await startPaidServices({ rpcUrl: anvil.rpcUrl });
    cleanups.push(() => ps.stop());
    say(`paid services: ${ps.services.map((s) => `${s.protocol} ${s.url}`).join(', ')}; directory ${ps.directoryUrl}`);
    const verify = await listenPaidVerify(ctx, opts.flags, anvil.rpcUrl, ps.facilitatorUrl, paymentToken, cleanups);
    const intel = await startDemoIntel(ctx, ps, verify, anvil.rpcUrl, say, cleanups);
    if (!loopbackOnly(config.host))
      say(`listening beyond loopback (--host ${config.host}): the trust check refuses loopback targets, the demo's own services included`);
    // The public app advertises the trust check where it really listens (manifest, explorer).
    const { app, url } = await listenApi({ ...ctx, config: withListeningVerifyPort(config, verify.port) });
    cleanups.push(() => app.close());
    const lastHeight = await followActivity(collector, running, anvil.rpcUrl, say);
    return {
      apiUrl: url,
      verifyUrl: verify.url,
      mcpUrl: `${url}/api/mcp`,
      rpcUrl: anvil.rpcUrl,
      db: store.location,
      temporaryStore,
      truth,
      transactions: truth.transactions.length + (await transactionsIn(anvil.rpcUrl, truth.lastTxHeight + 1, lastHeight)),
      ...demoLinks(url, verify, intel, truth),
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** Starts anvil in Tempo mode and drives the varied activity into it. */
async function startChain(say: (line: string) => void, cleanups: Cleanups): Promise<{ anvil: AnvilNode; truth: GroundTruth }> {
  const anvil: AnvilNode = await startAnvil();
  cleanups.push(() => anvil.stop());
  say(`anvil (Tempo mode, chain id 4217) on ${anvil.rpcUrl}`);
  say('driving activity into it: transfers, memos, MPP charges, 0x76 batches, a sponsored fee, a revert, DEX swaps, a EUR token…');
  const truth = await generateActivity(anvil.rpcUrl);
  say(`${truth.transactions.length} transactions up to block ${truth.lastTxHeight}`);
  return { anvil, truth };
}

/**
 * The demo's settings: the flags given, a temporary SQLite store unless `--db` (or PAYWATCH_DB) names one, a token
 * list of the tokens this chain has unless `--tokenlist`, a free port unless `--port`, the collector on anvil.
 */
async function demoConfig(
  opts: DemoOptions,
  anvil: AnvilNode,
  truth: GroundTruth,
  paymentToken: PaymentToken,
  say: (line: string) => void,
  cleanups: Cleanups,
): Promise<{ config: Config; temporaryStore: boolean }> {
  const dir = mkdtempSync(join(tmpdir(), 'paywatch-demo-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const temporaryStore = opts.flags.db === undefined && !process.env.PAYWATCH_DB;
  const db = temporaryStore ? `sqlite:${join(dir, 'paywatch.sqlite')}` : String(opts.flags.db ?? process.env.PAYWATCH_DB ?? '');
  // The tokens this chain has: anvil's genesis tokens, the EUR token the activity created and the trust check's
  // payment token (unless --tokenlist).
  const eur = truth.eurToken;
  const tokenList =
    opts.flags.tokenList ??
    writeLocalTokenList(dir, [
      ...ANVIL_TOKENS,
      { address: eur.address.toLowerCase(), symbol: eur.symbol, name: eur.symbol },
      { address: paymentToken.address.toLowerCase(), symbol: 'DUSD', name: paymentToken.name },
    ]);
  say(`token list: ${tokenList}`);
  const port = opts.flags.port ?? (await freePort());
  const config = loadConfig({
    ...opts.flags,
    db,
    port,
    tokenList,
    rpcUrl: anvil.rpcUrl,
    from: 0,
    pollIntervalMs: opts.flags.pollIntervalMs ?? 250,
  });
  return { config, temporaryStore };
}

/** Launches the collector over the store and runs it until the demo stops. */
async function startCollector(config: Config, store: Store, log: Logger, cleanups: Cleanups) {
  const launched: LaunchedCollector = await launchCollector(config, store, log);
  cleanups.push(() => launched.release());
  const { collector } = launched;
  const running = collector.run();
  cleanups.push(async () => {
    collector.stop();
    await running;
  });
  return { collector, running };
}

/**
 * The trust-check listener with per-call x402 payment: the demo's payment token, paid to DEMO_OPERATOR, settled
 * by the local facilitator; the agent account holds tokens to pay with (examples/pay-check.mjs).
 */
async function listenPaidVerify(
  ctx: AppContext,
  flags: Flags,
  rpcUrl: string,
  facilitatorUrl: string,
  paymentToken: PaymentToken,
  cleanups: Cleanups,
) {
  const verifyConfig = loadConfig({
    ...flags,
    db: ctx.config.db,
    port: ctx.config.port,
    tokenList: ctx.config.tokenList,
    rpcUrl,
    verifyPort: flags.verifyPort ?? (await freePort()),
    // Loopback targets only while the demo listens on loopback alone: exposed, the check would map this host's ports.
    verifyAllowLoopback: loopbackOnly(ctx.config.host) ? '1' : '0',
    x402PayTo: DEMO_OPERATOR,
    x402Asset: paymentToken.address,
    x402AssetName: paymentToken.name,
    x402AssetVersion: paymentToken.version,
    x402AssetDecimals: paymentToken.decimals,
    x402Network: TEMPO_MAINNET,
    x402FacilitatorUrl: facilitatorUrl,
  });
  const verify = await listenVerify({ ...ctx, config: verifyConfig });
  cleanups.push(() => verify.close());
  return { url: verify.url, port: verify.port, paymentToken: paymentToken.address, price: checkPriceAtomic(paymentToken.decimals) };
}

/**
 * True when `host` (the `--host` a listener binds) is a loopback name or address, so only this machine can reach
 * the listener: `localhost`, 127.0.0.0/8, `::1`. Anything else (`0.0.0.0`, `::`, a LAN or public address, another
 * name) listens beyond loopback.
 * @example loopbackOnly('127.0.0.1') // true; loopbackOnly('0.0.0.0') // false
 */
export function loopbackOnly(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  return ipaddr.isValid(h) && ipaddr.parse(h).range() === 'loopback';
}

/**
 * Mines two blocks so the finalized head (latest − 2) covers every transaction sent so far (the activity and the
 * demo's own), waits until the collector has them, then lets blocks keep coming for the collector to follow.
 * @returns the height of the last block holding a transaction sent before
 */
async function followActivity(
  collector: LaunchedCollector['collector'],
  running: Promise<unknown>,
  rpcUrl: string,
  say: (line: string) => void,
): Promise<number> {
  const last = Number.parseInt(await rpc<string>(rpcUrl, 'eth_blockNumber', []), 16);
  for (let i = 0; i < 2; i++) await rpc(rpcUrl, 'evm_mine', []);
  while ((collector.status().last_block ?? -1) < last) {
    const s = collector.status();
    if (s.state === 'error') say(`collector: ${s.last_error?.message} (retrying)`);
    await Promise.race([running, new Promise((r) => setTimeout(r, 100))]);
  }
  await rpc(rpcUrl, 'evm_setIntervalMining', [BLOCK_SECONDS]);
  return last;
}

/** The number of transactions in blocks `from`..`to` (inclusive). */
async function transactionsIn(rpcUrl: string, from: number, to: number): Promise<number> {
  let n = 0;
  for (let h = from; h <= to; h++)
    n += Number.parseInt(await rpc<string>(rpcUrl, 'eth_getBlockTransactionCountByNumber', [`0x${h.toString(16)}`]), 16);
  return n;
}

/** Example requests, trust-check commands and the paid check worth trying against the running demo. */
function demoLinks(
  url: string,
  verify: { url: string; paymentToken: string },
  intel: DemoIntel,
  truth: GroundTruth,
): Pick<RunningDemo, 'urls' | 'checks' | 'paidCheck'> {
  const mpp = truth.transactions.find((t) => t.protocol === 'mpp') ?? truth.transactions[0];
  const swap = truth.transactions.find((t) => t.exchange !== null);
  const urls = [
    `${url}/api/status`,
    `${url}/api/coverage`,
    `${url}/api/transactions`,
    `${url}/api/transactions/${mpp.hash}`,
    ...(swap ? [`${url}/api/transactions?exchange=${encodeURIComponent(swap.exchange!)}`] : []),
    `${url}/api/transactions?q=${mpp.sender}`,
    `${url}/api/metrics`,
    `${url}/api/export`,
    `${url}/api/openapi.json`,
    `${url}/api/providers`,
    `${url}/api/providers/${encodeURIComponent(intel.mppDomain)}`,
    `${url}/api/payments?service_id=${intel.mppService}`,
    `${url}/api/rankings/services`,
    `${url}/api/intelligence/changes`,
    `${url}/api/intelligence/offers?domain=${encodeURIComponent(intel.changedDomain)}`,
    `${url}/api/intelligence/status`,
  ];
  const checks = [
    `KEY=$(curl -s -X POST ${verify.url}/v1/keys | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).key')`,
    `curl -s -X POST ${verify.url}/v1/check -H "Authorization: Bearer $KEY" -H 'content-type: application/json' -d '{"url":"${intel.checkUrl}"}'`,
  ];
  const paidCheck = `node examples/pay-check.mjs ${verify.url}/v1/check ${intel.checkUrl} ${DEMO_PAYER_KEY} ${verify.paymentToken}`;
  return { urls, checks, paidCheck };
}

/** What the demo's intel step leaves for the links: the provider whose terms changed, a URL worth checking, the MPP service paid. */
interface DemoIntel {
  changedDomain: string;
  checkUrl: string;
  mppDomain: string;
  mppService: string;
}

/**
 * Lists the trust check in the paid services' directory, collects them once, THEN pays the MPP service twice with
 * the real mppx client (payTo and realm seen before the payment, so the payments are attributed memo_and_pay_to,
 * and the paid check later pay_to), collects again after a price and a payTo change so offers, changes and history
 * show real data, then keeps the intel collector running on its schedule.
 */
async function startDemoIntel(
  ctx: AppContext,
  ps: PaidServices,
  verify: { url: string; paymentToken: string; price: string },
  rpcUrl: string,
  say: (line: string) => void,
  cleanups: Cleanups,
): Promise<DemoIntel> {
  const { collectOnce } = await import('../intel/collect.js');
  const { startIntelCollector } = await import('../intel/schedule.js');
  const { providerDomain, serviceId } = await import('../intel/service-id.js');
  const { payMppCharge } = await import('../demo/pay-mpp.js');
  const { directorySources } = await import('../demo/paid-services/index.js');
  ps.listResource({
    name: 'paywatch-trust-check',
    url: `${verify.url}/v1/check`,
    method: 'POST',
    description: 'paywatch trust check (demo)',
    price: verify.price,
    payTo: DEMO_OPERATOR,
    asset: verify.paymentToken,
  });
  const sources = directorySources(ps.directoryUrl);
  // A payTo counts for payments from the second its offer was first seen on (src/payments/attribute.ts): first seen
  // in the second of the activity's blocks (all of it can fall in one second on a fast machine), the services would
  // be paid by the activity's transfers to their payTos, sent before they existed.
  await afterChainSecond(rpcUrl);
  await collectOnce(ctx.store, { sources, allowLoopback: true, log: ctx.log });
  const weather = ps.services.find((s) => s.name === 'x402-v2-weather') ?? ps.services[0];
  const search = ps.services.find((s) => s.name === 'mpp-search') ?? ps.services[ps.services.length - 1];
  // Two payers, one named client; accounts that sent nothing yet: anvil leaves an mppx payment (an expiring-nonce
  // 0x76 transaction) from an account that already sent one unmined.
  for (const [payerKey, clientId] of [
    [ANVIL_KEYS[4], 'demo-agent'],
    [ANVIL_KEYS[5], undefined],
  ] as const)
    await payMppCharge(search.url, { rpcUrl, payerKey, clientId });
  ps.setPrice(weather.name, (BigInt(ps.terms(weather.name).price) * 2n).toString());
  ps.setPayTo(search.name, privateKeyToAccount(ANVIL_KEYS[5]).address.toLowerCase());
  const second = await collectOnce(ctx.store, { sources, allowLoopback: true, log: ctx.log });
  say(
    `probed ${second.services} paid services twice; paid ${search.name} twice with the mppx client in between; ${weather.name} doubled its price and ${search.name} changed its payTo (see /api/intelligence/changes)`,
  );
  const intel = startIntelCollector(ctx, { sources, allowLoopback: true });
  cleanups.push(() => intel.stop());
  return {
    changedDomain: providerDomain(weather.url),
    checkUrl: weather.url,
    mppDomain: providerDomain(search.url),
    mppService: serviceId('GET', search.url),
  };
}

/** Longest wait of afterChainSecond, ms: a chain ahead of the clock by more is not waited for. */
const CHAIN_SECOND_WAIT_MS = 3000;

/** Waits until the wall clock is past the second of the chain's latest block (chain time follows it here). */
async function afterChainSecond(rpcUrl: string): Promise<void> {
  const head = await rpc<{ timestamp: string }>(rpcUrl, 'eth_getBlockByNumber', ['latest', false]);
  const wait = (Number(head.timestamp) + 1) * 1000 - Date.now();
  if (wait > 0) await sleep(Math.min(wait, CHAIN_SECOND_WAIT_MS));
}

async function rpc<T = unknown>(url: string, method: string, params: unknown[]): Promise<T> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const j = (await r.json()) as { result?: T; error?: { message: string } };
  if (j.error) throw new DemoError(`${method}: ${j.error.message}`);
  return j.result as T;
}
