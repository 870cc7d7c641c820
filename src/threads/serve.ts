/**
 * The body side of a task thread (./task-thread.ts): call once the body's imports and set-up are done.
 */
import { parentPort } from 'node:worker_threads';

/**
 * Says `{ ready: true }`, then answers each `{ id, task }` with `{ id, result }` (what `handle` returns) or
 * `{ id, error }` (the failure's `Name: message`), one task at a time in arrival order.
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
        port.postMessage({ id: m.id, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
      }
    });
  });
}
