/**
 * JSON-RPC client for a Tempo node over undici's `request` (keep-alive connections, a time limit per request, a
 * cap on the response body): it parses a block-and-receipts batch with about half the CPU of viem's
 * fetch-based `getHttpRpcClient` (no WHATWG streams), and the collector is CPU-bound. On top of it: JSON-RPC batching (many calls per HTTP
 * request), a bound on HTTP requests in flight, and retries with exponential backoff and full jitter on
 * timeouts, HTTP errors (5xx…), malformed JSON and JSON-RPC errors. It adapts to the node's limits, remembered
 * per node for the whole process (NodeLimits): a "batch too large" answer halves the calls per request, then
 * single probes search back up to the node's cap (src/net/batch-size.ts), and a 429 paces every request to the
 * node (src/net/pace.ts); each request takes its calls when its turn in that pace comes, so it goes at the size
 * known then; see docs/collector.md#rpc-limits. It only reads the
 * `finalized` head, never `latest` (docs/collector.md), and refuses any node whose `eth_chainId` is not 4217.
 */
import { redactUrl } from '../net/redact-url.js';
import { PaywatchError, shortMessage } from '../domain/errors.js';
import { quantityNumber } from './quantity.js';
import { isRetryable, withRetry } from '../net/retry.js';
import { Semaphore } from '../net/semaphore.js';
import { Pace, type PaceTicket, retryAfterMs } from '../net/pace.js';
import { BatchSizeSearch } from '../net/batch-size.js';
import { rpcBatchCalls, rpcBatchTooLarge, rpcErrors, rpcRate, rpcRefused, rpcRequests, rpcRetries } from '../ops/metrics.js';
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

/** The node refused a batch for its size (see batchRefusal); the calls are sent again in smaller batches. */
export class BatchTooLargeError extends PaywatchError {
  constructor(
    readonly calls: number,
    detail: string,
  ) {
    super(`the node refused a batch of ${calls} calls: ${detail}`, { code: 'rpc_call', retryable: true });
  }
}

/** The node refused a request for its rate (HTTP 429); it is sent again at the node's pace. */
export class RateLimitedError extends PaywatchError {
  constructor(
    source: string,
    readonly retryAfterMs: number | null,
  ) {
    super(`HTTP 429 from ${source}${retryAfterMs !== null ? ` (Retry-After ${retryAfterMs} ms)` : ''}`, {
      code: 'rpc_http',
      retryable: true,
    });
  }
}

/** Default calls per HTTP request, before any "batch too large" answer (the ceiling unless `--rpc-batch-calls`). */
export const DEFAULT_BATCH_CALLS = 40;

/** The live figures of the client's limits, as /api/status (`collector.rpc`) shows them. */
export interface RpcStats {
  /** Calls per HTTP request in use (halved at a "batch too large" answer, then searched back up to the node's cap). */
  batch_calls: number;
  /** The most calls per request allowed (`--rpc-batch-calls`). */
  batch_calls_ceiling: number;
  /** HTTP requests per second the client paces itself to; null = unpaced (no 429 seen, no `--rpc-rate`). */
  rate_per_s: number | null;
  /** HTTP requests sent. */
  requests: number;
  /** Requests the node refused with HTTP 429. */
  refused: number;
  /** Batches the node refused as too large. */
  batches_too_large: number;
  /** Attempts retried after a failure (any cause). */
  retries: number;
  /** The last failure's message (URLs reduced to scheme and host) and when; null when none yet. */
  last_error: { message: string; at: string } | null;
}

/**
 * What the process has learnt about one node, shared by every client on it (the collector's, the token
 * registry's, the caught-up check's): calls per request, the pace, and the counts /api/status shows.
 */
class NodeLimits {
  /** Calls per request: halved at a "batch too large", then searched back up to the node's cap. */
  readonly batch: BatchSizeSearch;
  readonly pace: Pace;
  requests = 0;
  refused = 0;
  tooLarge = 0;
  retries = 0;
  lastError: { message: string; at: string } | null = null;
  /** Set when the batch size was cut; cleared by the warning, logged once a request at the new size succeeds. */
  settling = false;
  /** Counts at the last summary line (one a minute at most, at `info`, when anything changed). */
  summarized = { at: Date.now(), refused: 0, tooLarge: 0, retries: 0 };

  constructor(ceiling: number, rate: number | null) {
    this.batch = new BatchSizeSearch(ceiling);
    this.pace = new Pace(rate);
  }

  /** Calls per request in use. */
  get batchCalls(): number {
    return this.batch.size;
  }
}

/** The calls of one `batch` not yet sent, and its senders (TempoRpc.sendInBatches). */
interface Outbox {
  calls: RpcCall[];
  results: unknown[];
  answerIsFinal: boolean;
  /** Indexes into `calls` waiting for a request; each request takes its share when its turn comes. */
  queue: number[];
  /** Senders running. */
  senders: number;
  /** Senders that have not taken their calls yet: each will take up to the node's size when its turn comes. */
  waiting: number;
  /** Set at the first failure: the batch is rejected with it and no sender takes more calls. */
  failed: boolean;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** Limits per node (endpoint and credentials), for the life of the process. */
const NODES = new Map<string, NodeLimits>();

/**
 * A URL's endpoint without credentials, and the credentials as a basic-auth header value (RFC 7617), as browsers
 * and viem send them; null when the URL holds none.
 */
export function splitCredentials(url: string): { endpoint: string; authorization: string | null } {
  const u = new URL(url);
  const authorization =
    u.username || u.password
      ? `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`
      : null;
  u.username = '';
  u.password = '';
  return { endpoint: u.toString(), authorization };
}

/** The key of a node's limits: its endpoint and credentials. */
const nodeKey = (endpoint: string, authorization: string | null): string => `${endpoint} ${authorization ?? ''}`;

/** A request sent outside TempoRpc, paced with the node's clients: see nodeGate. */
export interface NodeGate {
  /** Waits for the request's turn in the node's pace (at once while the node is unpaced or has no client). */
  take(): Promise<PaceTicket | null>;
  /**
   * Reports the request's HTTP status: a 429 cuts the node's pace as a refusal of TempoRpc's own requests does.
   * @param retryAfter the answer's `Retry-After` header, if any
   */
  answered(ticket: PaceTicket | null, status: number, retryAfter: string | null): void;
}

/**
 * The gate of the node at `url` for requests another module sends itself (the finality step's consensus and
 * witness reads): they take their turn in the pace every TempoRpc on that node shares, are counted in its
 * requests, and a 429 they meet slows every client of the node. A node no TempoRpc has connected to yet (a
 * witness elsewhere) is not paced: its requests go at once.
 */
export function nodeGate(url: string): NodeGate {
  const { endpoint, authorization } = splitCredentials(url);
  const key = nodeKey(endpoint, authorization);
  return {
    take: async () => {
      const l = NODES.get(key);
      if (!l) return null;
      const ticket = await l.pace.take();
      l.requests++;
      rpcRequests.inc();
      return ticket;
    },
    answered: (ticket, status, retryAfter) => {
      const l = NODES.get(key);
      if (!l || ticket === null || status !== 429) return;
      l.refused++;
      rpcRefused.inc();
      rpcRate.set(l.pace.refuse(retryAfterMs(retryAfter ?? undefined), ticket));
    },
  };
}

/** Minimal logger the client reports adaptations to (pino's). */
export interface RpcLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Milliseconds between two summary lines of retries and adaptations. */
const SUMMARY_EVERY_MS = 60_000;

/**
 * Messages of a batch refused for its size, by common nodes and providers: geth ("batch too large", -32600),
 * reth and other jsonrpsee servers ("The batch request was too large", -32010; "Response is too big", -32008),
 * shared providers' "batch size too large" / "batch limit exceeded" / "too many requests in batch" (-32005).
 */
const BATCH_MESSAGE = /batch.*(too (large|big|many)|limit|exceed|size)|(too many|max(imum)?).*batch|response (is )?too (big|large)/i;

/** True when a JSON-RPC error object says the batch was too large. */
function isBatchRefusal(err: { code?: unknown; message?: unknown } | undefined | null): boolean {
  if (!err || typeof err !== 'object') return false;
  const msg = typeof err.message === 'string' ? err.message : '';
  // A batch message alone suffices (codes vary by provider); -32010 is jsonrpsee's own code for it.
  return err.code === -32010 || BATCH_MESSAGE.test(msg);
}

/** Any URL in `message` reduced to its scheme and host (src/net/redact-url.ts): keys in paths never reach logs or status. */
export function redactUrlsIn(message: string): string {
  return message.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)]+/gi, (u) => redactUrl(u));
}

export interface RpcOptions {
  /** HTTP(S) URL of the node; credentials in it are sent as basic auth and never shown. */
  url: string;
  /** Most HTTP requests in flight at once (default 8). */
  concurrency?: number;
  /**
   * Most JSON-RPC calls per HTTP request (default DEFAULT_BATCH_CALLS): the ceiling; a node that refuses a batch
   * as too large halves it, then probes search back up to the node's cap (src/net/batch-size.ts), for every
   * client on that node. The first client on a node sets it.
   */
  batchCalls?: number;
  /** HTTP requests per second to the node from the start (default none: paced only after its first 429). The first client on a node sets it. */
  rate?: number | null;
  /** Where adaptations (warn) and the summary of retries (info, once a minute) go. */
  log?: RpcLog;
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
  private readonly limits: NodeLimits;
  private readonly opts: Required<Omit<RpcOptions, 'onRetry' | 'log' | 'rate'>> & Pick<RpcOptions, 'onRetry' | 'log' | 'rate'>;
  private nextId = 1;
  /** False once the node said eth_getBlockReceipts does not exist; then receipts are read one by one. */
  private blockReceiptsSupported = true;

  /** @param agent connections to reuse (those of connect's probe, same node and options), else new ones */
  private constructor(opts: RpcOptions, agent?: Agent) {
    this.opts = {
      concurrency: 8,
      batchCalls: DEFAULT_BATCH_CALLS,
      timeoutMs: 10_000,
      maxAttempts: 8,
      baseDelayMs: 200,
      maxDelayMs: 10_000,
      ...opts,
    };
    this.source = redactUrl(opts.url);
    const { endpoint, authorization } = splitCredentials(opts.url);
    this.authorization = authorization;
    this.endpoint = endpoint;
    this.agent = agent ?? new Agent({ connections: this.opts.concurrency, maxResponseSize: MAX_RESPONSE_BYTES });
    this.gate = new Semaphore(this.opts.concurrency);
    const key = nodeKey(this.endpoint, this.authorization);
    const known = NODES.get(key);
    this.limits = known ?? new NodeLimits(this.opts.batchCalls, opts.rate ?? null);
    if (!known) NODES.set(key, this.limits);
  }

  /** Most HTTP requests this client keeps in flight. */
  get concurrency(): number {
    return this.opts.concurrency;
  }

  /** What the client has learnt of the node's limits and how often it retried (shared by every client on the node). */
  stats(): RpcStats {
    const l = this.limits;
    return {
      batch_calls: l.batchCalls,
      batch_calls_ceiling: l.batch.ceiling,
      rate_per_s: l.pace.rate,
      requests: l.requests,
      refused: l.refused,
      batches_too_large: l.tooLarge,
      retries: l.retries,
      last_error: l.lastError,
    };
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

  /**
   * One call, retried.
   * @param opts.answerIsFinal a JSON-RPC error answer is thrown at once as RpcCallError, not retried (an
   *   eth_call that reverts answers the same each time); transport failures, 429s and 5xx are still retried
   * @returns the raw `result` (hex quantities stay strings)
   */
  async call<T = unknown>(method: string, params: unknown[], opts: { answerIsFinal?: boolean } = {}): Promise<T> {
    const [result] = await this.batch([{ method, params }], opts);
    if (result instanceof RpcCallError) throw result;
    return result as T;
  }

  /**
   * Many calls, sent as JSON-RPC batches of at most the node's calls per request, at most `concurrency` HTTP
   * requests at once, each paced by the node's rate. A failed HTTP request retries its whole batch; a call
   * answered with an error is retried alone; a batch refused as too large is sent again at once at the node's
   * size (not counted as an attempt), that size halved first unless the batch was larger than it (a probe, or a
   * batch sent before the last cut). Each request takes its calls when its turn in the pace comes, at the size
   * known then; one retried after the size fell is cut to it. While the size is below the smallest one refused,
   * one batch at a time probes halfway up to it.
   * @param opts.answerIsFinal a call the node answers with a JSON-RPC error is not retried: its RpcCallError
   *   takes its place in the results (transport failures, 429s and 5xx are still retried)
   * @returns results in the order of `calls`
   * @throws RpcCallError at once for a method the node does not support (code -32601/-32004), or for any
   *   error answer with `answerIsFinal`; RpcUnavailableError after `maxAttempts` failed attempts of any call
   */
  async batch(calls: RpcCall[], opts: { answerIsFinal?: boolean } = {}): Promise<unknown[]> {
    const results = new Array<unknown>(calls.length);
    await this.sendInBatches(calls, results, opts.answerIsFinal ?? false);
    return results;
  }

  /**
   * Sends `calls` in requests sized when each may go, after its turn in the node's pace: a size found
   * while requests waited their turn (seconds, against a node that rate-limits) applies to them, and while the
   * size is searched upward one request takes a probe's worth (BatchSizeSearch.takeProbe). One sender per
   * request the queued calls make at the size now, each taking its share when its turn comes; more are started
   * when calls are left over (the size fell, or a batch refused as too large was given back).
   * @throws the first sender's failure (the others end after their request in flight)
   */
  private sendInBatches(calls: RpcCall[], results: unknown[], answerIsFinal: boolean): Promise<void> {
    if (calls.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const queue = calls.map((_, i) => i);
      const out: Outbox = { calls, results, answerIsFinal, queue, senders: 0, waiting: 0, failed: false, resolve, reject };
      this.staff(out);
    });
  }

  /** Starts senders until those still waiting to take their calls cover the queue at the node's size now. */
  private staff(out: Outbox): void {
    if (out.failed) return;
    const wanted = Math.ceil(out.queue.length / this.limits.batchCalls) - out.waiting;
    for (let i = 0; i < wanted; i++) {
      out.senders++;
      out.waiting++;
      void this.sender(out);
    }
  }

  /** Sends one request of the outbox's calls; the last sender to end settles it. */
  private async sender(out: Outbox): Promise<void> {
    try {
      await this.sendWithRetry(out);
    } catch (e) {
      if (!out.failed) {
        out.failed = true;
        out.reject(e);
      }
    } finally {
      out.senders--;
      if (out.queue.length > 0) this.staff(out);
      else if (out.senders === 0 && !out.failed) out.resolve();
    }
  }

  /**
   * One request: takes its calls from `out.queue` when its turn in the pace comes, sends them, and retries what
   * failed (a failed HTTP request retries its whole batch, a call answered with an error alone). A batch refused
   * as too large goes back to the queue (not counted as an attempt), as does one cut before a retry because the
   * node's size fell meanwhile (unless it is a probe that still exceeds the size).
   */
  private async sendWithRetry(out: Outbox): Promise<void> {
    const { calls, results, answerIsFinal } = out;
    const l = this.limits;
    // Null until taken; then calls answered with an error are retried alone: `pending` shrinks to them.
    let pending = null as number[] | null;
    // For the search's probe: the size in use when it was taken, and the probe's calls.
    let probedFrom = null as number | null;
    let probeCalls = 0;
    let attempts = 0;
    let givenBack = false as boolean;
    try {
      await withRetry(
        async (attempt) => {
          attempts = attempt;
          try {
            let failed = await this.gate.use(async () => {
              // The others took them, or one failed and the read is given up.
              if (pending === null && (out.queue.length === 0 || out.failed)) return [];
              if (pending !== null && pending.length > l.batchCalls && !(probedFrom !== null && l.batchCalls >= probedFrom)) {
                // The node's calls per request fell since these were taken (a probe then too: it would probe nothing).
                givenBack = true;
                return [];
              }
              const ticket = await l.pace.take();
              if (pending === null) {
                if (out.queue.length === 0 || out.failed) {
                  l.pace.unused(ticket);
                  return [];
                }
                const size = l.batchCalls;
                const probe = out.queue.length > size ? l.batch.takeProbe(out.queue.length) : null;
                pending = out.queue.splice(0, probe ?? size);
                if (probe !== null) [probedFrom, probeCalls] = [size, probe];
                out.waiting--;
                // Taken at a smaller size than the senders were started for: more are needed for the rest.
                this.staff(out);
              }
              try {
                return await this.send(calls, pending, results, ticket);
              } catch (e) {
                // Cut while the slot is still held, so the batch that takes it next is sized already.
                if (e instanceof BatchTooLargeError) this.shrinkBatch(e);
                throw e;
              }
            });
            if (givenBack) return;
            if (answerIsFinal) {
              // The node's error answers are the results; only calls it did not answer are retried.
              for (const f of failed) if (f.error.rpcCode !== null) results[f.index] = f.error;
              failed = failed.filter((f) => f.error.rpcCode === null);
            }
            if (failed.length === 0) return;
            pending = failed.map((f) => f.index);
            throw failed[0].error;
          } catch (e) {
            // Given back to be sent again at the node's size, not counted as a failure (below).
            if (e instanceof BatchTooLargeError && (pending?.length ?? 0) > 1) givenBack = true;
            else throw e;
          }
        },
        {
          attempts: this.opts.maxAttempts,
          baseMs: this.opts.baseDelayMs,
          maxMs: this.opts.maxDelayMs,
          onRetry: ({ attempt, delayMs, error }) => {
            rpcErrors.inc();
            rpcRetries.inc();
            l.retries++;
            this.noteError(error);
            this.opts.onRetry?.({ attempt, delayMs, error: redactUrlsIn(firstLine(error)) });
          },
        },
      );
    } catch (e) {
      if (!isRetryable(e)) throw e;
      rpcErrors.inc();
      this.noteError(e);
      const method = pending?.length ? calls[pending[0]].method : calls[0].method;
      throw new RpcUnavailableError(`${method} at ${this.source} failed ${attempts} times; last error: ${redactUrlsIn(firstLine(e))}`);
    } finally {
      // A probe answered on its size has ended already; one cut before it went, or that failed, ends here.
      if (probedFrom !== null) l.batch.endProbe(probeCalls);
      // Ended without taking any calls: it no longer counts as waiting (one that took them stopped then).
      if (pending === null) out.waiting--;
    }
    // Taken again by the senders the outbox starts when this one ends (sender).
    if (givenBack && pending !== null) out.queue.unshift(...pending);
  }

  /** Tells the batch size search of a batch of `e.calls` refused for its size (BatchSizeSearch.refused). */
  private shrinkBatch(e: BatchTooLargeError): void {
    const l = this.limits;
    l.tooLarge++;
    rpcBatchTooLarge.inc();
    this.noteError(e);
    if (l.batch.refused(e.calls)) {
      l.settling = true;
      rpcBatchCalls.set(l.batchCalls);
    }
  }

  private noteError(e: unknown): void {
    this.limits.lastError = { message: redactUrlsIn(firstLine(e)), at: new Date().toISOString() };
  }

  /**
   * After each request answered on its size (`calls` calls): the batch size search told (a rise logged at
   * `info`), the one warning once a batch went through after a cut, and the summary once a minute.
   */
  private report(calls: number): void {
    const l = this.limits;
    if (l.batch.passed(calls)) {
      rpcBatchCalls.set(l.batchCalls);
      this.opts.log?.info({ source: this.source, batch_calls: l.batchCalls }, `the node accepts ${l.batchCalls} calls per request`);
    }
    if (l.settling && calls <= l.batchCalls) {
      l.settling = false;
      this.opts.log?.warn(
        { source: this.source, batch_calls: l.batchCalls, ceiling: l.batch.ceiling },
        `the node refuses large JSON-RPC batches; sending at most ${l.batchCalls} calls per request`,
      );
    }
    const s = l.summarized;
    const now = Date.now();
    if (now - s.at < SUMMARY_EVERY_MS) return;
    if (l.refused !== s.refused || l.tooLarge !== s.tooLarge || l.retries !== s.retries)
      this.opts.log?.info(
        {
          source: this.source,
          retries: l.retries - s.retries,
          refused: l.refused - s.refused,
          batches_too_large: l.tooLarge - s.tooLarge,
          batch_calls: l.batchCalls,
          rate_per_s: l.pace.rate,
          last_error: l.lastError?.message ?? null,
        },
        'rpc limits over the last minute',
      );
    l.summarized = { at: now, refused: l.refused, tooLarge: l.tooLarge, retries: l.retries };
  }

  /**
   * Sends one HTTP request holding the calls `idx`, its turn in the pace taken (`ticket`); stores successful results.
   * @returns the calls answered with an error (to retry)
   * @throws on transport failure, timeout (`timeoutMs` for the whole exchange), an HTTP status outside 2xx, a
   *   body over 256 MiB, non-JSON, or an answer that is not a batch; RpcCallError for an unsupported method
   */
  private async send(
    calls: RpcCall[],
    idx: number[],
    results: unknown[],
    ticket: PaceTicket,
  ): Promise<{ index: number; error: RpcCallError }[]> {
    const ids = idx.map(() => this.nextId++);
    const body = idx.map((i, k) => ({ jsonrpc: '2.0' as const, id: ids[k], method: calls[i].method, params: calls[i].params }));
    const l = this.limits;
    l.requests++;
    rpcRequests.inc();
    const res = await request(this.endpoint, {
      method: 'POST',
      headers: this.authorization
        ? { 'content-type': 'application/json', authorization: this.authorization }
        : { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      dispatcher: this.agent,
      signal: AbortSignal.timeout(this.opts.timeoutMs),
    });
    if (res.statusCode === 429) {
      await res.body.dump();
      l.refused++;
      rpcRefused.inc();
      const after = retryAfterMs(res.headers['retry-after']);
      const rate = l.pace.refuse(after, ticket);
      rpcRate.set(rate);
      throw new RateLimitedError(this.source, after);
    }
    if (res.statusCode === 413 && idx.length > 1) {
      await res.body.dump();
      throw new BatchTooLargeError(idx.length, 'HTTP 413');
    }
    if (res.statusCode < 200 || res.statusCode > 299) {
      await res.body.dump();
      const after = retryAfterMs(res.headers['retry-after']);
      if (after !== null) l.pace.pause(after);
      throw new PaywatchError(`HTTP ${res.statusCode} from ${this.source}`, { code: 'rpc_http', retryable: true });
    }
    // A body that is not JSON throws here (SyntaxError), and the batch is retried.
    const data = (await res.body.json()) as unknown;
    const refusal = batchRefusal(data, idx.length);
    if (refusal) throw new BatchTooLargeError(idx.length, refusal);
    this.report(idx.length);
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

/**
 * Whether a JSON-RPC answer to a batch of `calls` calls refuses it for its size: an error object instead of an
 * array (or an array whose items are such errors) whose code and message name the batch (isBatchRefusal), or,
 * for a batch of several calls, any answer that is not an array (some providers answer a lone error without a
 * recognisable message).
 * @returns the node's words, or null when the answer is not such a refusal
 */
function batchRefusal(data: unknown, calls: number): string | null {
  if (calls < 2) return null;
  const describe = (e: { code?: unknown; message?: unknown }) => `${String(e.message ?? 'error')} (code ${String(e.code ?? 'none')})`;
  if (!Array.isArray(data)) {
    const err = (data as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    return err ? describe(err) : 'the node did not answer the batch with a JSON array';
  }
  const refused = data.find((r) => isBatchRefusal((r as { error?: { code?: unknown; message?: unknown } } | null)?.error));
  return refused ? describe((refused as { error: { code?: unknown; message?: unknown } }).error) : null;
}

/** First line of an error's message (viem's messages run to many lines of help text). */
export function firstLine(e: unknown): string {
  const msg = shortMessage(e);
  return msg.split('\n')[0];
}
