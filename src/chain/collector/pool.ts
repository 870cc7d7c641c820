/**
 * A small pool of worker threads running processRun (integrity + decode) off the main thread, so that the
 * main thread's JSON-RPC fetching and store writes overlap with the CPU-heavy part of the next runs.
 * Workers start at once but take seconds to load (tsx + viem + ox in a fresh thread); until one says it is
 * ready, and whenever all ready ones are busy with `maxQueued` runs, a run is processed inline instead, so
 * start-up never stalls the collector. With `size` 0 everything runs inline (same results, no threads).
 * Workers are unref'd while idle so an idle pool never keeps the process alive; `close()` ends them.
 */
import { PaywatchError } from '../../domain/errors.js';
import type { ErrorClass } from '../../threads/error-wire.js';
import { ThreadPool } from '../../threads/pool.js';
import { EventMismatchError } from '../decode/event.js';
import { UnsupportedEncodingError } from '../integrity/encoding.js';
import { HeaderFieldError } from '../integrity/header.js';
import { MalformedHexError } from '../integrity/rlp.js';
import type { FetchedBlock, TokenMap } from '../types.js';
import type { PreparedBlock } from './deps.js';
import { processRun } from './process.js';
import { BlockOverBudgetError } from './budget.js';

/** The errors processRun may throw, rebuilt as themselves when a worker throws them (src/threads/error-wire.ts). */
const RUN_ERRORS: readonly ErrorClass[] = [
  HeaderFieldError,
  MalformedHexError,
  UnsupportedEncodingError,
  EventMismatchError,
  BlockOverBudgetError,
];

/** A worker thread died or failed to start; its tasks are rejected with this. */
export class WorkerFailedError extends PaywatchError {
  constructor(message: string) {
    super(`decode worker failed: ${message}`, { code: 'decode_worker_failed', retryable: true });
  }
}

/** Pool of `size` decode workers (0 = inline): a ThreadPool (src/threads/pool.ts). Starts them on construction. */
export class DecodePool {
  private readonly threads: ThreadPool<{ fetched: FetchedBlock[]; tokens: TokenMap }, PreparedBlock[]>;

  /**
   * @param size worker threads (0 = none)
   * @param maxQueued runs a ready worker may hold before further runs go inline (default 2)
   */
  constructor(
    readonly size: number,
    maxQueued = 2,
  ) {
    this.threads = new ThreadPool({
      entry: new URL('./worker.ts', import.meta.url),
      data: {},
      size,
      failure: (message) => new WorkerFailedError(message),
      perThread: maxQueued,
      errors: RUN_ERRORS,
    });
  }

  /** Runs processed so far on a worker and inline (for tests and benchmarks). */
  get counts(): { worker: number; inline: number } {
    return { worker: this.threads.counts.thread, inline: this.threads.counts.inline };
  }

  /**
   * Integrity + decode of one run: on the ready worker with the fewest runs pending, or inline.
   * @throws WorkerFailedError when the worker dies; the error of processRun otherwise
   */
  process(fetched: FetchedBlock[], tokens: TokenMap): Promise<PreparedBlock[]> {
    return this.threads.run({ fetched, tokens }, (run) => processRun(run.fetched, run.tokens));
  }

  /** Resolves once every worker has loaded or failed (for benchmarks and tests; the collector never waits). */
  whenReady(): Promise<void> {
    return this.threads.whenReady();
  }

  /** Ends every worker; tasks still pending are rejected. Later calls to process() run inline. */
  close(): Promise<void> {
    return this.threads.close();
  }
}
