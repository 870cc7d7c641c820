/**
 * Short-lived answers of the intelligence reads, per store. The data changes only when collection writes (hourly
 * probes), and the API asks clients to poll at most once every five seconds; so a read with the
 * same parameters within READ_TTL_MS reuses the answer, unless this process wrote intel data since (every write
 * in ./write.ts bumps the store's generation). A write by another process (a separate `paywatch collect`) is seen
 * after at most READ_TTL_MS. Failed reads are not kept.
 */
import { LRUCache } from 'lru-cache';
import type { Store } from '../store.js';
import { approxHeapBytes } from '../chain/memo.js';
import { POLL_INTERVAL_SECONDS } from '../../domain/filters.js';

/** Milliseconds an answer is reused: the polling interval clients are asked to keep (docs/intelligence.md). */
export const READ_TTL_MS = POLL_INTERVAL_SECONDS * 1000;
/** Estimated bytes of answers remembered per store (least recently used go first; an optimisation, not a store). */
const MAX_BYTES = 16 * 1024 * 1024;
const PENDING_BYTES = 1024;

interface Entry {
  at: number;
  generation: number;
  value: Promise<unknown>;
}
const entries = new WeakMap<Store, LRUCache<string, Entry>>();
const generations = new WeakMap<Store, number>();

/** Marks every cached answer of `store` as outdated; called by each intel write. */
export function bumpGeneration(store: Store): void {
  generations.set(store, (generations.get(store) ?? 0) + 1);
}

/**
 * Returns the answer of `read` for `key` (which must name the function and all its parameters), reusing one
 * computed less than READ_TTL_MS ago with no intel write in this process since.
 */
export function cachedRead<T>(store: Store, key: string, read: () => Promise<T>): Promise<T> {
  let m = entries.get(store);
  if (!m) entries.set(store, (m = new LRUCache<string, Entry>({ maxSize: MAX_BYTES, sizeCalculation: () => PENDING_BYTES })));
  const cache = m;
  const now = Date.now();
  const generation = generations.get(store) ?? 0;
  const hit = cache.get(key);
  if (hit && hit.generation === generation && now - hit.at < READ_TTL_MS) return hit.value as Promise<T>;
  const entry: Entry = { at: now, generation, value: read() };
  cache.set(key, entry);
  entry.value.then(
    // A new box: lru-cache keeps the size of a key re-set with the same value.
    (v) => cache.peek(key) === entry && cache.set(key, { ...entry }, { size: Math.max(1, approxHeapBytes(v)) }),
    () => cache.peek(key) === entry && cache.delete(key),
  );
  return entry.value as Promise<T>;
}
