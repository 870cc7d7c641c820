/**
 * Cross-checks of one node answer (a block with full transactions plus its receipts) before the collector
 * stores anything. An answer that fails any check is retried, never stored (docs/integrity.md).
 */
import { quantityNumber as quantity } from '../quantity.js';
import type { FetchedBlock } from '../types.js';
import { lowerHex as hex } from './rpc-values.js';

const HASH32 = /^0x[0-9a-fA-F]{64}$/;

/**
 * Finds every way a fetched block disagrees with itself or with the height it was requested for.
 *
 * Checks: the block's height equals `expectedHeight`; its hash is 32 bytes of hex; each transaction's
 * `blockHash`, `blockNumber` and `transactionIndex` agree with the block and its position; transaction hashes
 * are 32 bytes and unique; `receipts.length` equals the transaction count (a null receipt is allowed: the node
 * gave none); each receipt's `transactionHash`, `transactionIndex`, `blockHash` and `blockNumber` match its
 * transaction. Hashes compare case-insensitively; quantities compare numerically.
 *
 * @param f the block as fetched (see FetchedBlock)
 * @param expectedHeight the block height that was requested
 * @returns one message per problem, each naming the field and both values; an empty array means consistent.
 *   Never throws on malformed input: a missing or malformed field is itself reported.
 */
export function findInconsistencies(f: FetchedBlock, expectedHeight: number): string[] {
  const problems: string[] = [];
  const block = f?.block;
  if (!block || typeof block !== 'object') return ['block missing from the answer'];

  const height = quantity(block.number);
  if (height === null) problems.push(`block number ${JSON.stringify(block.number)} is not a quantity`);
  else if (height !== expectedHeight) problems.push(`block height ${height} differs from requested height ${expectedHeight}`);

  const blockHash = hex(block.hash);
  if (blockHash === null || !HASH32.test(blockHash)) problems.push(`block hash ${JSON.stringify(block.hash)} is not 32 bytes of hex`);

  const txs = block.transactions;
  if (!Array.isArray(txs)) return [...problems, 'block transactions missing or not an array'];

  const seen = new Map<string, number>();
  txs.forEach((tx, i) => {
    if (!tx || typeof tx !== 'object') {
      problems.push(`transaction ${i} is not a full transaction object`);
      return;
    }
    const txHash = hex(tx.hash);
    if (txHash === null || !HASH32.test(txHash)) problems.push(`transaction ${i} hash ${JSON.stringify(tx.hash)} is not 32 bytes of hex`);
    else if (seen.has(txHash)) problems.push(`transaction ${i} hash ${txHash} repeats transaction ${seen.get(txHash)}`);
    else seen.set(txHash, i);
    if (hex(tx.blockHash) !== blockHash) problems.push(`transaction ${i} blockHash ${tx.blockHash} differs from block hash ${block.hash}`);
    if (quantity(tx.blockNumber) !== height)
      problems.push(`transaction ${i} blockNumber ${tx.blockNumber} differs from block height ${block.number}`);
    if (quantity(tx.transactionIndex) !== i)
      problems.push(`transaction ${i} transactionIndex ${tx.transactionIndex} differs from its position ${i}`);
  });

  const receipts = f.receipts;
  if (!Array.isArray(receipts)) return [...problems, 'receipts missing or not an array'];
  if (receipts.length !== txs.length) problems.push(`receipt count ${receipts.length} differs from transaction count ${txs.length}`);

  receipts.forEach((r, i) => {
    if (r === null) return; // no receipt from the node: allowed, integrity stage 1 becomes unknown
    const tx = txs[i];
    if (!tx || typeof tx !== 'object') return; // already reported as a count mismatch
    if (typeof r !== 'object') {
      problems.push(`receipt ${i} is not an object`);
      return;
    }
    if (hex(r.transactionHash) !== hex(tx.hash))
      problems.push(`receipt ${i} transactionHash ${r.transactionHash} differs from transaction hash ${tx.hash}`);
    if (quantity(r.transactionIndex) !== i)
      problems.push(`receipt ${i} transactionIndex ${r.transactionIndex} differs from its position ${i}`);
    if (hex(r.blockHash) !== blockHash) problems.push(`receipt ${i} blockHash ${r.blockHash} differs from block hash ${block.hash}`);
    if (quantity(r.blockNumber) !== height)
      problems.push(`receipt ${i} blockNumber ${r.blockNumber} differs from block height ${block.number}`);
  });
  return problems;
}
