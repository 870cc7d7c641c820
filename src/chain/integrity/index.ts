/**
 * Integrity of each transaction of a finalized block (docs/integrity.md):
 * stage 1 "finalized receipt" and stage 2 "block commitment", scored as the number of consecutive passed stages
 * from stage 1. A stage that cannot be evaluated is `unknown` with the reason, never `pass`.
 * Pure: everything comes from the FetchedBlock; no I/O.
 */
import { quantityNumber as quantity } from '../quantity.js';
import type { Integrity, IntegrityStage } from '../../domain/observation.js';
import type { BlockIntegrity, FetchedBlock, RpcReceipt, RpcTransaction } from '../types.js';
import { blockCommitment, type BlockCommitment, type RootCheck } from './commitment.js';
import { lowerHex } from './rpc-values.js';

export { blockCommitment, type BlockCommitment, type RootCheck, type TransactionHashCheck } from './commitment.js';
export { checkBlockHash, headerHash, readConsensusContext, type ConsensusContext, type HeaderCheck } from './header.js';
export { findInconsistencies } from './consistency.js';
export { encodeReceipt, encodeTransaction, UnsupportedEncodingError } from './encoding.js';

/** Version of the stage rules below; bump it when a rule changes meaning. */
export const INTEGRITY_VERSION = '1';
/** What is checked: one transaction inside one finalized block of one source. */
export const INTEGRITY_SCOPE = 'transaction-in-finalized-block';
/** `maximum` is the constant 5 (docs/integrity.md) (only stages 1 and 2 are defined so far). */
export const INTEGRITY_MAXIMUM = 5 as const;

/** The label of each stage level, as served in `stages[].label`. */
export const STAGE_LABELS = { 1: 'finalized receipt', 2: 'block commitment' } as const;

/** Case-insensitive equality of two hex strings; false when either is not a string. */
function sameHex(a: unknown, b: unknown): boolean {
  return lowerHex(a) !== null && lowerHex(a) === lowerHex(b);
}

/**
 * Stage 1: the block was at or below the source's finalized head when read, and the receipt matches the
 * transaction (transaction hash, block hash, block height, transaction index).
 * Reasons are plain ASCII ("<=", "!="): one non-Latin-1 character (a "≤") made every stored integrity JSON a
 * two-byte string, twice the bytes to build, pass to the writer thread and convert to UTF-8 for the store.
 */
function finalizedReceiptStage(f: FetchedBlock, index: number, tx: RpcTransaction, receipt: RpcReceipt | null | undefined): IntegrityStage {
  const stage = (status: IntegrityStage['status'], reason: string): IntegrityStage => ({
    level: 1,
    label: STAGE_LABELS[1],
    status,
    reason,
  });
  const height = quantity(f.block.number);
  const finalized = Number.isSafeInteger(f.finalizedHeight) ? f.finalizedHeight : null;
  if (height === null) return stage('unknown', `block number ${JSON.stringify(f.block.number)} is not a quantity`);
  if (finalized === null) return stage('unknown', `the source's finalized head was not recorded when block ${height} was read`);
  if (height > finalized) return stage('fail', `block ${height} is above the source's finalized head ${finalized} when read`);
  if (!receipt)
    return stage('unknown', `the node gave no receipt for this transaction (block ${height} is finalized: ${height} <= ${finalized})`);

  const mismatches: string[] = [];
  if (!sameHex(receipt.transactionHash, tx.hash)) mismatches.push(`transaction hash ${receipt.transactionHash} != ${tx.hash}`);
  if (!sameHex(receipt.blockHash, f.block.hash)) mismatches.push(`block hash ${receipt.blockHash} != ${f.block.hash}`);
  if (quantity(receipt.blockNumber) !== height) mismatches.push(`block height ${receipt.blockNumber} != ${height}`);
  if (quantity(receipt.transactionIndex) !== index) mismatches.push(`transaction index ${receipt.transactionIndex} != ${index}`);
  if (!sameHex(tx.blockHash, f.block.hash) || quantity(tx.blockNumber) !== height || quantity(tx.transactionIndex) !== index) {
    mismatches.push(`the transaction's own block hash, height or index disagree with its place in block ${height}`);
  }
  if (mismatches.length > 0) return stage('fail', `receipt does not match the transaction: ${mismatches.join('; ')}`);
  return stage(
    'pass',
    `block ${height} <= finalized head ${finalized} when read from ${f.source}; receipt matches transaction hash, block hash, height and index ${index}`,
  );
}

/** Describes a root check for a stage reason. */
function describeRoot(name: string, r: RootCheck): string {
  if (r.match === true) return `${name} recomputed and matched (${r.expected})`;
  if (r.match === false) return `${name} recomputed as ${r.computed}, header states ${r.expected}`;
  return `${name} not recomputed (${r.reason})`;
}

/** Describes the header hash check for a stage reason; it informs, it does not decide (see ./header.ts). */
function describeHeader(h: BlockCommitment['blockHash']): string {
  if (h.match === true) return `block hash recomputed from the header (${h.encoding} encoding) and matched`;
  return `block hash not reproduced from the header (${h.reason}; not counted)`;
}

/** The block-level part of every stage 2 reason: both roots and the header hash, described once per block. */
function describeRoots(c: BlockCommitment): string {
  return `${describeRoot('transactionsRoot', c.transactionsRoot)}; ${describeRoot('receiptsRoot', c.receiptsRoot)}; ${describeHeader(c.blockHash)}`;
}

/**
 * Stage 2: the transaction's canonical encoding hashes to its hash, and the transactionsRoot recomputed from
 * all the block's transactions equals the header's. The receiptsRoot is recomputed too: a mismatch fails the
 * stage (the receipts served are not the ones the block commits to); when it cannot be recomputed the reason
 * says so and the stage rests on the transactions alone.
 */
function blockCommitmentStage(c: BlockCommitment, roots: string, index: number, tx: RpcTransaction): IntegrityStage {
  const stage = (status: IntegrityStage['status'], reason: string): IntegrityStage => ({
    level: 2,
    label: STAGE_LABELS[2],
    status,
    reason,
  });
  const h = c.transactions[index];
  if (!h) return stage('unknown', `transaction ${index} is not in the block commitment`);
  if (h.match === false)
    return stage(
      'fail',
      `keccak256 of the re-encoded type ${String(tx.type)} transaction is ${h.computed}, not its stated hash ${tx.hash}`,
    );
  if (c.transactionsRoot.match === false) return stage('fail', roots);
  if (c.receiptsRoot.match === false) return stage('fail', roots);
  if (h.match === null) return stage('unknown', `transaction hash not recomputed: ${h.reason}`);
  if (c.transactionsRoot.match === null) return stage('unknown', roots);
  return stage('pass', `keccak256 of the re-encoded type ${String(tx.type)} transaction equals its hash; ${roots}`);
}

/** Number of consecutive passed stages from stage 1. */
function score(stages: IntegrityStage[]): number {
  const firstNotPassed = stages.findIndex((s) => s.status !== 'pass');
  return firstNotPassed === -1 ? stages.length : firstNotPassed;
}

/**
 * Evaluates the integrity of every transaction of a fetched block.
 *
 * @param f the block with full transactions, its receipts (receipts[i] for transactions[i], null = none) and the
 *   source's finalized height when read; a block that findInconsistencies accepted (a missing transactions
 *   array throws TypeError)
 * @param now the evaluation time written to `evaluated_at` (ISO 8601); default the current time
 * @param commitment the block's recomputed commitment when the caller already has it (from blockCommitment(f));
 *   computed here otherwise. Pass it to compute the tries once per block when it also goes into `evidence`.
 * @returns one Integrity per transaction index: maximum 5, version "1", scope "transaction-in-finalized-block",
 *   independent_consensus_verified false, stages 1 and 2, score = consecutive passed stages
 */
export function evaluateBlockIntegrity(f: FetchedBlock, now: Date = new Date(), commitment?: BlockCommitment): BlockIntegrity {
  const c = commitment ?? blockCommitment(f);
  const evaluatedAt = now.toISOString();
  const roots = describeRoots(c);
  return f.block.transactions.map((tx, i): Integrity => {
    const stages = [finalizedReceiptStage(f, i, tx, f.receipts[i]), blockCommitmentStage(c, roots, i, tx)];
    return {
      score: score(stages),
      maximum: INTEGRITY_MAXIMUM,
      version: INTEGRITY_VERSION,
      scope: INTEGRITY_SCOPE,
      stages,
      evaluated_at: evaluatedAt,
      independent_consensus_verified: false,
    };
  });
}
