/**
 * Starting worker threads whose bodies are TypeScript: through ./boot.mjs, which registers tsx in the thread.
 */
import { Worker } from 'node:worker_threads';

/**
 * Starts `entry` (a TypeScript module, as a file: URL, usually `new URL('./x.ts', import.meta.url)`) in a worker
 * thread, unref'd (an idle worker never keeps the process alive; ref it while it has work).
 * @param data extra workerData for the body, next to `entry`
 */
export function startTsWorker(entry: URL, data: Record<string, unknown> = {}): Worker {
  const worker = new Worker(new URL('./boot.mjs', import.meta.url), { workerData: { ...data, entry: entry.href } });
  worker.unref();
  return worker;
}
