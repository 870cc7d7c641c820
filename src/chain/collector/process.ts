/**
 * The CPU-bound part of a run, shared by the worker thread and the inline path: evaluate integrity and decode
 * each fetched block. Pure apart from the clock read by evaluateBlockIntegrity.
 */
import type { BlockObservations } from '../../domain/observation.js';
import type { FetchedBlock, TokenMap } from '../types.js';
import { decodeBlock, evaluateBlockIntegrity } from './deps.js';

/**
 * Evaluates integrity and decodes every block of a run, in order.
 * @param tokens metadata for the run's tokens (tokenAddressesOf), already resolved by the caller
 * @returns one BlockObservations per fetched block, same order
 */
export async function processRun(fetched: FetchedBlock[], tokens: TokenMap): Promise<BlockObservations[]> {
  const out: BlockObservations[] = [];
  for (const f of fetched) out.push(decodeBlock(f, tokens, await evaluateBlockIntegrity(f)));
  return out;
}
