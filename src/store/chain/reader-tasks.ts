/**
 * What a reader thread does with each task (./readers.ts, body ./reader-thread.ts), also run inline while none has
 * loaded.
 */
import type { Store } from '../store.js';
import { countRows, keysetAt } from './query.js';
import { sumSeriesRange } from './series.js';
import { aggregateMetrics } from './reads.js';
import { exportStep } from './export.js';
import type { ReaderTask } from './readers.js';

/**
 * Runs a heavy read on the calling thread: what a reader thread does with each task (./readers.ts), and the
 * fallback while none has loaded.
 */
export function runReaderTask(store: Store, task: ReaderTask): Promise<unknown> {
  switch (task.op) {
    case 'metrics':
      return aggregateMetrics(store, task.filters, task.window);
    case 'keyset-at':
      return keysetAt(store.db, task.filters, store.tokenList, task.ranks);
    case 'series-sums':
      return sumSeriesRange(store, task.request, task.range);
    case 'count':
      return countRows(store.db, task.filters, store.tokenList);
    case 'export-step':
      return exportStep(store, task.filters, task.after, task.n);
  }
}
