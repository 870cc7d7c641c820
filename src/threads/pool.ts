/**
 * A pool of task threads (./task-thread.ts) that falls back to the calling thread: a task goes to the loaded thread
 * with the fewest tasks pending, or runs inline while none has loaded, when every loaded one already holds
 * `perThread` tasks, or once the pool is closed. Threads start at once but take seconds to load (tsx and the body's
 * imports in a fresh thread), so start-up never waits for them. A thread that had loaded and dies is replaced at
 * once; one that never loaded is not retried (its tasks go to the others or inline). The store's reader threads
 * (src/store/chain/readers.ts) and the collector's decode workers (src/chain/collector/pool.ts) wrap it.
 */
import type { ErrorClass } from './error-wire.js';
import { TaskThread } from './task-thread.js';

export interface ThreadPoolOptions {
  /** The thread's body: a TypeScript module calling serveTasks (./serve.ts). */
  entry: URL;
  /** The body's workerData (structured clone). */
  data: Record<string, unknown>;
  /** Threads (0: every task runs inline). */
  size: number;
  /** The error a task gets when its thread dies first, from the thread's message. */
  failure: (message: string) => Error;
  /** Tasks a loaded thread holds at most before further tasks run inline (default: no bound). */
  perThread?: number;
  /** The area's PaywatchError classes the body may throw, rebuilt as themselves (./error-wire.ts; default none). */
  errors?: readonly ErrorClass[];
}

/**
 * @example
 * const pool = new ThreadPool<Task, Answer>({ entry: new URL('./body.ts', import.meta.url), data: {}, size: 2, failure: (m) => new Error(m) });
 * const answer = await pool.run(task, (t) => answerInline(t));
 */
export class ThreadPool<T, R> {
  private readonly threads: (TaskThread<T, R> | null)[];
  private readonly perThread: number;
  private closed = false;
  /** Tasks run on a thread and inline so far (tests and benchmarks). */
  readonly counts = { thread: 0, inline: 0 };

  constructor(private readonly opts: ThreadPoolOptions) {
    this.perThread = opts.perThread ?? Number.POSITIVE_INFINITY;
    this.threads = Array.from({ length: opts.size }, () => null);
    for (let i = 0; i < opts.size; i++) this.spawn(i);
  }

  /**
   * Runs `task` on the loaded thread with the fewest tasks pending, else `inline(task)` on the calling thread.
   * @throws the body's error for the task, or `failure(…)` when its thread dies first; inline, what `inline` throws
   */
  run(task: T, inline: (task: T) => Promise<R>): Promise<R> {
    let best: TaskThread<T, R> | null = null;
    for (const t of this.threads) if (t?.ready && t.queued < this.perThread && (!best || t.queued < best.queued)) best = t;
    if (!best || this.closed) {
      this.counts.inline++;
      return inline(task);
    }
    this.counts.thread++;
    return best.run(task);
  }

  /** Resolves once every thread has loaded or failed (tests and benchmarks; callers never need to wait). */
  async whenReady(): Promise<void> {
    while (this.threads.some((t) => t && !t.ready)) await new Promise((r) => setTimeout(r, 20));
  }

  /** Ends every thread; tasks still pending are rejected, and later tasks run inline. */
  async close(): Promise<void> {
    this.closed = true;
    const threads = [...this.threads];
    this.threads.fill(null);
    await Promise.all(threads.map((t) => t?.terminate()));
  }

  private spawn(i: number): void {
    const thread: TaskThread<T, R> = new TaskThread(
      this.opts.entry,
      { ...this.opts.data },
      this.opts.failure,
      (wasReady) => {
        if (this.threads[i] !== thread) return;
        this.threads[i] = null;
        if (wasReady && !this.closed) this.spawn(i);
      },
      this.opts.errors,
    );
    this.threads[i] = thread;
  }
}
