/**
 * Body of the store writer thread (./writer.ts; started through src/threads/boot.mjs with `workerData.db`, the
 * `--db` value): opens its own connection to the SQLite file, says `{ ready: true }`, then answers each
 * `{ id, blocks, checkpoint }` with `{ id }` once writePreparedBlocks has committed, or `{ id, error }` (the
 * error's name and message) when it failed and nothing was written. One write at a time, in arrival order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../db.js';
import { writePreparedBlocks } from '../chain-repo.js';
import type { PreparedBlock } from './rows.js';

// The main thread opened (and migrated) the store already.
const store = await openStore((workerData as { db: string }).db, { migrate: false });
parentPort!.postMessage({ ready: true });

let queue: Promise<void> = Promise.resolve();
parentPort!.on('message', (m: { id: number; blocks: PreparedBlock[]; checkpoint: { height: number; hash: string } }) => {
  queue = queue.then(async () => {
    try {
      await writePreparedBlocks(store, m.blocks, m.checkpoint);
      parentPort!.postMessage({ id: m.id });
    } catch (e) {
      parentPort!.postMessage({ id: m.id, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
    }
  });
});
