/**
 * Starting worker threads. Compiled (dist/, the normal case) a body is started directly from its `.js` file;
 * from the TypeScript sources (tsx, development and tests) through ./boot.mjs, which registers tsx in the thread
 * (hooks registered in the parent do not reach a worker on Node 20).
 */
import { Worker } from 'node:worker_threads';

/**
 * How this module runs: compiled by tsc (dist/…/start.js), bundled (dist/bundle/*.mjs, scripts/bundle.mjs: the
 * worker bodies are entries beside it, named as their sources) or through tsx from src/…/start.ts.
 */
const compiledExtension = import.meta.url.endsWith('.js') ? '.js' : import.meta.url.endsWith('.mjs') ? '.mjs' : null;

/**
 * Starts `entry` in a worker thread, unref'd (an idle worker never keeps the process alive; ref it while it has
 * work).
 * @param entry the body's module as a file: URL naming its TypeScript source, usually
 *   `new URL('./x.ts', import.meta.url)`; compiled, the `.js` beside it is started instead (bundled, the `.mjs`)
 * @param data extra workerData for the body, next to `entry`
 * @example startWorker(new URL('./writer-thread.ts', import.meta.url), { db: 'sqlite:./data/paywatch.sqlite' })
 */
export function startWorker(entry: URL, data: Record<string, unknown> = {}): Worker {
  const worker = compiledExtension
    ? new Worker(new URL(entry.href.replace(/\.ts$/, compiledExtension)), { workerData: { ...data, entry: entry.href } })
    : new Worker(new URL('./boot.mjs', import.meta.url), { workerData: { ...data, entry: entry.href } });
  worker.unref();
  return worker;
}
