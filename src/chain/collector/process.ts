/**
 * The CPU-bound part of a run, shared by the worker thread and the inline path: evaluate integrity, decode and
 * serialize each fetched block for the store. Pure apart from the clock read by evaluateBlockIntegrity.
 * Serializing here (not in the writer) keeps the JSON work on the worker, and what crosses back to the main
 * thread is flat rows of strings, far cheaper to clone than the decoded objects.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FetchedBlock, TokenMap } from '../types.js';
import { checkBlockBudget, processFaultForTests } from './budget.js';
import { blockCommitment, decodeBlock, evaluateBlockIntegrity, prepareBlock, type PreparedBlock } from './deps.js';

/**
 * Evaluates integrity, decodes and serializes every block of a run, in order.
 * @param tokens metadata for the run's tokens (tokenAddressesOf), already resolved by the caller
 * @returns one PreparedBlock per fetched block, same order (for writePreparedBlocks)
 * @throws what the decoder throws; BlockOverBudgetError for a block over its byte budget (./budget.ts)
 */
export async function processRun(fetched: FetchedBlock[], tokens: TokenMap): Promise<PreparedBlock[]> {
  const out: PreparedBlock[] = [];
  for (const f of fetched) {
    processFaultForTests.hook?.(f);
    const commitment = blockCommitment(f);
    const prepared = prepareBlock(decodeBlock(f, tokens, evaluateBlockIntegrity(f, new Date(), commitment)));
    checkBlockBudget(prepared);
    // The `blocks` row (src/store/chain/finality.ts): the parent-hash chain finality certificates are followed down.
    prepared.parentHash = f.block.parentHash;
    prepared.hashRecomputed = commitment.blockHash.match === true;
    out.push(prepared);
    // A run is tens of milliseconds of CPU: yield to the event loop after each block, so the node's answers for
    // the next run are read, and the run after it is requested, while this one is still being processed;
    // otherwise the node waits idle for the whole run.
    await nextTurn();
  }
  return out;
}
