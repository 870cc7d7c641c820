/**
 * Pacing for one server that rate-limits (HTTP 429, `Retry-After`): a token bucket of one token (requests are
 * spaced evenly at `rate` per second, no bursts), shared by every request the process sends to that server.
 * Unpaced (rate null) until the server first refuses or the operator sets a rate. After a 429 the rate becomes
 * 95% of what the server accepted over the window it named (`Retry-After`, at least 1 s; 90% of the rate in
 * use for a refusal within 10 s of the last cut, whose window would hold the pause), and everything waits
 * until `Retry-After` has passed; after `PROBE_AFTER_MS` without a refusal it rises by 5% (never above the
 * operator's rate), so a server that allows more is found again. Additive probing, multiplicative cut: the
 * AIMD rule of TCP congestion control (RFC 5681), which keeps refusals to a few per probe cycle.
 * None of the pacing libraries in the registry (limiter, bottleneck, p-throttle) change their rate while
 * requests wait, which is the whole point here.
 */
import { sleep } from './backoff.js';

/** Milliseconds without a refusal before the rate is raised by 5%. */
export const PROBE_AFTER_MS = 10_000;

/** Accepted requests are remembered this long (the longest window a rate is estimated over), milliseconds. */
const HISTORY_MS = 10_000;

/** A shared pace for one server. Times are milliseconds from `now()` (injectable for tests). */
export class Pace {
  /** Requests per second, or null while unpaced. */
  private currentRate: number | null;
  /** Earliest time the next request may start. */
  private nextAt = 0;
  /** No request starts before this (the server's Retry-After). */
  private pausedUntil = 0;
  private lastRefusedAt = 0;
  private lastCutAt = 0;
  private readonly accepted: number[] = [];

  /**
   * @param ceiling requests per second set by the operator (`--rpc-rate`): the starting rate and the most a
   *   probe raises it to; null = unpaced until the first refusal, then no ceiling
   */
  constructor(
    private readonly ceiling: number | null = null,
    private readonly now: () => number = Date.now,
  ) {
    this.currentRate = ceiling;
  }

  /** Requests per second in use; null while unpaced. */
  get rate(): number | null {
    return this.currentRate;
  }

  /**
   * Waits for this request's turn (reserved at once, so concurrent callers queue in call order).
   * @returns the time the request may start (pass it to `refuse`)
   */
  async take(): Promise<number> {
    const now = this.now();
    this.probe(now);
    const rate = this.currentRate;
    if (rate === null && this.pausedUntil <= now) return now;
    const at = Math.max(now, this.pausedUntil, this.nextAt);
    this.nextAt = at + (rate === null ? 0 : 1000 / rate);
    if (at > now) await sleep(at - now);
    return at;
  }

  /** Records a request the server accepted (any answer but a refusal). */
  accept(): void {
    const now = this.now();
    this.accepted.push(now);
    while (this.accepted.length && this.accepted[0] < now - HISTORY_MS) this.accepted.shift();
  }

  /**
   * Records a refusal (HTTP 429): pauses every request for `retryAfterMs` and sets the rate to 95% of what the
   * server accepted over the window it named.
   * A refusal of a request sent before the last cut (already in flight then) only extends the pause: the
   * requests of one burst are refused together and would otherwise cut the rate once each.
   * @param retryAfterMs the server's Retry-After in milliseconds, or null when it sent none (then 1 s)
   * @param sentAt when the refused request started (what `take` returned)
   * @returns the rate in use, requests per second
   */
  refuse(retryAfterMs: number | null, sentAt: number): number {
    const now = this.now();
    this.pausedUntil = Math.max(this.pausedUntil, now + (retryAfterMs ?? 1000));
    if (this.currentRate !== null && sentAt < this.lastCutAt) return this.currentRate;
    const windowMs = Math.min(HISTORY_MS, Math.max(1000, retryAfterMs ?? 1000));
    const inWindow = this.accepted.filter((t) => t >= now - windowMs).length;
    const measured = (inWindow * 1000) / windowMs;
    // Never faster than before the refusal, never slower than one request per window.
    const before = this.currentRate ?? Number.POSITIVE_INFINITY;
    // A second cut soon after the first would measure the pause itself (nothing accepted): cut by 10% instead.
    const recent = this.lastCutAt !== 0 && now - this.lastCutAt < HISTORY_MS && Number.isFinite(before);
    const rate = Math.max(1000 / windowMs, recent ? before * 0.9 : Math.min(before * 0.95, measured * 0.95));
    this.currentRate = Math.round(rate * 1000) / 1000;
    this.lastRefusedAt = now;
    this.lastCutAt = now;
    return this.currentRate;
  }

  /** Honours a Retry-After that came without a refusal (HTTP 503): waits, the rate unchanged. */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
  }

  private probe(now: number): void {
    if (this.currentRate === null || this.lastRefusedAt === 0 || now - this.lastRefusedAt < PROBE_AFTER_MS) return;
    const raised = this.currentRate * 1.05;
    this.currentRate = Math.round((this.ceiling === null ? raised : Math.min(this.ceiling, raised)) * 1000) / 1000;
    this.lastRefusedAt = now; // next probe one period later
  }
}

/**
 * A `Retry-After` header value (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) in milliseconds, capped at
 * `maxMs` (a hostile or broken server cannot park the client for hours); null when absent or unreadable.
 */
export function retryAfterMs(value: string | string[] | undefined, maxMs = 60_000, now = Date.now()): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  const s = v.trim();
  const ms = /^\d+$/.test(s) ? Number(s) * 1000 : Date.parse(s) - now;
  if (!Number.isFinite(ms)) return null;
  return Math.min(maxMs, Math.max(0, ms));
}
