/**
 * Decode worker body (a task thread, src/threads): answers each task `{ fetched, tokens }` with processRun's
 * PreparedBlocks. Tasks travel by structured clone, so Maps, bigints and plain objects survive as they are.
 */
import { serveTasks } from '../../threads/serve.js';
import type { FetchedBlock, TokenMap } from '../types.js';
import { processRun } from './process.js';

// Imports are done (they dominate start-up): from now on the pool sends work here instead of running it inline.
serveTasks((m: { fetched: FetchedBlock[]; tokens: TokenMap }) => processRun(m.fetched, m.tokens));
