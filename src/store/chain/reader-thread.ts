/**
 * Body of a store reader thread (./readers.ts; a task thread, src/threads, with `workerData.db`, the `--db` value
 * of a SQLite file, and `workerData.tokenList`): opens its own read-only connection and answers each heavy read
 * with the same functions the main thread would run inline (runReaderTask), one at a time.
 */
import { workerData } from 'node:worker_threads';
import { serveTasks } from '../../threads/serve.js';
import { TokenList } from '../../domain/token-list.js';
import { openStore } from '../db.js';
import { runReaderTask } from './reader-tasks.js';
import { warmUpSeries } from './series.js';
import type { ReaderSetup, ReaderTask } from './readers.js';

const setup = workerData as ReaderSetup;
// The main thread opened (and migrated) the store already.
const store = await openStore(setup.db, { readonly: true, tokenList: new TokenList(setup.tokenList.name, setup.tokenList.tokens) });
serveTasks((task: ReaderTask) => runReaderTask(store, task));
// A failure here only means a slower first aggregate.
void warmUpSeries(store).catch(() => undefined);
