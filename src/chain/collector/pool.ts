/**
 * A small pool of worker threads running processRun (integrity + decode) off the main thread, so that the
 * main thread's JSON-RPC fetching and store writes overlap with the CPU-heavy part of the next runs.
 * Workers start at once but take seconds to load (tsx + viem + ox in a fresh thread); until one says it is
 * ready, and whenever all ready ones are busy with `maxQueued` runs, a run is processed inline instead, so
 * start-up never stalls the collector. With `size` 0 everything runs inline (same results, no threads).
 * Workers are unref'd while idle so an idle pool never keeps the process alive; `close()` ends them.
 */
import { PaywatchError } from '../../domain/errors.js';
import { TaskThread } from '../../threads/task-thread.js';
import type { ErrorClass } from '../../threads/error-wire.js';
import { EventMismatchError } from '../decode/event.js';
import { UnsupportedEncodingError } from '../integrity/encoding.js';
import { HeaderFieldError } from '../integrity/header.js';
import { MalformedHexError } from '../integrity/rlp.js';
import type { FetchedBlock, TokenMap } from '../types.js';
import type { PreparedBlock } from './deps.js';
import { processRun } from './process.js';

/** The errors processRun may throw, rebuilt as themselves when a worker throws them (src/threads/error-wire.ts). */
const RUN_ERRORS: readonly ErrorClass[] = [HeaderFieldError, MalformedHexError, UnsupportedEncodingError, EventMismatchError];

type Slot = TaskThread<{ fetched: FetchedBlock[]; tokens: TokenMap }, PreparedBlock[]>;

/** A worker thread died or failed to start; its tasks are rejected with this. */
export class WorkerFailedError extends PaywatchError {
  constructor(message: string) {
    super(`decode worker failed: ${message}`, { code: 'decode_worker_failed', retryable: true });
  }
}

/** Pool of `size` decode workers (0 = inline). Starts them on construction. */
export class DecodePool {
  private readonly slots: (Slot | null)[];
  private closed = false;
  /** Runs processed so far on a worker and inline (for tests and benchmarks). */
  readonly counts = { worker: 0, inline: 0 };

  /**
   * @param size worker threads (0 = none)
   * @param maxQueued runs a ready worker may hold before further runs go inline (default 2)
   */
  constructor(
    readonly size: number,
    private readonly maxQueued = 2,
  ) {
    this.slots = Array.from({ length: size }, (_, i) => this.spawn(i));
  }

  /**
   * Integrity + decode of one run: on the ready worker with the fewest runs pending, or inline.
   * @throws WorkerFailedError when the worker dies; the error of processRun otherwise
   */
  process(fetched: FetchedBlock[], tokens: TokenMap): Promise<PreparedBlock[]> {
    let slot: Slot | null = null;
    for (const s of this.slots) if (s?.ready && s.queued < this.maxQueued && (!slot || s.queued < slot.queued)) slot = s;
    if (!slot || this.closed) {
      this.counts.inline++;
      return processRun(fetched, tokens);
    }
    this.counts.worker++;
    return slot.run({ fetched, tokens });
  }

  /** Resolves once every worker has loaded or failed (for benchmarks and tests; the collector never waits). */
  async whenReady(): Promise<void> {
    while (this.slots.some((s) => s && !s.ready)) await new Promise((r) => setTimeout(r, 20));
  }

  /** Ends every worker; tasks still pending are rejected. Later calls to process() run inline. */
  async close(): Promise<void> {
    this.closed = true;
    const slots = this.slots.splice(0).filter((s): s is Slot => s !== null);
    await Promise.all(slots.map((s) => s.terminate()));
  }

  private spawn(i: number): Slot {
    const slot: Slot = new TaskThread(
      new URL('./worker.ts', import.meta.url),
      {},
      (message) => new WorkerFailedError(message),
      // A worker that had worked is replaced; one that never loaded is not retried (its runs go inline).
      (wasReady) => {
        if (this.slots[i] === slot) this.slots[i] = wasReady && !this.closed ? this.spawn(i) : null;
      },
      RUN_ERRORS,
    );
    return slot;
  }
}
