/**
 * Exact memo of per-filter answers (filtered totals, metrics) for as long as the store is unchanged: every
 * writeBlocks moves chain_stats (count, updated_at), so a key that includes them can never serve a stale answer,
 * also when another process (the collector) writes. Bounded, oldest entry evicted first.
 */
import type { ChainStats } from './query.js';

/** Entries kept per memo (distinct filter sets between two writes). */
const MAX_ENTRIES = 512;

/** A memo of answers keyed by store version and a caller's key (e.g. the filters as JSON). */
export class VersionMemo<T> {
  private readonly entries = new Map<string, Promise<T>>();

  /**
   * The answer for `key` at the store version `stats`, computing it with `compute` on a miss (concurrent callers
   * share one computation; a failed computation is forgotten so the next call retries).
   */
  get(stats: ChainStats, key: string, compute: () => Promise<T>): Promise<T> {
    const k = `${stats.count}|${stats.updatedAt ?? ''}|${key}`;
    const hit = this.entries.get(k);
    if (hit) return hit;
    const p = compute();
    p.catch(() => this.entries.delete(k));
    this.entries.set(k, p);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    return p;
  }
}

/** One VersionMemo per database handle (so two stores never share answers). */
export function memoPerStore<K extends object, T>(): (handle: K) => VersionMemo<T> {
  const memos = new WeakMap<K, VersionMemo<T>>();
  return (handle) => {
    let m = memos.get(handle);
    if (!m) memos.set(handle, (m = new VersionMemo<T>()));
    return m;
  };
}
