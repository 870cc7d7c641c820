/**
 * Body of the store writer thread (./writer.ts; a task thread, src/threads, with `workerData.db`, the `--db`
 * value): opens its own connection to the SQLite file, then runs each task `{ blocks, checkpoint }` through
 * writePreparedBlocks, one at a time in arrival order; a failed write commits nothing and answers its error.
 * It imports the SQLite opener and the write alone, not ../db.ts (migrations, PostgreSQL, settings, the token list):
 * a thread loads its modules afresh, and that graph cost about as much CPU as writing a few thousand transactions.
 */
import { workerData } from 'node:worker_threads';
import { serveTasks } from '../../threads/serve.js';
import { openSqlite } from '../sqlite.js';
import { parseDbTarget } from '../target.js';
import { writePreparedBlocks } from './write-blocks.js';
import type { PreparedBlock } from './rows.js';

const target = parseDbTarget((workerData as { db: string }).db);
// The main thread opened (and migrated) the store already; its answer cache lives there (./writer.ts clears it).
const { db } = await openSqlite(target.target, { migrate: false });
const store = { db, dialect: 'sqlite' as const, cache: { chainWritten: () => {} } };
serveTasks((m: { blocks: PreparedBlock[]; checkpoint: { height: number; hash: string } }) =>
  writePreparedBlocks(store, m.blocks, m.checkpoint),
);
