/**
 * Counting failed authentications per client (src/http/client-key.ts groups addresses): a client that failed
 * `max` times within a window is refused with 429 until the window ends, before its next attempt costs a store
 * read, a hash comparison or a decryption. Only failures count, so a client that authenticates is never slowed.
 * Used by the signed intake, the operator reads and the trust check's API keys (docs/intake.md).
 */
import { LimitExceeded } from '../domain/errors.js';

/** Default window: one minute. */
const WINDOW_MS = 60_000;
/** Clients tracked at most (bounds memory under a spray of addresses); when full, the oldest window goes. */
const MAX_CLIENTS = 100_000;

/** Failure counts by client key in fixed windows that start at a client's first failure. */
export class FailedAuthLimiter {
  readonly #counts = new Map<string, { failures: number; resetAt: number }>();

  /**
   * @param max failures allowed per client per window; the next attempt after `max` failures is refused
   * @param what what failed, for the 429 message ("intake signatures", "operator tokens", "API keys")
   * @param windowMs window length in milliseconds (default 60,000)
   * @param maxClients clients tracked at most (default 100,000)
   */
  constructor(
    readonly max: number,
    private readonly what: string,
    private readonly windowMs = WINDOW_MS,
    private readonly maxClients = MAX_CLIENTS,
  ) {}

  /**
   * Refuses a client that already failed `max` times in its current window. Costs one map lookup.
   * @param client a key from clientKey()
   * @param now milliseconds since the epoch
   * @throws LimitExceeded (429) with Retry-After (whole seconds until the window ends)
   */
  check(client: string, now = Date.now()): void {
    const c = this.#counts.get(client);
    if (!c || c.failures < this.max) return;
    if (c.resetAt <= now) {
      this.#counts.delete(client);
      return;
    }
    const retry = Math.max(1, Math.ceil((c.resetAt - now) / 1000));
    throw new LimitExceeded(`too many failed authentications from this address: at most ${this.max} failed ${this.what} per ${this.windowMs / 1000} s; retry after ${retry} s`, { retryAfterSeconds: retry });
  }

  /**
   * Counts one failed authentication of `client`.
   * @param now milliseconds since the epoch
   */
  fail(client: string, now = Date.now()): void {
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
