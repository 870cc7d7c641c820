/**
 * Where the collector's writes run. On a SQLite file the write (B-tree inserts into ~12 indexes, about 45–60 µs
 * of synchronous CPU per transaction) runs on a thread of its own with its own connection, so the main thread
 * goes on fetching, checking and decoding the next runs meanwhile, and the API in the same process (`start`)
 * never waits behind a write. SQLite in WAL mode lets this second connection write while the main one reads.
 * PostgreSQL writes are already off the main thread (the server does them), and an in-memory SQLite store
 * cannot be shared by two connections: both write inline.
 *
 * Order and crash safety are unchanged: callers await each write before the next, each write is one
 * transaction (writePreparedBlocks), and the thread only ever runs one at a time.
 */
import { PaywatchError } from '../../domain/errors.js';
import { TaskThread } from '../../threads/task-thread.js';
import { parseDbTarget, type Store } from '../db.js';
import { StoreUnavailable } from '../outage.js';
import { writePreparedBlocks } from './index.js';
import type { PreparedBlock } from './rows.js';

/** Writes prepared runs (writePreparedBlocks) somewhere: inline or on the writer thread. */
export interface StoreWriter {
  /**
   * Writes a run's observations, coverage and the checkpoint in one transaction.
   * @throws the driver's error (nothing written then); WriterThreadFailedError when the thread died
   */
  write(blocks: PreparedBlock[], checkpoint: { height: number; hash: string }): Promise<void>;
  /** Resolves once the writer can take writes off the main thread (at once when it writes inline). */
  whenReady(): Promise<void>;
  /** Ends the thread, if any; a write still pending is rejected (callers await each write first). */
  close(): Promise<void>;
}

/** The writer thread died or failed to start; the write it held is rejected with this (nothing was committed). */
export class WriterThreadFailedError extends PaywatchError {
  constructor(message: string) {
    super(`store writer thread failed: ${message}`, { code: 'writer_thread_failed', retryable: true });
  }
}

/**
 * The writer for `store`, opened from `dbValue` (the same `--db` value): a thread on a SQLite file, inline
 * otherwise (see the module comment).
 */
export function openStoreWriter(store: Store, dbValue: string): StoreWriter {
  const t = parseDbTarget(dbValue);
  if (t.dialect === 'sqlite' && t.target !== ':memory:') return new SqliteWriterThread(store, dbValue);
  return inlineWriter(store);
}

/** A writer that runs writePreparedBlocks on the calling thread, over `store`'s own connection. */
export function inlineWriter(store: Store): StoreWriter {
  return {
    write: (blocks, checkpoint) => writePreparedBlocks(store, blocks, checkpoint),
    whenReady: async () => {},
    close: async () => {},
  };
}

type Checkpoint = { height: number; hash: string };

/**
 * A writer thread over its own connection to the SQLite file. It loads in about a second (tsx, Kysely,
 * better-sqlite3 in a fresh thread); until it says it is ready, writes run inline on the main thread, so
 * start-up never stalls the collector. A thread that dies fails the write it held (the collector's turn is
 * retried from the checkpoint) and is started again; one that fails to load is not tried again (writes stay
 * inline).
 */
export class SqliteWriterThread implements StoreWriter {
  private thread: TaskThread<{ blocks: PreparedBlock[]; checkpoint: Checkpoint }, void> | null = null;
  private closed = false;
  /** False once a thread failed before it loaded: then every write runs inline, no thread is tried again. */
  private loadable = true;
  /** Writes done so far on the thread and inline (for tests and benchmarks). */
  readonly counts = { thread: 0, inline: 0 };

  constructor(
    private readonly store: Store,
    private readonly dbValue: string,
  ) {
    this.spawn();
  }

  async write(blocks: PreparedBlock[], checkpoint: Checkpoint): Promise<void> {
    if (!this.thread && !this.closed && this.loadable) this.spawn();
    if (!this.thread?.ready) {
      this.counts.inline++;
      return writePreparedBlocks(this.store, blocks, checkpoint);
    }
    this.counts.thread++;
    await this.thread.run({ blocks, checkpoint });
    // The thread wrote through another connection: this process's remembered answers are stale now.
    this.store.cache.chainWritten();
  }

  async whenReady(): Promise<void> {
    while (this.thread && !this.thread.ready) await new Promise((r) => setTimeout(r, 20));
  }

  async close(): Promise<void> {
    this.closed = true;
    const thread = this.thread;
    this.thread = null;
    await thread?.terminate();
  }

  private spawn(): void {
    const thread: NonNullable<typeof this.thread> = new TaskThread(
      new URL('./writer-thread.ts', import.meta.url),
      { db: this.dbValue },
      (message) => new WriterThreadFailedError(message),
      (wasReady) => {
        if (this.thread !== thread) return;
        if (!wasReady) this.loadable = false;
        this.thread = null;
      },
      [StoreUnavailable],
    );
    this.thread = thread;
  }
}
