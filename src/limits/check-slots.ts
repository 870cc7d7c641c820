/**
 * Trust checks in flight: a global number of slots per process (LIMITS.checksInFlight) and, inside it, a cap per
 * client group (LIMITS.checksPerClient: one address, IPv6 by /64, and one API key each count apart), always below
 * the global count, so no single client can hold every slot and leave the others 503. A check takes one slot in
 * each of its groups and in the global pool, or none at all.
 */
import { LimitExceeded, Unavailable } from '../domain/errors.js';
import { LIMITS } from './index.js';

const CLIENT_RETRY_S = LIMITS.checksPerClient.answer.retryAfter;
const GLOBAL_RETRY_S = LIMITS.checksInFlight.answer.retryAfter;

/**
 * The per-group cap that applies under `global` slots: `perClient`, but at most `global − 1` so one group always
 * leaves a slot to someone else (a single global slot can only be shared by turns).
 */
export function effectivePerClient(global: number, perClient: number): number {
  return global <= 1 ? 1 : Math.max(1, Math.min(perClient, global - 1));
}

/**
 * Slots for trust checks in this process (budgets of work in flight are per process: docs/decisions.md).
 * @example
 * const slots = new CheckSlots(32, 4);
 * const release = slots.take([`addr:${clientKey(req.ip)}`, `key:${key.id}`]);
 * try { await runCheck(...) } finally { release() }
 */
export class CheckSlots {
  private readonly held = new Map<string, number>();
  private total = 0;
  /** The cap per group actually enforced (effectivePerClient). */
  readonly perClient: number;

  /**
   * @param global checks at once in this process (≥ 1; `PAYWATCH_VERIFY_MAX_IN_FLIGHT`)
   * @param perClient checks at once per address and per key (≥ 1; `PAYWATCH_VERIFY_MAX_IN_FLIGHT_PER_CLIENT`)
   */
  constructor(
    readonly global: number,
    perClient: number,
  ) {
    this.perClient = effectivePerClient(global, perClient);
  }

  /**
   * Takes one slot in every group of `groups` and one global slot.
   * @param groups the request's groups, e.g. `addr:203.0.113.5` and `key:key_…` (each distinct)
   * @returns the release function (idempotent)
   * @throws LimitExceeded (429, Retry-After) when a group holds its cap already (checked first, so a client over
   *   its share learns it is its own doing); Unavailable (503, Retry-After) when every global slot is taken
   */
  take(groups: readonly string[]): () => void {
    for (const g of groups) {
      if ((this.held.get(g) ?? 0) >= this.perClient)
        throw new LimitExceeded(
          `too many checks at once from this client: at most ${this.perClient} run at once per client address and per API key; retry after ${CLIENT_RETRY_S} s`,
          { retryAfterSeconds: CLIENT_RETRY_S },
        );
    }
    if (this.total >= this.global)
      throw new Unavailable(`too many checks in progress: at most ${this.global} run at once; retry after ${GLOBAL_RETRY_S} s`, {
        retryAfterSeconds: GLOBAL_RETRY_S,
      });
    this.total++;
    for (const g of groups) this.held.set(g, (this.held.get(g) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      for (const g of groups) {
        const left = (this.held.get(g) ?? 1) - 1;
        if (left > 0) this.held.set(g, left);
        else this.held.delete(g);
      }
    };
  }

  /** Slots held by `group` (tests), or every slot in use when `group` is omitted. */
  inUse(group?: string): number {
    return group === undefined ? this.total : (this.held.get(group) ?? 0);
  }
}
