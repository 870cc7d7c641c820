/**
 * The largest JSON-RPC batch a node accepts, learnt from its answers and shared by every request the process
 * sends it. A batch refused for its size halves the calls per request (the node's cap is unknown, and halving
 * reaches any cap in log2(ceiling) refusals); once batches of that size go through, the size is searched upward
 * by bisection between the largest size known to pass and the smallest refused, one probe at a time, until the
 * two are adjacent. Halving alone leaves a node that caps at 30 calls run at 20 (40 → 20), and one first met
 * with a short batch of 12 at 6 for good: two thirds or half of its capacity, which a node that also limits
 * requests per second turns into as much less throughput (R requests/s × calls per request).
 *
 * A probe is a single request (the others keep the size known to pass), so a probe refused costs one refused
 * request, sent again at the known size. A cap that depends on the answer's bytes ("response is too big") rather
 * than the count of calls shows as a refusal at or below the size known to pass: the size is halved again and
 * searched from there.
 *
 * @example
 * const s = new BatchSizeSearch(40);
 * s.refused(40); // size 20
 * s.refused(20); // size 10
 * s.passed(10);  // a 10 went through: takeProbe(n) now offers 15 (between 10 and the 20 refused)
 */
export class BatchSizeSearch {
  /** Calls per request in use: the largest size known to pass (the ceiling until the first refusal). */
  size: number;
  /** Smallest batch refused so far (null: none, the size is the ceiling). */
  private refusedAt: number | null = null;
  /** The probe in flight, its calls (null: none). */
  private probing: number | null = null;
  /** Whether a batch of the size in use went through since it was set (no probe before: it may be too large). */
  private sizePassed = true;

  /** @param ceiling the most calls per request ever sent (`--rpc-batch-calls`), ≥ 1 */
  constructor(readonly ceiling: number) {
    this.size = ceiling;
  }

  /**
   * A batch of `calls` calls was refused for its size.
   * @returns true when the size in use fell (the refused batch was no larger than it: not a probe, not a batch
   *   of an older, larger size still in flight at the last cut)
   */
  refused(calls: number): boolean {
    if (calls === this.probing) this.probing = null;
    this.refusedAt = Math.min(this.refusedAt ?? calls, calls);
    if (calls > this.size) return false;
    this.size = Math.max(1, Math.floor(calls / 2));
    this.sizePassed = false;
    return true;
  }

  /**
   * A batch of `calls` calls went through (whatever its calls answered).
   * @returns true when the size in use rose (a probe, or a larger batch sent before a cut, went through)
   */
  passed(calls: number): boolean {
    if (calls === this.probing) this.probing = null;
    if (calls === this.size) this.sizePassed = true;
    if (calls <= this.size || (this.refusedAt !== null && calls >= this.refusedAt)) return false;
    this.size = calls;
    this.sizePassed = true;
    return true;
  }

  /**
   * The size of a probe to send now, when one is worth sending: a batch of the size in use went through, no
   * other probe is in flight, the search is not settled, and `available` calls wait (a probe is a full batch).
   * The caller sends one batch of that many calls and reports it with passed/refused, or with endProbe when it
   * never got an answer on its size.
   * @returns calls for the probe, or null
   */
  takeProbe(available: number): number | null {
    if (!this.sizePassed || this.probing !== null || this.settled) return null;
    const probe = Math.min(this.ceiling, Math.floor((this.size + (this.refusedAt as number)) / 2));
    if (probe <= this.size || available < probe) return null;
    this.probing = probe;
    return probe;
  }

  /** The probe of `calls` calls ended without an answer on its size (a transport failure, cut before sending). */
  endProbe(calls: number): void {
    if (calls === this.probing) this.probing = null;
  }

  /** True when the size in use is the ceiling, or one below the smallest size refused: nothing left to search. */
  get settled(): boolean {
    return this.refusedAt === null || this.refusedAt - this.size <= 1 || this.size >= this.ceiling;
  }
}
