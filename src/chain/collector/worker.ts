/**
 * Worker-thread body (started through src/threads/boot.mjs): says `{ ready: true }` once loaded, then answers each `{ id, fetched, tokens }` message with
 * `{ id, blocks }` (processRun) or `{ id, error }` (the first line of the failure). Messages travel by structured
 * clone, so Maps, bigints and plain objects survive as they are.
 */
import { parentPort } from 'node:worker_threads';
import type { FetchedBlock, TokenMap } from '../types.js';
import { processRun } from './process.js';

// Imports are done (they dominate start-up): from now on the pool sends work here instead of running it inline.
parentPort!.postMessage({ ready: true });

parentPort!.on('message', async (m: { id: number; fetched: FetchedBlock[]; tokens: TokenMap }) => {
  try {
    parentPort!.postMessage({ id: m.id, blocks: await processRun(m.fetched, m.tokens) });
  } catch (e) {
    parentPort!.postMessage({ id: m.id, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
  }
});
