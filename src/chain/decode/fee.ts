/**
 * The transaction fee: computed from the receipt and cross-checked against the fee Transfer log.
 * Rule (domain notes, "Fees"): fee atomic = ceil(gasUsed × effectiveGasPrice / 10^12) in 6-decimal fee-token
 * units; the fee is also the receipt's last log, Transfer(feePayer → 0xfeec…) in the fee token.
 */
import { toDecimal } from '../../domain/money.js';
import type { RpcReceipt } from '../types.js';
import { ATTO_PER_FEE_UNIT, FEE_DECIMALS, FEE_MANAGER } from './constants.js';
import { quantity } from './json.js';
import { isTransfer, type DecodedLog } from './logs.js';

export interface FeeFacts {
  /** Exact decimal in fee-token units, or null for fee-free transactions / no receipt. */
  fee: string | null;
  /** Atomic fee computed from gas (string), or null when gas figures are missing. */
  computed_atomic: string | null;
  /** Atomic amount of the fee Transfer log, or null when there is none. */
  logged_atomic: string | null;
  /** Lower-case fee token: receipt.feeToken, else the fee log's emitter, else the transaction's feeToken. */
  fee_token: string | null;
  /** Lower-case fee payer: the fee log's sender, else receipt.feePayer. */
  fee_payer: string | null;
  /** log_index of the fee Transfer, excluded from the legs. */
  log_index: number | null;
  /** Set when computed and logged fee disagree, or the fee log is missing though gas was charged. */
  forensics: Record<string, unknown>[];
}

/**
 * Ceil-divides gas × price (attodollars) into 6-decimal fee-token atomic units.
 * @param gasUsed gas units
 * @param effectiveGasPrice attodollars per gas
 * @example feeAtomic(35770n, 11000000000n) === 394n
 */
export function feeAtomic(gasUsed: bigint, effectiveGasPrice: bigint): bigint {
  const atto = gasUsed * effectiveGasPrice;
  return (atto + ATTO_PER_FEE_UNIT - 1n) / ATTO_PER_FEE_UNIT;
}

/**
 * Finds the fee log: the LAST log of the receipt when it is a Transfer to the fee manager. Earlier Transfers to
 * 0xfeec… (Fee AMM liquidity) are ordinary legs.
 */
export function findFeeLog(logs: DecodedLog[]): DecodedLog | null {
  const last = logs[logs.length - 1];
  return last && isTransfer(last) && String(last.args!.to).toLowerCase() === FEE_MANAGER ? last : null;
}

/**
 * Fee facts of one transaction. `fee` is the computed figure; a disagreeing fee log adds a forensics entry
 * (`fee_mismatch`) rather than replacing it. Fee-free means: no fee log and a computed fee of 0 (or no gas data).
 * @param receipt the node's receipt
 * @param logs its decoded logs
 * @param txFeeToken the transaction's own `feeToken` member (0x76), if any
 */
export function feeOf(receipt: RpcReceipt, logs: DecodedLog[], txFeeToken: unknown): FeeFacts {
  const feeLog = findFeeLog(logs);
  const gasUsed = quantity(receipt.gasUsed);
  const price = quantity(receipt.effectiveGasPrice);
  const computed = gasUsed !== null && price !== null ? feeAtomic(gasUsed, price) : null;
  const logged = feeLog ? BigInt(feeLog.args!.amount as bigint) : null;
  const forensics: Record<string, unknown>[] = [];
  if (computed !== null && logged !== null && computed !== logged)
    forensics.push({
      kind: 'fee_mismatch',
      computed_atomic: computed.toString(),
      logged_atomic: logged.toString(),
      log_index: feeLog!.log_index,
    });
  if (computed !== null && computed > 0n && logged === null)
    forensics.push({ kind: 'fee_log_missing', computed_atomic: computed.toString() });
  const atomic = computed ?? logged;
  const feeFree = feeLog === null && (atomic === null || atomic === 0n);
  const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : null);
  // Who paid is what the fee Transfer moved; anvil's receipt names the sender even for a sponsored transaction.
  const logPayer = feeLog ? String(feeLog.args!.from).toLowerCase() : null;
  const receiptPayer = lower(receipt.feePayer);
  if (logPayer && receiptPayer && logPayer !== receiptPayer)
    forensics.push({ kind: 'fee_payer_mismatch', receipt_fee_payer: receiptPayer, fee_log_payer: logPayer, log_index: feeLog!.log_index });
  return {
    fee: feeFree || atomic === null ? null : toDecimal(atomic, FEE_DECIMALS),
    computed_atomic: computed?.toString() ?? null,
    logged_atomic: logged?.toString() ?? null,
    fee_token: lower(receipt.feeToken) ?? feeLog?.address ?? lower(txFeeToken),
    fee_payer: logPayer ?? receiptPayer,
    log_index: feeLog?.log_index ?? null,
    forensics,
  };
}
