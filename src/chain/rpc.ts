/**
 * JSON-RPC client for a Tempo node over undici's `request` (keep-alive connections, a time limit per request, a
 * cap on the response body): it parses a block-and-receipts batch with about half the CPU of viem's
 * fetch-based `getHttpRpcClient` (no WHATWG streams), and the collector is CPU-bound. On top of it: JSON-RPC batching (many calls per HTTP
 * request), a bound on HTTP requests in flight, and retries with exponential backoff and full jitter on
 * timeouts, HTTP errors (5xx…), malformed JSON and JSON-RPC errors. It only reads the `finalized` head, never
 * `latest` (docs/collector.md), and refuses any node whose `eth_chainId` is not 4217.
 */
import { redactUrl } from '../net/redact-url.js';
import { PaywatchError, shortMessage } from '../domain/errors.js';
import { quantityNumber } from './quantity.js';
import { isRetryable, withRetry } from '../net/retry.js';
import { rpcErrors, rpcRetries } from '../ops/metrics.js';
import { Agent, request } from 'undici';
import { CHAIN_ID } from '../domain/observation.js';
import type { RpcBlock, RpcReceipt } from './types.js';

/** One JSON-RPC call. */
export interface RpcCall {
  method: string;
  params: unknown[];
}

/** A JSON-RPC error answer (`{code, message}`) for one call. */
export class RpcCallError extends PaywatchError {
  constructor(
    readonly method: string,
    /** The JSON-RPC error code the node answered, when it answered one. */
    readonly rpcCode: number | null,
    message: string,
  ) {
    super(`${method} failed: ${message}${rpcCode !== null ? ` (code ${rpcCode})` : ''}`, {
      code: 'rpc_call',
      retryable: rpcCode === null || !UNSUPPORTED_CODES.has(rpcCode),
    });
  }
}

/** The node answers, but for another chain than Tempo mainnet. */
export class WrongChainError extends PaywatchError {
  constructor(
    readonly source: string,
    readonly chainId: number,
  ) {
    super(`the node at ${source} reports chain id ${chainId}, not ${CHAIN_ID} (Tempo mainnet); paywatch only collects chain ${CHAIN_ID}`, {
      code: 'wrong_chain',
    });
  }
}

/** The node could not be reached or kept failing after every retry. */
export class RpcUnavailableError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'rpc_unavailable', retryable: true });
  }
}

export interface RpcOptions {
  /** HTTP(S) URL of the node; credentials in it are sent as basic auth and never shown. */
  url: string;
  /** Most HTTP requests in flight at once (default 8). */
  concurrency?: number;
  /** Most JSON-RPC calls per HTTP request (default 40). */
  batchSize?: number;
  /** Milliseconds before one HTTP request is abandoned and retried (default 10,000). */
  timeoutMs?: number;
  /** Attempts per call before giving up with RpcUnavailableError (default 8). */
  maxAttempts?: number;
  /** First retry delay in milliseconds, doubled each attempt, with full jitter (default 200). */
  baseDelayMs?: number;
  /** Ceiling of a retry delay in milliseconds (default 10,000). */
  maxDelayMs?: number;
  /** Called on each retry, for logs. */
  onRetry?: (info: { attempt: number; delayMs: number; error: string }) => void;
}

/** Largest JSON-RPC answer accepted, bytes (a batch of full blocks with receipts; beyond is an error, retried). */
const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

/** JSON-RPC error codes that mean "this method does not exist here" (EIP-1474 -32601, -32004 unsupported). */
const UNSUPPORTED_CODES = new Set([-32601, -32004]);

/** A counting semaphore: at most `n` holders; waiters are served first in, first out. */
class Semaphore {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  constructor(n: number) {
    this.free = n;
  }
  async use<T>(fn: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((r) => this.waiting.push(r));
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

/** Parses a 0x quantity into a safe integer (./quantity.ts). @throws RpcCallError on anything else */
export function quantity(method: string, v: unknown): number {
  const n = quantityNumber(v);
  if (n === null)
    throw new RpcCallError(method, null, `expected a hex quantity of at most 2^53 - 1, got ${JSON.stringify(v)?.slice(0, 80)}`);
  return n;
}

/**
 * A Tempo JSON-RPC source. Create it with `TempoRpc.connect`, which verifies the chain id.
 * All methods retry transient failures; they throw RpcUnavailableError once `maxAttempts` is spent.
 */
export class TempoRpc {
  /** The node's URL with credentials removed (see redactUrl). */
  readonly source: string;
  private readonly agent: Agent;
  /** The node's URL without credentials (those go in `authorization`). */
  private readonly endpoint: string;
  private readonly authorization: string | null;
  private readonly gate: Semaphore;
  private readonly opts: Required<Omit<RpcOptions, 'onRetry'>> & Pick<RpcOptions, 'onRetry'>;
  private nextId = 1;
  /** False once the node said eth_getBlockReceipts does not exist; then receipts are read one by one. */
  private blockReceiptsSupported = true;

  /** @param agent connections to reuse (those of connect's probe, same node and options), else new ones */
  private constructor(opts: RpcOptions, agent?: Agent) {
    this.opts = { concurrency: 8, batchSize: 40, timeoutMs: 10_000, maxAttempts: 8, baseDelayMs: 200, maxDelayMs: 10_000, ...opts };
    this.source = redactUrl(opts.url);
    const u = new URL(opts.url);
    // Credentials in the URL are sent as basic auth (RFC 7617), as browsers and viem do, and kept out of the URL.
    this.authorization =
      u.username || u.password
        ? `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`
        : null;
    u.username = '';
    u.password = '';
    this.endpoint = u.toString();
    this.agent = agent ?? new Agent({ connections: this.opts.concurrency, maxResponseSize: MAX_RESPONSE_BYTES });
    this.gate = new Semaphore(this.opts.concurrency);
  }

  /**
   * Opens a client and checks `eth_chainId` is 4217.
   * @param opts.maxAttempts for this first call defaults to 3, so an unreachable node fails within seconds
   * @throws WrongChainError for another chain; RpcUnavailableError when the node cannot be reached
   */
  static async connect(opts: RpcOptions): Promise<TempoRpc> {
    const probe = new TempoRpc({ ...opts, maxAttempts: Math.min(opts.maxAttempts ?? 3, 3) });
    let chainId: number;
    try {
      chainId = quantity('eth_chainId', await probe.call('eth_chainId', []));
    } catch (e) {
      throw new RpcUnavailableError(`cannot reach the Tempo RPC at ${probe.source}: ${firstLine(e)}`);
    }
    if (chainId !== CHAIN_ID) throw new WrongChainError(probe.source, chainId);
    // The client proper differs from the probe only in its attempts: it keeps the probe's open connection.
    return new TempoRpc(opts, probe.agent);
  }

  /** One call, retried. @returns the raw `result` (hex quantities stay strings) */
  async call<T = unknown>(method: string, params: unknown[]): Promise<T> {
    return (await this.batch([{ method, params }]))[0] as T;
  }

  /**
   * Many calls, sent as JSON-RPC batches of at most `batchSize`, at most `concurrency` HTTP requests at once.
   * A failed HTTP request retries its whole batch; a call answered with an error is retried alone.
   * @returns results in the order of `calls`
   * @throws RpcCallError at once for a method the node does not support (code -32601/-32004);
   *   RpcUnavailableError after `maxAttempts` failed attempts of any call
   */
  async batch(calls: RpcCall[]): Promise<unknown[]> {
    const chunks: number[][] = [];
    for (let i = 0; i < calls.length; i += this.opts.batchSize) chunks.push(calls.slice(i, i + this.opts.batchSize).map((_, j) => i + j));
    const results = new Array<unknown>(calls.length);
    await Promise.all(chunks.map((idx) => this.sendWithRetry(calls, idx, results)));
    return results;
  }

  private async sendWithRetry(calls: RpcCall[], idx: number[], results: unknown[]): Promise<void> {
    // Calls answered with an error are retried alone: `pending` shrinks to them between attempts.
    let pending = idx;
    let attempts = 0;
    try {
      await withRetry(
        async (attempt) => {
          attempts = attempt;
          const failed = await this.gate.use(() => this.send(calls, pending, results));
          if (failed.length === 0) return;
          pending = failed.map((f) => f.index);
          throw failed[0].error;
        },
        {
          attempts: this.opts.maxAttempts,
          baseMs: this.opts.baseDelayMs,
          maxMs: this.opts.maxDelayMs,
          onRetry: ({ attempt, delayMs, error }) => {
            rpcErrors.inc();
            rpcRetries.inc();
            this.opts.onRetry?.({ attempt, delayMs, error: firstLine(error) });
          },
        },
      );
    } catch (e) {
      if (!isRetryable(e)) throw e;
      rpcErrors.inc();
      throw new RpcUnavailableError(`${calls[pending[0]].method} at ${this.source} failed ${attempts} times; last error: ${firstLine(e)}`);
    }
  }

  /**
   * Sends one HTTP request holding the calls `idx`; stores successful results.
   * @returns the calls answered with an error (to retry)
   * @throws on transport failure, timeout (`timeoutMs` for the whole exchange), an HTTP status outside 2xx, a
   *   body over 256 MiB, non-JSON, or an answer that is not a batch; RpcCallError for an unsupported method
   */
  private async send(calls: RpcCall[], idx: number[], results: unknown[]): Promise<{ index: number; error: RpcCallError }[]> {
    const ids = idx.map(() => this.nextId++);
    const body = idx.map((i, k) => ({ jsonrpc: '2.0' as const, id: ids[k], method: calls[i].method, params: calls[i].params }));
    const res = await request(this.endpoint, {
      method: 'POST',
      headers: this.authorization
        ? { 'content-type': 'application/json', authorization: this.authorization }
        : { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      dispatcher: this.agent,
      signal: AbortSignal.timeout(this.opts.timeoutMs),
    });
    if (res.statusCode < 200 || res.statusCode > 299) {
      await res.body.dump();
      throw new PaywatchError(`HTTP ${res.statusCode} from ${this.source}`, { code: 'rpc_http', retryable: true });
    }
    // A body that is not JSON throws here (SyntaxError), and the batch is retried.
    const data = (await res.body.json()) as unknown;
    if (!Array.isArray(data)) {
      const err = (data as { error?: { code?: number; message?: string } } | null)?.error;
      throw new RpcCallError(
        calls[idx[0]].method,
        err?.code ?? null,
        err?.message ?? 'the node did not answer the batch with a JSON array',
      );
    }
    const byId = new Map<unknown, { result?: unknown; error?: { code?: number; message?: string } }>();
    for (const r of data) if (r && typeof r === 'object') byId.set((r as { id: unknown }).id, r);
    const failed: { index: number; error: RpcCallError }[] = [];
    idx.forEach((i, k) => {
      const r = byId.get(ids[k]);
      const method = calls[i].method;
      if (!r) failed.push({ index: i, error: new RpcCallError(method, null, 'no answer for this call in the batch') });
      else if (r.error) {
        const err = new RpcCallError(method, typeof r.error.code === 'number' ? r.error.code : null, String(r.error.message ?? 'error'));
        if (!err.retryable) throw err;
        failed.push({ index: i, error: err });
      } else if (!('result' in r)) failed.push({ index: i, error: new RpcCallError(method, null, 'answer has neither result nor error') });
      else results[i] = r.result;
    });
    return failed;
  }

  /**
   * The source's finalized head (`eth_getBlockByNumber('finalized', false)`; never `latest`).
   * @returns block height and hash
   */
  async finalizedHead(): Promise<{ height: number; hash: `0x${string}` }> {
    const b = await this.call<{ number: string; hash: `0x${string}` } | null>('eth_getBlockByNumber', ['finalized', false]);
    if (!b) throw new RpcUnavailableError(`the node at ${this.source} has no finalized block`);
    return { height: quantity('eth_getBlockByNumber', b.number), hash: b.hash };
  }

  /**
   * Blocks with full transactions and their receipts for each height, fetched together in batches.
   * Receipts come from `eth_getBlockReceipts`; if the node does not support it, from one
   * `eth_getTransactionReceipt` per transaction (remembered for later calls).
   * @returns per height: the block (null when the node has none) and its receipts (null entries = no receipt)
   */
  async blocksWithReceipts(heights: number[]): Promise<{ block: RpcBlock | null; receipts: (RpcReceipt | null)[] }[]> {
    const hex = heights.map((h) => `0x${h.toString(16)}`);
    const blockCalls = hex.map((h) => ({ method: 'eth_getBlockByNumber', params: [h, true] }));
    if (this.blockReceiptsSupported) {
      try {
        const res = await this.batch([...blockCalls, ...hex.map((h) => ({ method: 'eth_getBlockReceipts', params: [h] }))]);
        return heights.map((_, i) => ({
          block: res[i] as RpcBlock | null,
          receipts: (res[heights.length + i] as (RpcReceipt | null)[] | null) ?? [],
        }));
      } catch (e) {
        if (!(e instanceof RpcCallError && e.method === 'eth_getBlockReceipts')) throw e;
        this.blockReceiptsSupported = false;
      }
    }
    const blocks = (await this.batch(blockCalls)) as (RpcBlock | null)[];
    const txHashes = blocks.flatMap((b) => (b?.transactions ?? []).map((t) => t.hash));
    const receiptCalls = txHashes.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] }));
    const receipts = (await this.batch(receiptCalls)) as (RpcReceipt | null)[];
    let k = 0;
    return blocks.map((block) => ({ block, receipts: (block?.transactions ?? []).map(() => receipts[k++] ?? null) }));
  }
}

/** First line of an error's message (viem's messages run to many lines of help text). */
export function firstLine(e: unknown): string {
  const msg = shortMessage(e);
  return msg.split('\n')[0];
}
