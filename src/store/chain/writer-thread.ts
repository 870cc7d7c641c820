/**
 * Body of the store writer thread (./writer.ts; a task thread, src/threads, with `workerData.db`, the `--db`
 * value): opens its own connection to the SQLite file, then runs each task `{ blocks, checkpoint }` through
 * writePreparedBlocks, one at a time in arrival order; a failed write commits nothing and answers its error.
 */
import { workerData } from 'node:worker_threads';
import { serveTasks } from '../../threads/serve.js';
import { openStore } from '../db.js';
import { writePreparedBlocks } from './index.js';
import type { PreparedBlock } from './rows.js';

// The main thread opened (and migrated) the store already.
const store = await openStore((workerData as { db: string }).db, { migrate: false });
serveTasks((m: { blocks: PreparedBlock[]; checkpoint: { height: number; hash: string } }) =>
  writePreparedBlocks(store, m.blocks, m.checkpoint),
);
