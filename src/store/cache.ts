/**
 * The store's remembered answers, all in one object the open Store owns (`Store.cache`, made by openStore and
 * openReadStore), split into named regions, each an LRU (`lru-cache`) bounded by the bytes its answers take.
 *
 * One invalidation rule: an answer is served only at the store version it was computed at (the version is part
 * of every entry's key), and every write through this store moves the version at once.
 * - Chain (pages, metrics, series, counts): the version is chain_stats (observation count, updated_at), which
 *   every chain write moves in its own transaction, also another process's. Reading it on every request would
 *   cost a round trip, so one read is reused for STATS_REUSE_MS; a chain write through this store drops it
 *   (chainWritten), and another process's write is seen within STATS_REUSE_MS.
 * - Details of recorded transactions: keyed on the chain version too, since a finality upgrade rewrites a
 *   recorded transaction's integrity and `evidence.finality` (./chain/finality.ts); an unrecorded hash is never
 *   remembered (its read fails), since it may be collected later.
 * - Intel: its tables keep no version, so the version is the number of intel writes through this store
 *   (intelWritten). Another process's writes (a separate `paywatch collect`) cannot move it, so an intel answer
 *   is also kept at most READ_TTL_MS after it was computed, the polling interval clients are asked to keep.
 *
 * In every region, concurrent callers of one key share one computation, and a failed computation is forgotten
 * (the next call computes again). Entries of an older version are never served; they leave by LRU eviction.
 */
import { LRUCache } from 'lru-cache';
import { POLL_INTERVAL_SECONDS } from '../domain/filters.js';
import type { ChainStats, Metrics, MetricsSeries, TransactionPage } from './chain/answers.js';
import type { TransactionDetailRow } from './chain/rows.js';

/**
 * How long a read of the chain version (chain_stats) is reused, in milliseconds: far inside the contract's
 * five-second polling interval, so another process's write is seen well within it.
 */
export const STATS_REUSE_MS = 250;
/** Milliseconds an intel answer is kept at most: the polling interval clients are asked to keep (docs/intelligence.md). */
export const READ_TTL_MS = POLL_INTERVAL_SECONDS * 1000;

/** Byte budgets of the regions (estimated heap, approxHeapBytes); least recently used answers go first. */
export const REGION_BYTES = {
  /** Whole list pages: a hundred 100-row pages are megabytes. */
  pages: 32 * 1024 * 1024,
  metrics: 4 * 1024 * 1024,
  series: 4 * 1024 * 1024,
  /** Filtered totals: numbers, so small. */
  counts: 1024 * 1024,
  /** Intel list answers (providers, offers, changes, history, matching domains). */
  intel: 16 * 1024 * 1024,
  /** Transaction details: a few kB each. */
  details: 16 * 1024 * 1024,
  /** Rankings and payments of services (../store/chain/rankings.ts): at most 100 rows each. */
  payments: 4 * 1024 * 1024,
} as const;

/** The size an answer counts for while it is still being computed. */
const PENDING_BYTES = 1024;

/**
 * An estimate of the heap an answer holds once parsed and rendered: four times its JSON text (the objects, and
 * the text itself when a route renders it once; src/http/reply.ts). Numbers and other scalars count 64 bytes.
 * @returns bytes (an estimate, not a measurement)
 */
export function approxHeapBytes(value: unknown): number {
  if (value === null || typeof value !== 'object') return 64;
  return 4 * JSON.stringify(value).length;
}

/** The chain version an entry is keyed on: observation count and last write of chain_stats. */
export function chainVersionKey(stats: Pick<ChainStats, 'count' | 'updatedAt'>): string {
  return `${stats.count}|${stats.updatedAt ?? ''}`;
}

/** Options of a CacheRegion. */
export interface RegionOptions<T> {
  /** Milliseconds an entry is kept at most after its computation started (default: no limit). */
  ttlMs?: number;
  /** An answer's estimated bytes (default approxHeapBytes). */
  sizeOf?: (value: T) => number;
}

interface Entry<T> {
  answer: Promise<T>;
  /** Date.now() when the computation started. */
  at: number;
}

/**
 * One region: answers keyed by a store version `V` (made a string by `versionKey`) and a caller's key (e.g. the
 * filters as JSON), bounded by `maxBytes` of estimated heap.
 */
export class CacheRegion<T, V> {
  /** Entries are boxes: lru-cache keeps the size of a key re-set with the same value, so a sized box is a new one. */
  private readonly entries: LRUCache<string, Entry<T>>;
  private readonly ttlMs: number;
  private readonly sizeOf: (value: T) => number;

  /**
   * @param maxBytes estimated bytes kept at most (least recently used answers go first)
   * @param versionKey the version as a string, part of every entry's key
   */
  constructor(
    maxBytes: number,
    private readonly versionKey: (version: V) => string,
    opts: RegionOptions<T> = {},
  ) {
    this.entries = new LRUCache({ maxSize: maxBytes, sizeCalculation: () => PENDING_BYTES });
    this.ttlMs = opts.ttlMs ?? Infinity;
    this.sizeOf = opts.sizeOf ?? approxHeapBytes;
  }

  /**
   * The answer for `key` at `version`, computing it with `compute` on a miss. Concurrent callers share one
   * computation; a rejected computation is forgotten, so the next call computes again.
   * @returns the remembered promise on a hit (the same object each time), else `compute()`'s
   */
  get<U extends T>(version: V, key: string, compute: () => Promise<U>): Promise<U> {
    const k = `${this.versionKey(version)}|${key}`;
    const now = Date.now();
    const hit = this.entries.get(k);
    if (hit && now - hit.at < this.ttlMs) return hit.answer as Promise<U>;
    const box: Entry<T> = { answer: compute(), at: now };
    this.entries.set(k, box);
    box.answer.then(
      // Counted at its real size once known; an answer larger than the whole region is not kept.
      (v) => this.entries.peek(k) === box && this.entries.set(k, { ...box }, { size: Math.max(1, this.sizeOf(v)) }),
      () => this.entries.peek(k) === box && this.entries.delete(k),
    );
    return box.answer as Promise<U>;
  }

  /** Estimated bytes held now (tests and benchmarks). */
  get bytes(): number {
    return this.entries.calculatedSize;
  }
}

/** One read of the chain version: when it started, its answer, and the version key once it is known. */
interface ChainRead {
  at: number;
  stats: Promise<ChainStats>;
  key?: string;
}

/** The remembered answers of one open store (see the module comment for the rule that invalidates them). */
export class StoreCache {
  /** Pages of /api/transactions (TransactionPage, the same object on every hit). */
  readonly pages = new CacheRegion<TransactionPage, ChainStats>(REGION_BYTES.pages, chainVersionKey);
  readonly metrics = new CacheRegion<Metrics, ChainStats>(REGION_BYTES.metrics, chainVersionKey);
  readonly series = new CacheRegion<MetricsSeries, ChainStats>(REGION_BYTES.series, chainVersionKey);
  /** Filtered totals (COUNT of the matches). */
  readonly counts = new CacheRegion<number, ChainStats>(REGION_BYTES.counts, chainVersionKey);
  /** Details of recorded transactions, by lower-case hash, at the chain version (a finality upgrade changes them). */
  readonly details = new CacheRegion<TransactionDetailRow, ChainStats>(REGION_BYTES.details, chainVersionKey);
  /** Rankings and services' payments (./chain/rankings.ts), at the chain version. */
  readonly payments = new CacheRegion<unknown, ChainStats>(REGION_BYTES.payments, chainVersionKey);
  /** Intel list answers, keyed on intelVersion and kept at most READ_TTL_MS. */
  readonly intel = new CacheRegion<unknown, number>(REGION_BYTES.intel, String, { ttlMs: READ_TTL_MS });

  #chainRead: ChainRead | null = null;
  #intelWrites = 0;

  /**
   * The chain version as read at most STATS_REUSE_MS ago, or since this store's last chain write.
   * @param read reads chain_stats (./chain/query.ts readStats); a rejected read is not reused
   */
  chainVersion(read: () => Promise<ChainStats>): Promise<ChainStats> {
    const now = Date.now();
    const held = this.#chainRead;
    if (held && now - held.at < STATS_REUSE_MS) return held.stats;
    const entry: ChainRead = { at: now, stats: read() };
    this.#chainRead = entry;
    entry.stats.then(
      (stats) => {
        entry.key = chainVersionKey(stats);
      },
      () => {
        if (this.#chainRead === entry) this.#chainRead = null;
      },
    );
    return entry.stats;
  }

  /**
   * The chain version key (chainVersionKey) that `chainVersion` would answer now without reading, or null when it
   * would read (never read, read more than STATS_REUSE_MS ago, a read still pending, or a chain write since).
   * Synchronous: for src/http/replay.ts, which checks a remembered answer's version before routing.
   */
  freshChainVersion(now = Date.now()): string | null {
    const held = this.#chainRead;
    return held && held.key !== undefined && now - held.at < STATS_REUSE_MS ? held.key : null;
  }

  /** Called after every chain write through this store (also one by its writer thread): re-read the version. */
  chainWritten(): void {
    this.#chainRead = null;
  }

  /** The intel version: intel writes through this store so far. */
  get intelVersion(): number {
    return this.#intelWrites;
  }

  /**
   * The answer of `read` for `key` from the intel region at the current intel version, computed on a miss.
   * @param key must name the read and all its parameters
   */
  intelAnswer<T>(key: string, read: () => Promise<T>): Promise<T> {
    return this.intel.get(this.#intelWrites, key, read);
  }

  /** Called after every intel write through this store: no intel answer from before it is served again. */
  intelWritten(): void {
    this.#intelWrites++;
  }
}
