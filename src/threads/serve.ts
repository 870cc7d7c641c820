/**
 * The body side of a task thread (./task-thread.ts): call once the body's imports and set-up are done.
 */
import { parentPort } from 'node:worker_threads';
import { errorToWire } from './error-wire.js';

/**
 * Says `{ ready: true }`, then answers each `{ id, task }` with `{ id, result }` (what `handle` returns) or
 * `{ id, error }` (the failure as plain data, ./error-wire.ts), one task at a time in arrival order.
 */
export function serveTasks<T, R>(handle: (task: T) => Promise<R> | R): void {
  const port = parentPort!;
  port.postMessage({ ready: true });
  let queue: Promise<void> = Promise.resolve();
  port.on('message', (m: { id: number; task: T }) => {
    queue = queue.then(async () => {
      try {
        port.postMessage({ id: m.id, result: await handle(m.task) });
      } catch (e) {
        port.postMessage({ id: m.id, error: errorToWire(e) });
      }
    });
  });
}
