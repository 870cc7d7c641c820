/**
 * What the finality checks read from a collected block: its height, the hash integrity stage 2 recomputed from
 * its header (src/chain/integrity/header.ts `checkBlockHash`: the collector already has it in
 * `blockCommitment(f).blockHash`), its consensusContext, and, for a boundary block, its `extraData`. Only a
 * recomputed hash is passed on: the node's stated hash alone is never trusted.
 */
import { checkBlockHash, type HeaderCheck, readConsensusContext } from '../integrity/header.js';
import { quantityNumber } from '../quantity.js';
import type { RpcBlock } from '../types.js';
import type { BoundaryBlock } from './key-chain.js';
import type { FinalityInput } from './verify.js';

/**
 * The block side of verifyFinality's input.
 * @param check the block's header check, when the caller has it (else it is computed here)
 * @example verifyFinality({ certificate, ...finalityBlock(f.block, commitment.blockHash) }, options)
 * @returns height (NaN when the block number is not a quantity, which check 2 reports), blockHash null unless the
 *   header reproduced the stated hash, context null before T4 or when malformed (the hash is then not recomputed)
 */
export function finalityBlock(block: RpcBlock, check: HeaderCheck = checkBlockHash(block)): Omit<FinalityInput, 'certificate'> {
  let context: FinalityInput['context'] = null;
  try {
    context = readConsensusContext(block);
  } catch {
    // A malformed context leaves the hash not recomputed (check.match null), so check 3 says unknown first.
  }
  return { height: quantityNumber(block.number) ?? Number.NaN, blockHash: check.match === true ? check.expected : null, context };
}

/**
 * A boundary block for acceptBoundary: its height, recomputed hash and `extraData`.
 * @returns null when the header did not reproduce the stated hash (its extraData is then not bound to anything)
 */
export function boundaryBlock(block: RpcBlock, check: HeaderCheck = checkBlockHash(block)): BoundaryBlock | null {
  const height = quantityNumber(block.number);
  if (check.match !== true || height === null || typeof block.extraData !== 'string') return null;
  return { height, hash: check.expected, extraData: block.extraData };
}
