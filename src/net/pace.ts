/**
 * Pacing for one server that rate-limits (HTTP 429, `Retry-After`): a token bucket of one token (requests are
 * spaced evenly at `rate` per second, no bursts), shared by every request the process sends to that server.
 * Unpaced (rate null) until the server first refuses or the operator sets a rate.
 *
 * The rate is learnt from the requests *sent*, never from the answers: a server counts a request when it
 * arrives, and a slow answer (a large batch) comes back long after the refusal of a later request, so counting
 * answers would find the window empty and collapse the rate. At a refusal, the server accepted the requests
 * sent before the refused one within the window it named (`Retry-After`, at least 1 s, and never before the end
 * of the last pause, when nothing was sent) less those it refused; the rate becomes 95% of that, never above
 * 95% of the rate in use (90% for a refusal within 10 s of the last cut: the server's bucket refilled during the
 * pause, so the window overstates what it allows). Every request then waits until `Retry-After` has passed.
 * After `PROBE_AFTER_MS` without a refusal the rate rises by a step (5% of the rate the last cut set, doubled
 * at each probe without a refusal up to 20%; never above the operator's rate), so a server that allows more is
 * found again within seconds: increase in steps, multiplicative decrease, as TCP congestion control does
 * (RFC 5681), which keeps refusals to about one per probe cycle (each costs a pause of Retry-After). None of the pacing libraries in the registry (limiter, bottleneck, p-throttle) change their
 * rate while requests wait, which is the whole point here.
 */
import { sleep } from './backoff.js';

/** Milliseconds without a refusal before the rate is raised by one step (and between two steps). */
export const PROBE_AFTER_MS = 3_000;

/** Sent requests are remembered this long (the longest window a rate is estimated over), milliseconds. */
const HISTORY_MS = 10_000;

/** Shortest span a rate is measured over, milliseconds; a shorter one (just after a pause) cuts by 10% instead. */
const MIN_SPAN_MS = 250;

/** One request as `take` reserved it: its sequence number (send order) and when it may start (ms). */
export interface PaceTicket {
  seq: number;
  at: number;
}

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
  /** Sequence number of the first request reserved after the last cut (earlier ones were in flight then). */
  private cutSeq = 0;
  /** The next probe's step, requests per second (5% of the rate the last cut set, doubled at each probe). */
  private step = 0;
  /** The largest step, requests per second (20% of the rate the last cut set). */
  private maxStep = 0;
  private seq = 0;
  /** Requests reserved over the last HISTORY_MS, in send order, with whether the server refused them. */
  private readonly sent: { seq: number; at: number; refused: boolean }[] = [];

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
   * @returns the request's ticket (pass it to `refuse`)
   */
  async take(): Promise<PaceTicket> {
    const now = this.now();
    this.probe(now);
    const rate = this.currentRate;
    const at = rate === null && this.pausedUntil <= now ? now : Math.max(now, this.pausedUntil, this.nextAt);
    if (rate !== null || at > now) this.nextAt = at + (rate === null ? 0 : 1000 / rate);
    const ticket = { seq: ++this.seq, at };
    this.sent.push({ ...ticket, refused: false });
    while (this.sent.length && this.sent[0].at < now - HISTORY_MS) this.sent.shift();
    if (at > now) await sleep(at - now);
    return ticket;
  }

  /**
   * Gives back a turn taken but not used (its request found nothing left to send): it no longer counts as sent,
   * and when no later turn was taken meanwhile the next one may start at its time instead of one period later.
   * @param ticket what `take` returned
   */
  unused(ticket: PaceTicket): void {
    const i = this.sent.findIndex((s) => s.seq === ticket.seq);
    if (i >= 0) this.sent.splice(i, 1);
    if (ticket.seq === this.seq && this.nextAt > ticket.at) this.nextAt = ticket.at;
  }

  /**
   * Records a refusal (HTTP 429): pauses every request for `retryAfterMs` and sets the rate to 95% of what the
   * server accepted before the refused request, over the window it named (see the module comment).
   * A refusal of a request reserved before the last cut (in flight then) only extends the pause: the requests
   * of one burst are refused together and would otherwise cut the rate once each.
   * @param retryAfterMs the server's Retry-After in milliseconds, or null when it sent none (then 1 s)
   * @param ticket what `take` returned for the refused request
   * @returns the rate in use, requests per second
   */
  refuse(retryAfterMs: number | null, ticket: PaceTicket): number {
    const now = this.now();
    const entry = this.sent.find((s) => s.seq === ticket.seq);
    if (entry) entry.refused = true;
    const pauseEndBefore = this.pausedUntil;
    this.pausedUntil = Math.max(this.pausedUntil, now + (retryAfterMs ?? 1000));
    if (this.currentRate !== null && ticket.seq < this.cutSeq) return this.currentRate;
    const windowMs = Math.min(HISTORY_MS, Math.max(1000, retryAfterMs ?? 1000));
    const from = Math.max(ticket.at - windowMs, pauseEndBefore);
    const span = ticket.at - from;
    const before = this.currentRate ?? Number.POSITIVE_INFINITY;
    const recent = this.lastCutAt !== 0 && now - this.lastCutAt < HISTORY_MS && Number.isFinite(before);
    let rate: number;
    if (span < MIN_SPAN_MS) rate = Number.isFinite(before) ? before * 0.9 : 1000 / windowMs;
    else {
      const accepted = this.sent.filter((s) => s.seq < ticket.seq && s.at >= from && !s.refused).length;
      const measured = (accepted * 1000) / span;
      rate = Math.min(before * (recent ? 0.9 : 0.95), measured * 0.95);
    }
    // Never slower than one request per window.
    this.currentRate = Math.round(Math.max(1000 / windowMs, rate) * 1000) / 1000;
    this.step = this.currentRate * 0.05;
    this.maxStep = this.currentRate * 0.2;
    this.lastRefusedAt = now;
    this.lastCutAt = now;
    this.cutSeq = this.seq + 1;
    return this.currentRate;
  }

  /** Honours a Retry-After that came without a refusal (HTTP 503): waits, the rate unchanged. */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
  }

  private probe(now: number): void {
    if (this.currentRate === null || this.lastRefusedAt === 0 || now - this.lastRefusedAt < PROBE_AFTER_MS) return;
    const raised = this.currentRate + this.step;
    this.step = Math.min(this.maxStep, this.step * 2);
    this.currentRate = Math.round((this.ceiling === null ? raised : Math.min(this.ceiling, raised)) * 1000) / 1000;
    this.lastRefusedAt = now; // next probe one period later
  }
}

/** Longest `Retry-After` value read, characters (an HTTP-date is 29); anything longer is unreadable. */
const MAX_RETRY_AFTER_CHARS = 64;

/**
 * A `Retry-After` header value (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) in milliseconds, capped at
 * `maxMs` (a hostile or broken server cannot park the client for hours); null when absent or unreadable
 * (longer than 64 characters, negative, not a number of seconds nor a date). Decimal seconds are read too.
 */
export function retryAfterMs(value: string | string[] | undefined, maxMs = 60_000, now = Date.now()): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v || v.length > MAX_RETRY_AFTER_CHARS) return null;
  const s = v.trim();
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(s)) ms = Number(s) * 1000;
  // An HTTP-date names its day and zone (IMF-fixdate, RFC 850 and asctime forms): Date.parse alone reads "-5" or "1.5" as years.
  else if (/^[A-Za-z]{3}/.test(s) && /\d{2}:\d{2}:\d{2}/.test(s)) ms = Date.parse(s) - now;
  else return null;
  if (!Number.isFinite(ms)) return null;
  return Math.min(maxMs, Math.max(0, Math.ceil(ms)));
}
