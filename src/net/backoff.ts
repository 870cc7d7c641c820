/**
 * The one backoff rule for every retry loop (JSON-RPC calls, inconsistent-run refetches, collector turns,
 * the collector's start-up): exponential backoff with full jitter, a random delay between 0 and
 * min(maxMs, baseMs · 2^(attempt − 1)), so many clients retrying a sick server do not retry in step
 * (https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/).
 */
import { setTimeout as delay } from 'node:timers/promises';

/**
 * The delay before retry number `attempt` (1 = the first retry), milliseconds.
 * @example backoffDelayMs(3, 200, 10_000) // somewhere in [0, 800]
 */
export function backoffDelayMs(attempt: number, baseMs: number, maxMs: number): number {
  return Math.round(Math.random() * Math.min(maxMs, baseMs * 2 ** (attempt - 1)));
}

/** Waits `ms` milliseconds; resolves early (never rejects) when `signal` aborts. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return;
  await delay(ms, undefined, { signal }).catch(() => undefined);
}
