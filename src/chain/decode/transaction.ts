/**
 * One finalized transaction → one Observation (docs/decoding.md). Pure: everything comes from the fetched
 * block, the token metadata and the integrity already evaluated.
 */
import { sumDecimals } from '../../domain/money.js';
import { CHAIN_ID, type Execution, type Integrity, type Leg, type NominalPart, type Observation } from '../../domain/observation.js';
import type { FetchedBlock, RpcReceipt, RpcTransaction, TokenMap } from '../types.js';
import { callsOf } from './calls.js';
import { categoryOf, exchangeOf, protocolOf } from './classify.js';
import { ZERO_ADDRESS } from './constants.js';
import { feeOf } from './fee.js';
import { quantity, transactionDetail } from './json.js';
import { legsOf } from './legs.js';
import { decodeLog, logDetail, type DecodedLog } from './logs.js';

/**
 * Decodes transaction `index` of a fetched block.
 * @param fetched the block with its receipts
 * @param index position in `block.transactions`
 * @param tokens metadata of every token the block's logs mention (missing = unknown)
 * @param integrity the transaction's evaluated integrity
 */
export function decodeTransaction(fetched: FetchedBlock, index: number, tokens: TokenMap, integrity: Integrity): Observation {
  const { block } = fetched;
  const tx = block.transactions[index];
  const receipt = fetched.receipts[index] ?? null;
  const sender = typeof tx.from === 'string' ? tx.from.toLowerCase() : null;
  const system = isSystem(tx);
  const calls = callsOf(tx, { isToken: (a) => tokens.get(a)?.decimals != null }, system);
  const firstTarget = calls.find(hasTarget)?.target ?? null;
  const height = Number(quantity(block.number));
  const evidence = {
    block_hash: block.hash.toLowerCase(),
    block_height: height,
    tx_index: index,
    source: fetched.source,
    fetched_at: fetched.fetchedAt,
    finalized_height: fetched.finalizedHeight,
  };
  // Each object below is one literal with every member (no spread of a shared base): V8 then builds it with one
  // fixed shape, where a spread followed by added members makes a slow dictionary-mode object (docs/decisions.md).
  const hash = tx.hash.toLowerCase() as `0x${string}`;
  const time = Number(quantity(block.timestamp));

  if (!receipt) {
    // Without a receipt nothing about effects is known: execution unknown, legs/fee unknown.
    return {
      hash,
      time,
      height,
      tx_index: index,
      chain_id: CHAIN_ID,
      sender,
      recipient: firstTarget,
      asset: null,
      asset_contract: null,
      amount: null,
      nominal_parts: null,
      fee: null,
      exchange: null,
      protocol: null,
      category: system ? 'system' : categoryOf({ system, exchange: null, calls, legs: [], primary: null }),
      execution: 'unknown',
      decode: 'none: no receipt',
      integrity,
      detail: { transaction: transactionDetail(tx), receipt: null, evidence, legs: null, calls, forensics: [], unknown: null },
    };
  }

  const logs = (Array.isArray(receipt.logs) ? receipt.logs : []).map(decodeLog);
  const fee = feeOf(receipt, logs, tx.feeToken);
  const { legs, unknownDecimals, forensics: legForensics } = legsOf(logs, tokens, fee.log_index);
  const primary = legs.find((g) => g.from === sender) ?? legs[0] ?? null;
  const exchange = exchangeOf(calls, logs);
  const unknown = logs.filter((l) => l.event === null).map(unknownLog);
  const undecodedCalls = calls.filter(isUndecodedCall).length;
  const execution = executionOf(receipt);

  return {
    hash,
    time,
    height,
    tx_index: index,
    chain_id: CHAIN_ID,
    sender,
    recipient: primary?.to ?? firstTarget,
    asset: primary?.asset ?? null,
    asset_contract: primary?.asset_contract ?? null,
    amount: primary?.amount ?? null,
    nominal_parts: nominalPartsOf(legs, sender, tokens),
    fee: system ? null : fee.fee,
    exchange,
    protocol: protocolOf(legs, calls, logs),
    category: categoryOf({ system, exchange, calls, legs, primary }),
    execution,
    decode: decodeLevel(unknownDecimals, unknown.length, undecodedCalls),
    integrity,
    detail: {
      transaction: transactionDetail(tx),
      receipt: {
        status: execution,
        gas_used: quantity(receipt.gasUsed)?.toString() ?? null,
        effective_gas_price: quantity(receipt.effectiveGasPrice)?.toString() ?? null,
        cumulative_gas_used: quantity(receipt.cumulativeGasUsed)?.toString() ?? null,
        fee_token: fee.fee_token,
        fee_payer: fee.fee_payer,
        fee_atomic: fee.computed_atomic,
        fee_log_atomic: fee.logged_atomic,
        fee_log_index: fee.log_index,
        logs: logs.map(logDetail),
      },
      evidence,
      legs,
      calls,
      forensics: fee.forensics.concat(legForensics),
      unknown,
    },
  };
}

const hasTarget = (c: { target?: string | null }) => !!c.target;
const isUndecodedCall = (c: { selector?: string | null; function?: unknown }) => !!c.selector && !c.function;
/** An undecoded log as served in `unknown`. */
const unknownLog = (l: DecodedLog) => ({ log_index: l.log_index, address: l.address, topics: l.topics, data: l.data });

/**
 * The list-independent parts of the nominal value: the sender's non-fee legs in tokens whose currency() is "USD"
 * and whose decimals are known, summed per token contract (in first-seen order); null when there is none. Which
 * parts count as dollars depends on the token list and is decided when answers are read (src/domain/listing.ts).
 */
export function nominalPartsOf(legs: Leg[], sender: string | null, tokens: TokenMap): NominalPart[] | null {
  const byContract = new Map<string, string[]>();
  for (const g of legs) {
    const info = tokens.get(g.asset_contract);
    if (g.from !== sender || info?.currency !== 'USD' || info.decimals == null) continue;
    byContract.set(g.asset_contract, [...(byContract.get(g.asset_contract) ?? []), g.amount]);
  }
  if (!byContract.size) return null;
  return [...byContract].map(([asset_contract, amounts]) => ({ asset_contract, amount: sumDecimals(amounts)! }));
}

/** success (status 1), failed (status 0), unknown (anything else). */
function executionOf(receipt: RpcReceipt): Execution {
  const s = quantity(receipt.status);
  return s === 1n ? 'success' : s === 0n ? 'failed' : 'unknown';
}

/** A system transaction: sender is the zero address, or a legacy transaction with r = s = 0 (domain notes). */
export function isSystem(tx: RpcTransaction): boolean {
  if (String(tx.from).toLowerCase() === ZERO_ADDRESS) return true;
  const r = quantity(tx.r);
  const s = quantity(tx.s);
  return r === 0n && s === 0n;
}

/** "full", or "partial: <reasons>" (atomic amounts for unknown decimals, undecoded logs or calls). */
function decodeLevel(unknownDecimals: string[], unknownLogs: number, undecodedCalls: number): string {
  const reasons: string[] = [];
  if (unknownDecimals.length) reasons.push(`atomic amounts, decimals unknown for ${unknownDecimals.join(' ')}`);
  if (unknownLogs) reasons.push(`${unknownLogs} undecoded log(s)`);
  if (undecodedCalls) reasons.push(`${undecodedCalls} undecoded call(s)`);
  return reasons.length ? `partial: ${reasons.join('; ')}` : 'full';
}
