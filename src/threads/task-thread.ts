/**
 * The host side of a task worker thread (its body calls serveTasks, ./serve.ts): starts the TypeScript body,
 * learns when it has loaded, sends tasks as `{ id, task }` and settles each with the body's `{ id, result }` or
 * `{ id, error }` (the error rebuilt with its class, code and retry hints: ./error-wire.ts). Idle, the thread is
 * unref'd, so it never keeps the process alive on its own.
 */
import type { Worker } from 'node:worker_threads';
import { shortMessage } from '../domain/errors.js';
import { type ErrorClass, errorFromWire, type WireError } from './error-wire.js';
import { startWorker } from './start.js';

interface Pending<R> {
  resolve: (r: R) => void;
  reject: (e: Error) => void;
}

/** One worker thread answering tasks of type T with results of type R. */
export class TaskThread<T, R> {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending<R>>();
  private nextId = 1;
  /** True once the body has loaded and serves tasks. */
  ready = false;

  /**
   * Starts `entry` (a TypeScript module calling serveTasks) with `data` as its workerData.
   * @param onFail called when the thread errs or exits (also after terminate()), with whether it had loaded;
   *   every task it held is rejected first, with `failure(message)`
   * @param errors the area's PaywatchError classes the body may throw, rebuilt as themselves (the domain's general
   *   kinds always are; another paywatch error comes back as a PaywatchError with its name and code)
   */
  constructor(
    entry: URL,
    data: Record<string, unknown>,
    private readonly failure: (message: string) => Error,
    onFail: (wasReady: boolean) => void,
    private readonly errors: readonly ErrorClass[] = [],
  ) {
    this.worker = startWorker(entry, data);
    const fail = (message: string) => {
      const wasReady = this.ready;
      this.ready = false;
      for (const p of this.pending.values()) p.reject(this.failure(message));
      this.pending.clear();
      onFail(wasReady);
    };
    this.worker.on('message', (m: { ready?: true; id: number; result?: R; error?: WireError }) => {
      if (m.ready) {
        this.ready = true;
        return;
      }
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (this.pending.size === 0) this.worker.unref();
      if (m.error !== undefined) p.reject(errorFromWire(m.error, this.errors));
      else p.resolve(m.result as R);
    });
    this.worker.on('error', (e) => fail(shortMessage(e)));
    this.worker.on('exit', (code) => fail(`exited with code ${code}`));
  }

  /** Tasks sent and not yet answered. */
  get queued(): number {
    return this.pending.size;
  }

  /**
   * Sends `task` (structured clone) and waits for its answer.
   * @throws the body's error (rebuilt: errorFromWire), or `failure(…)` when the thread dies first
   */
  run(task: T): Promise<R> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ id, task });
    });
  }

  /** Ends the thread; tasks still pending are rejected. */
  async terminate(): Promise<void> {
    await this.worker.terminate();
  }
}
