/**
 * Reader threads for heavy chain reads on a SQLite file. better-sqlite3 is synchronous: a metrics aggregate over
 * 50,000 rows, an uncached COUNT over a large index range or an export step runs on the thread that calls it, so
 * on the API's main thread one client's heavy query stalls every other request. Here those reads run on worker
 * threads, each with its own read-only connection to the file (WAL lets readers run beside the writer), while the
 * main thread keeps answering. PostgreSQL needs none of this: the server does the work off the event loop.
 *
 * The queue is bounded: past `maxQueued` reads waiting, a read is refused with a 503 (Unavailable, Retry-After)
 * instead of queueing without end. Until a thread has loaded, and when threads cannot be started, reads run inline
 * (src/threads/pool.ts).
 */
import { ThreadPool } from '../../threads/pool.js';
import { PaywatchError, Unavailable } from '../../domain/errors.js';
import { StoreUnavailable } from '../outage.js';
import { LIMITS } from '../../limits/index.js';

/** Seconds a read refused by a full queue is told to wait (LIMITS.readerQueue). */
const RETRY_AFTER_S = LIMITS.readerQueue.answer.retryAfter;
import type { ObservationFilters } from '../../domain/filters.js';
import type { ListedToken } from '../../domain/token-list.js';
import type { ExportRow, KeysetPosition, Metrics, SeriesRange, SeriesRequest, SeriesSums } from './answers.js';

/** A keyset position in the public order (answers.ts KeysetPosition). */
export type Keyset = KeysetPosition;

/** What a reader thread is asked to do. */
export type ReaderTask =
  | { op: 'metrics'; filters: ObservationFilters; window: number }
  | { op: 'keyset-at'; filters: ObservationFilters; ranks: number[] }
  | { op: 'series-sums'; request: SeriesRequest; range: SeriesRange }
  | { op: 'count'; filters: ObservationFilters }
  | { op: 'export-step'; filters: ObservationFilters; after: Keyset; n: number };

/** Heavy reads, run somewhere other than the calling thread. */
export interface HeavyReads {
  /** Metrics over the latest `window` matches (uncached). */
  metrics(filters: ObservationFilters, window: number): Promise<Metrics>;
  /** Keyset positions of the matches at `ranks` of the public order (query.ts keysetAt). */
  keysetAt(filters: ObservationFilters, ranks: number[]): Promise<Keyset[]>;
  /** Exact sums of one range of a series' window (series.ts sumSeriesRange). */
  seriesSums(request: SeriesRequest, range: SeriesRange): Promise<SeriesSums>;
  /** Number of matches (uncached COUNT). */
  count(filters: ObservationFilters): Promise<number>;
  /** One keyset step of export rows after `after` (at most `n`). */
  exportStep(filters: ObservationFilters, after: Keyset, n: number): Promise<ExportRow[]>;
  /** Heavy reads waiting or running now. */
  readonly busy: number;
  close(): Promise<void>;
}

/** What the reader threads need to open the store as the main thread did. */
export interface ReaderSetup {
  /** The `--db` value of a SQLite file. */
  db: string;
  /** The token list the answers follow (rebuilt in each thread). */
  tokenList: { name: string; tokens: ListedToken[] };
}

/** A reader thread died while holding a read. */
export class ReaderThreadFailedError extends PaywatchError {
  constructor(message: string) {
    super(`store reader thread failed: ${message}`, { code: 'reader_thread_failed', retryable: true });
  }
}

/**
 * A pool of `size` reader threads answering HeavyReads (a ThreadPool, src/threads/pool.ts), with at most `maxQueued`
 * reads waiting or running.
 * @param inline runs a task on the calling thread (before the threads have loaded, or if they cannot start)
 * @example
 * const readers = new ReaderPool({ db: 'sqlite:./data/paywatch.sqlite', tokenList }, 2, 32, inlineTask);
 * await readers.metrics({ asset: 'pathUSD' }, 50_000);
 */
export class ReaderPool implements HeavyReads {
  private readonly threads: ThreadPool<ReaderTask, unknown>;
  private inFlight = 0;

  constructor(
    setup: ReaderSetup,
    size: number,
    private readonly maxQueued: number,
    private readonly inline: (task: ReaderTask) => Promise<unknown>,
  ) {
    this.threads = new ThreadPool({
      entry: new URL('./reader-thread.ts', import.meta.url),
      data: { ...setup },
      size,
      failure: (message) => new ReaderThreadFailedError(message),
      errors: [StoreUnavailable],
    });
  }

  /** Reads answered by a thread and inline so far (tests and benchmarks). */
  get counts(): { thread: number; inline: number } {
    return this.threads.counts;
  }

  /** Heavy reads waiting or running now. */
  get busy(): number {
    return this.inFlight;
  }

  metrics(filters: ObservationFilters, window: number): Promise<Metrics> {
    return this.run({ op: 'metrics', filters, window }) as Promise<Metrics>;
  }

  keysetAt(filters: ObservationFilters, ranks: number[]): Promise<Keyset[]> {
    return this.run({ op: 'keyset-at', filters, ranks }) as Promise<Keyset[]>;
  }

  seriesSums(request: SeriesRequest, range: SeriesRange): Promise<SeriesSums> {
    return this.run({ op: 'series-sums', request, range }) as Promise<SeriesSums>;
  }

  count(filters: ObservationFilters): Promise<number> {
    return this.run({ op: 'count', filters }) as Promise<number>;
  }

  exportStep(filters: ObservationFilters, after: Keyset, n: number): Promise<ExportRow[]> {
    return this.run({ op: 'export-step', filters, after, n }) as Promise<ExportRow[]>;
  }

  /** Resolves once every thread has loaded or failed (tests and benchmarks). */
  whenReady(): Promise<void> {
    return this.threads.whenReady();
  }

  close(): Promise<void> {
    return this.threads.close();
  }

  /**
   * Runs `task` on the least busy loaded thread, else inline.
   * @throws Unavailable (503, Retry-After 1) when maxQueued reads are already waiting or running
   */
  private async run(task: ReaderTask): Promise<unknown> {
    if (this.inFlight >= this.maxQueued)
      throw new Unavailable(`server busy: ${this.maxQueued} heavy reads are already queued; retry after ${RETRY_AFTER_S} s`, {
        retryAfterSeconds: RETRY_AFTER_S,
      });
    this.inFlight++;
    try {
      return await this.threads.run(task, this.inline);
    } finally {
      this.inFlight--;
    }
  }
}
