/**
 * A per-client budget of concurrent expensive requests (metrics, exports, filtered lists): one address may have
 * at most `max` of them in flight; beyond, 429 with Retry-After. The public rate limit counts requests per minute,
 * which says nothing about how much work is in flight: a client inside that limit could keep every reader busy
 * with distinct metrics queries, so the budget bounds its share of the heavy work instead. Clients are grouped by
 * ./client-key.ts (IPv6 by /64).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LimitExceeded, type PaywatchError } from '../domain/errors.js';
import { clientKey } from './client-key.js';
import { LIMITS } from './index.js';

/** How a budget groups requests and what it answers beyond its limit. */
export interface BudgetOptions {
  /** The group a request counts in (default: its client, clientKey(req.ip)); a constant key makes a global cap. */
  key?: (req: FastifyRequest) => string;
  /** The error beyond the limit (default: 429 naming the per-client limit, Retry-After 1). */
  refuse?: (max: number) => PaywatchError;
}

const RETRY_AFTER_S = LIMITS.heavyInFlight.answer.retryAfter;

const perClientRefusal = (max: number) =>
  new LimitExceeded(
    `too many expensive requests at once: at most ${max} metrics, export or filtered-list requests run at once per client; retry after ${RETRY_AFTER_S} s`,
    { retryAfterSeconds: RETRY_AFTER_S },
  );

/**
 * The budget for one app. Use `hook` as a route's `preHandler` (after validation, so a route can decide from the
 * parsed query whether the request is expensive).
 * @example
 * const budget = new HeavyBudget(2);
 * app.get('/api/metrics', { preHandler: budget.hook() }, handler);
 * // a global cap instead: new HeavyBudget(32, { key: () => 'all', refuse: (n) => new Unavailable(`…${n}…`, { retryAfterSeconds: 1 }) })
 */
export class HeavyBudget {
  private readonly inFlight = new Map<string, number>();
  private readonly keyOf: (req: FastifyRequest) => string;
  private readonly refuse: (max: number) => PaywatchError;

  /** @param max expensive requests in flight per group at most (≥ 1) */
  constructor(
    readonly max: number,
    opts: BudgetOptions = {},
  ) {
    this.keyOf = opts.key ?? ((req) => clientKey(req.ip));
    this.refuse = opts.refuse ?? perClientRefusal;
  }

  /**
   * A preHandler taking one unit of the client's budget until the answer is sent or the connection closes.
   * @param isHeavy decides from the request whether it is expensive (default: always)
   * @throws the `refuse` error (default 429, Retry-After 1) when the group has `max` requests in flight already
   */
  hook(isHeavy: (req: FastifyRequest) => boolean = () => true) {
    // Callback style: an async hook costs a promise and a microtask turn on every request.
    return (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void => {
      if (!isHeavy(req)) {
        done();
        return;
      }
      let release: () => void;
      try {
        release = this.acquire(req);
      } catch (e) {
        done(e as Error);
        return;
      }
      // 'close' fires when the answer is done and when the client goes away first.
      reply.raw.once('close', release);
      done();
    };
  }

  /**
   * Takes one unit of `req`'s group budget for work that ends before the answer does (an MCP tool call inside one
   * POST, src/mcp/jsonrpc.ts): the caller releases it with the function returned (idempotent).
   * @throws the `refuse` error (default 429, Retry-After 1) when the group has `max` units in flight already
   */
  acquire(req: FastifyRequest): () => void {
    const key = this.keyOf(req);
    const n = this.inFlight.get(key) ?? 0;
    if (n >= this.max) throw this.refuse(this.max);
    this.inFlight.set(key, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.inFlight.get(key) ?? 1) - 1;
      if (left > 0) this.inFlight.set(key, left);
      else this.inFlight.delete(key);
    };
  }

  /** Requests in flight in group `key` (tests; a client's group is clientKey(ip)). */
  held(key: string): number {
    return this.inFlight.get(key) ?? 0;
  }
}

const heavyReadBudgets = new WeakMap<object, HeavyBudget>();

/**
 * The public listener's heavy-read budget (LIMITS.heavyInFlight), one per configuration: the chain routes and their
 * MCP tools (src/mcp/tools.ts) take units of the same budget, so a client cannot double its share by mixing faces.
 * @param config the listener's configuration (the budget is made on the first call for it)
 */
export function heavyReadBudget(config: { heavyPerClient: number }): HeavyBudget {
  let b = heavyReadBudgets.get(config);
  if (b === undefined) {
    b = new HeavyBudget(config.heavyPerClient);
    heavyReadBudgets.set(config, b);
  }
  return b;
}
