/**
 * The one retry helper, shaped like viem's `withRetry`: a budget of attempts, the one backoff rule between them
 * (./backoff.ts: full jitter), a `shouldRetry` predicate, and a signal that ends the waiting. Used by the JSON-RPC
 * client's batches, the consistent-run refetches and the collector's supervisor. The budgets from one JSON-RPC
 * call up to the collector loop are written down once in docs/collector.md#retries.
 */
import { PaywatchError } from '../domain/errors.js';
import { backoffDelayMs, sleep } from './backoff.js';

/** How often and how long to retry. */
export interface RetryOptions {
  /** Attempts in all, the first included (≥ 1; Infinity: until `shouldRetry` refuses or `signal` aborts). */
  attempts: number;
  /** First delay ceiling, milliseconds; doubled each retry up to `maxMs` (./backoff.ts). */
  baseMs: number;
  /** Largest delay ceiling, milliseconds. */
  maxMs: number;
  /**
   * Whether to retry after `error` (attempt = the attempt that failed, from 1). Default: paywatch errors by their
   * `retryable` flag, any other error (a transport failure) yes.
   */
  shouldRetry?: (error: unknown, attempt: number) => boolean;
  /** Called (and awaited) before each wait, for logs, metrics and recorded state. */
  onRetry?: (retry: { attempt: number; delayMs: number; error: unknown }) => void | Promise<void>;
  /** Ends the waiting: the last error is thrown at once. */
  signal?: AbortSignal;
}

/** The default `shouldRetry`: paywatch errors say whether retrying may help; other errors are transient. */
export const isRetryable = (error: unknown): boolean => !(error instanceof PaywatchError) || error.retryable;

/**
 * Runs `fn` until it resolves, retrying on failures `shouldRetry` accepts, at most `attempts` times in all.
 * @param fn the work; receives the attempt number (1 = first)
 * @returns what `fn` resolved to
 * @throws the last error of `fn` when the budget is spent, `shouldRetry` refuses it, or `signal` aborted
 * @example
 * const head = await withRetry(() => rpc.call('eth_blockNumber'), { attempts: 6, baseMs: 200, maxMs: 10_000 });
 */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  const shouldRetry = opts.shouldRetry ?? isRetryable;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      if (attempt >= opts.attempts || opts.signal?.aborted || !shouldRetry(error, attempt)) throw error;
      const delayMs = backoffDelayMs(attempt, opts.baseMs, opts.maxMs);
      await opts.onRetry?.({ attempt, delayMs, error });
      await sleep(delayMs, opts.signal);
      if (opts.signal?.aborted) throw error;
    }
  }
}
