/**
 * Counting failed authentications per client (src/limits/client-key.ts groups addresses): a client that failed
 * `max` times within a window is refused with 429 until the window ends, before its next attempt costs a store
 * read, a hash comparison or a decryption. Only failures count, so a client that authenticates is never slowed.
 * Used by the signed intake, the operator reads and the trust check's API keys (docs/intake.md). With Redis
 * (src/limits/shared.ts) the counts are shared by every replica; while it does not answer, they are kept here.
 */
import { LimitExceeded } from '../domain/errors.js';
import { LIMITS } from './index.js';
import type { SharedLimits } from './shared.js';

/** Default window (LIMITS.failedAuthentications: one minute). */
const WINDOW_MS = LIMITS.failedAuthentications.windowMs;
/** Clients tracked at most (bounds memory under a spray of addresses); when full, the oldest window goes. */
const MAX_CLIENTS = 100_000;

/** Where a limiter counts and how long its windows are. */
export interface FailedAuthOptions {
  /** Shared counters (Redis) with this process's memory as the fallback; default: memory only. */
  shared?: SharedLimits;
  /** Window length in milliseconds (default 60,000). */
  windowMs?: number;
  /** Clients tracked in memory at most (default 100,000). */
  maxClients?: number;
}

/** Failure counts by client key in fixed windows that start at a client's first failure. */
export class FailedAuthLimiter {
  readonly #counts = new Map<string, { failures: number; resetAt: number }>();
  private readonly windowMs: number;
  private readonly maxClients: number;
  private readonly shared: SharedLimits | undefined;
  /** The Redis namespace: one per kind of credential. */
  private readonly namespace: string;

  /**
   * @param max failures allowed per client per window; the next attempt after `max` failures is refused
   * @param what what failed, for the 429 message ("intake authentications", "operator tokens", "API keys")
   */
  constructor(
    readonly max: number,
    private readonly what: string,
    opts: FailedAuthOptions = {},
  ) {
    this.windowMs = opts.windowMs ?? WINDOW_MS;
    this.maxClients = opts.maxClients ?? MAX_CLIENTS;
    this.shared = opts.shared;
    this.namespace = `auth:${what.replace(/[^a-z]+/gi, '-')}`;
  }

  /**
   * Refuses a client that already failed `max` times in its current window. Costs one map lookup, or one Redis
   * round trip with shared limits.
   * @param client a key from clientKey()
   * @param now milliseconds since the epoch
   * @throws LimitExceeded (429) with Retry-After (whole seconds until the window ends)
   */
  async check(client: string, now = Date.now()): Promise<void> {
    const shared = await this.shared?.peek(this.namespace, client);
    if (shared) {
      if (shared.count >= this.max) this.refuse(shared.ttlMs);
      return;
    }
    const c = this.#counts.get(client);
    if (!c || c.failures < this.max) return;
    if (c.resetAt <= now) {
      this.#counts.delete(client);
      return;
    }
    this.refuse(c.resetAt - now);
  }

  private refuse(msLeft: number): never {
    const retry = Math.max(1, Math.ceil(msLeft / 1000));
    throw new LimitExceeded(
      `too many failed authentications from this address: at most ${this.max} failed ${this.what} per ${this.windowMs / 1000} s; retry after ${retry} s`,
      { retryAfterSeconds: retry },
    );
  }

  /**
   * Counts one failed authentication of `client`.
   * @param now milliseconds since the epoch
   */
  async fail(client: string, now = Date.now()): Promise<void> {
    if (await this.shared?.hit(this.namespace, client, this.windowMs)) return;
    const c = this.#counts.get(client);
    if (c && c.resetAt > now) {
      c.failures++;
      return;
    }
    if (c) this.#counts.delete(client);
    // Entries are (re)inserted when their window starts, so Map order is expiry order: drop expired ones from
    // the front (amortised constant time), and the oldest window when still full.
    for (const [k, v] of this.#counts) {
      if (v.resetAt > now && this.#counts.size < this.maxClients) break;
      this.#counts.delete(k);
    }
    this.#counts.set(client, { failures: 1, resetAt: now + this.windowMs });
  }
}
