/**
 * Exact memo of per-filter answers (list pages, filtered totals, metrics) for as long as the store is unchanged:
 * every writeBlocks moves chain_stats (count, updated_at), so a key that includes them can never serve a stale
 * answer, also when another process (the collector) writes. Bounded by the bytes the answers take (an LRU from
 * `lru-cache` with `maxSize`), not by their number: a hundred 100-row pages are megabytes, a hundred totals are not.
 */
import { LRUCache } from 'lru-cache';


/** What identifies a store's contents: its observation count and last write (chain_stats, ./query.ts readStats). */
export interface StoreVersion {
  count: number;
  updatedAt: string | null;
}
/** Bytes a memo keeps at most by default: its answers' estimated heap size (approxHeapBytes). */
export const DEFAULT_MEMO_BYTES = 32 * 1024 * 1024;
/** The size an answer counts for while it is still being computed. */
const PENDING_BYTES = 1024;

/**
 * An estimate of the heap an answer holds once parsed and rendered: four times its JSON text (the objects, and
 * the text itself when a route renders it once; src/http/reply.ts). Numbers and other scalars count 64 bytes.
 */
export function approxHeapBytes(value: unknown): number {
  if (value === null || typeof value !== 'object') return 64;
  return 4 * JSON.stringify(value).length;
}

/** A memo of answers keyed by store version and a caller's key (e.g. the filters as JSON). */
export class VersionMemo<T> {
  /** Entries are boxes: lru-cache keeps the size of a key re-set with the same value, so a sized box is a new one. */
  private readonly entries: LRUCache<string, { answer: Promise<T> }>;

  /**
   * @param maxBytes estimated bytes kept at most (least recently used answers go first)
   * @param sizeOf an answer's estimated bytes (default approxHeapBytes)
   */
  constructor(maxBytes = DEFAULT_MEMO_BYTES, private readonly sizeOf: (v: T) => number = approxHeapBytes) {
    this.entries = new LRUCache({ maxSize: maxBytes, sizeCalculation: () => PENDING_BYTES });
  }

  /**
   * The answer for `key` at the store version `stats`, computing it with `compute` on a miss (concurrent callers
   * share one computation; a failed computation is forgotten so the next call retries).
   */
  get(stats: StoreVersion, key: string, compute: () => Promise<T>): Promise<T> {
    const k = `${stats.count}|${stats.updatedAt ?? ''}|${key}`;
    const hit = this.entries.get(k);
    if (hit) return hit.answer;
    const box = { answer: compute() };
    this.entries.set(k, box);
    box.answer.then(
      // Counted at its real size once known; an answer larger than the whole budget is not kept.
      (v) => this.entries.peek(k) === box && this.entries.set(k, { answer: box.answer }, { size: Math.max(1, this.sizeOf(v)) }),
      () => this.entries.peek(k) === box && this.entries.delete(k),
    );
    return box.answer;
  }

  /** Estimated bytes held now (tests and benchmarks). */
  get bytes(): number {
    return this.entries.calculatedSize;
  }
}

/** One VersionMemo per database handle (so two stores never share answers). */
export function memoPerStore<K extends object, T>(maxBytes = DEFAULT_MEMO_BYTES): (handle: K) => VersionMemo<T> {
  const memos = new WeakMap<K, VersionMemo<T>>();
  return (handle) => {
    let m = memos.get(handle);
    if (!m) memos.set(handle, (m = new VersionMemo<T>(maxBytes)));
    return m;
  };
}
