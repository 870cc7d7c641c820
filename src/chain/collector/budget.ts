/**
 * One block's budget at the process step (processRun): the bytes its serialized observations take, each and in
 * all (CHAIN_DATA_LIMITS observation_bytes and block_bytes). A block over it fails the way a block whose decode
 * throws fails: the turn fails and, after block_attempts turns, the block is quarantined (./quarantine.ts). The
 * caps on metadata, logs, legs and detail bytes (src/chain/decode/limits.ts) keep normal and hostile blocks far
 * below it; this is the last line if one of them does not hold.
 */
import { PaywatchError } from '../../domain/errors.js';
import type { FetchedBlock } from '../types.js';
import { CHAIN_DATA_LIMITS } from '../decode/limits.js';
import type { PreparedBlock, SerializedObservation } from '../../store/chain/index.js';

/** A block's serialized observations exceed CHAIN_DATA_LIMITS observation_bytes or block_bytes. */
export class BlockOverBudgetError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'block_over_budget' });
  }
}

/**
 * Test-only fault injection (test/chain/quarantine.test.ts): when set, called with each block before it is
 * processed; what it throws fails that block as a decoder throw would. A block whose decode throws cannot be
 * produced on anvil (its answers are always well-formed), so the tests inject one here. Never set outside tests.
 */
export const processFaultForTests: { hook: ((f: FetchedBlock) => void) | null } = { hook: null };

/** UTF-8 bytes an observation takes in the store: its row's text and numbers, its detail and its leg recipients. */
export function observationBytes(o: SerializedObservation): number {
  let n = Buffer.byteLength(o.detail, 'utf8');
  for (const v of Object.values(o.row)) n += typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : 8;
  for (const l of o.legRecipients) n += Buffer.byteLength(l.recipient, 'utf8') + Buffer.byteLength(l.hash, 'utf8') + 16;
  return n;
}

/**
 * Checks a prepared block against its byte budget.
 * @throws BlockOverBudgetError naming the transaction or the block and the cap
 */
export function checkBlockBudget(b: PreparedBlock): void {
  const perObservation = CHAIN_DATA_LIMITS.observation_bytes.value;
  const perBlock = CHAIN_DATA_LIMITS.block_bytes.value;
  let total = 0;
  for (const o of b.observations) {
    const n = observationBytes(o);
    if (n > perObservation)
      throw new BlockOverBudgetError(`transaction ${o.hash} takes ${n} bytes serialized; the cap is ${perObservation} (observation_bytes)`);
    total += n;
  }
  if (total > perBlock)
    throw new BlockOverBudgetError(`block ${b.height} takes ${total} bytes serialized; the cap is ${perBlock} (block_bytes)`);
}
