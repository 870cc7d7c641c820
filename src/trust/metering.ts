/**
 * Metering of keyed trust checks (docs/trust-check.md: free 1,000 checks per month; paid 0.01 dollars per
 * successful call). Reserve before the check, commit only on success, release on any failure of ours or a
 * bad request: failed work is never metered, and a request counts at most once.
 */
import type { Store } from '../store/db.js';
import { commitCheck, releaseCheck, reserveCheck } from '../store/trust/index.js';
import { LimitExceeded } from '../domain/errors.js';
import type { Plan } from './keys.js';
import { LIMITS } from '../limits/index.js';

/** Successful checks a free key may make per UTC calendar month (docs/trust-check.md). */
export const FREE_MONTHLY_CHECKS = LIMITS.freeChecks.value;
/** Price of one successful check, dollars, exact decimal (docs/trust-check.md). */
export const CHECK_PRICE_DOLLARS = '0.01';

/** "YYYY-MM" of `at` in UTC. */
export function utcMonth(at: Date = new Date()): string {
  return at.toISOString().slice(0, 7);
}

/** A reservation to settle exactly once: `commit` after a successful check, `release` otherwise. */
export interface Reservation {
  keyId: string;
  month: string;
  commit(): Promise<void>;
  release(): Promise<void>;
}

/**
 * Reserves one check for a key.
 * @throws LimitExceeded naming the paid options when a free key has used its month's quota
 */
export async function reserve(store: Store, key: { id: string; plan: Plan }, now = new Date()): Promise<Reservation> {
  const month = utcMonth(now);
  const ok = await reserveCheck(store, key.id, month, key.plan === 'free' ? FREE_MONTHLY_CHECKS : null);
  if (!ok) {
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    const retryAfter = Math.max(1, Math.ceil((next.getTime() - now.getTime()) / 1000));
    throw new LimitExceeded(
      `free plan quota used: ${FREE_MONTHLY_CHECKS} successful checks per UTC calendar month (${month}); resets ${next.toISOString()}. Paid options: a paid-plan key billed monthly at ${CHECK_PRICE_DOLLARS} dollars per successful check (ask the operator), or pay per call with x402 by sending the request without an Authorization header`,
      { retryAfterSeconds: retryAfter },
    );
  }
  let done = false;
  const once = (fn: () => Promise<void>) => async () => {
    if (done) return;
    done = true;
    await fn();
  };
  return {
    keyId: key.id,
    month,
    commit: once(() => commitCheck(store, key.id, month)),
    release: once(() => releaseCheck(store, key.id, month)),
  };
}
