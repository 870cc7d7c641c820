/**
 * One finalized transaction → one Observation (docs/decoding.md). Pure: everything comes from the fetched
 * block, the token metadata and the integrity already evaluated.
 */
import { sumDecimals } from '../../domain/money.js';
import { CHAIN_ID, type Execution, type Integrity, type Leg, type NominalPart, type Observation } from '../../domain/observation.js';
import type { FetchedBlock, RpcLog, RpcReceipt, RpcTransaction, TokenMap } from '../types.js';
import { capNote, envelopeOf, jsonBytes, mayExceedDetailCap } from './bounds.js';
import { mapped } from './arrays.js';
import { callsOf } from './calls.js';
import { categoryOf, exchangeOf, protocolOf } from './classify.js';
import { ZERO_ADDRESS } from './constants.js';
import { feeOf } from './fee.js';
import { quantity, transactionDetail } from './json.js';
import { legsOf } from './legs.js';
import { CHAIN_DATA_LIMITS } from './limits.js';
import { decodeLog, logDetail, type DecodedLog } from './logs.js';
import { assetsOf, attributionOf, primaryLeg, tokenForensics } from './payments.js';
import { markSettlements } from './settlement.js';

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
  const firstTarget = firstTargetOf(calls);
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
    return bounded(tx, [], calls.length, {
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
      detail: {
        transaction: transactionDetail(tx),
        receipt: null,
        evidence,
        legs: null,
        calls,
        forensics: [],
        unknown: null,
        assets: null,
        payer: null,
        settlement: null,
        attribution: null,
      },
    });
  }

  const rawLogs: RpcLog[] = Array.isArray(receipt.logs) ? receipt.logs : [];
  const execution = executionOf(receipt);
  const overLogs = rawLogs.length > LOGS_CAP;
  // Beyond the logs cap only the last log is read, for the fee; everything else about the logs stays unknown.
  const logs = overLogs ? [decodeLog(rawLogs[rawLogs.length - 1], rawLogs.length - 1)] : mapped(rawLogs, decodeLog);
  const fee = feeOf(receipt, logs, tx.feeToken);
  const { legs, unknownDecimals, forensics: legForensics } = overLogs ? noLegs() : legsOf(logs, tokens, fee.log_index);
  const settlementForensics = markSettlements(logs, legs);
  const primary = primaryLeg(legs, sender);
  const exchange = overLogs ? null : exchangeOf(calls, logs);
  const unknown = overLogs ? [] : unknownLogsOf(logs);
  const undecodedCalls = undecodedCallsOf(calls);
  const receiptDetail = {
    status: execution,
    gas_used: quantity(receipt.gasUsed)?.toString() ?? null,
    effective_gas_price: quantity(receipt.effectiveGasPrice)?.toString() ?? null,
    cumulative_gas_used: quantity(receipt.cumulativeGasUsed)?.toString() ?? null,
    fee_token: fee.fee_token,
    fee_payer: fee.fee_payer,
    fee_atomic: fee.computed_atomic,
    fee_log_atomic: fee.logged_atomic,
    fee_log_index: fee.log_index,
    logs: overLogs ? null : logs.map(logDetail),
  };
  const observation: Observation = {
    hash,
    time,
    height,
    tx_index: index,
    chain_id: CHAIN_ID,
    sender,
    recipient: primary?.to ?? firstTarget,
    asset: primary ? (tokens.get(primary.asset_contract)?.symbol ?? null) : null,
    asset_contract: primary?.asset_contract ?? null,
    amount: primary?.amount ?? null,
    nominal_parts: nominalPartsOf(legs, sender, tokens),
    fee: system ? null : fee.fee,
    exchange,
    protocol: protocolOf(legs, calls, logs),
    category: categoryOf({ system, exchange, calls, legs, primary }),
    execution,
    decode: decodeLevel(unknownDecimals, overLogs ? 0 : unknownLogCountOf(logs), undecodedCalls),
    integrity,
    detail: {
      transaction: transactionDetail(tx),
      receipt: receiptDetail,
      evidence,
      legs,
      calls,
      forensics: fee.forensics.concat(legForensics, settlementForensics, tokenForensics(contractsOf(legs), tokens)),
      unknown,
      assets: assetsOf(legs, tokens),
      payer: primary?.payer ?? null,
      settlement: legs.find((g) => g.settlement != null)?.settlement ?? null,
      attribution: attributionOf(legs),
    },
  };

  // The caps (./limits.ts): a transaction beyond one is stored reduced, and the rest of its block goes on.
  if (overLogs)
    return reduced(
      observation,
      capNote('logs_per_transaction', rawLogs.length, 'logs are not decoded: no legs, venue or undecoded logs; only the fee is read'),
      `${rawLogs.length} logs exceed the cap of ${LOGS_CAP} per transaction; logs not decoded`,
    );
  return bounded(tx, rawLogs, calls.length, observation);
}

/** `o`, or `o` reduced when its legs or its detail's bytes are beyond their caps. */
function bounded(tx: RpcTransaction, rawLogs: readonly RpcLog[], calls: number, o: Observation): Observation {
  const legs = o.detail.legs?.length ?? 0;
  if (legs > LEGS_CAP)
    return reduced(o, capNote('legs_per_transaction', legs, KEPT), `${legs} legs exceed the cap of ${LEGS_CAP} per transaction; ${KEPT}`);
  if (mayExceedDetailCap(tx, rawLogs, { calls, legs })) {
    const bytes = jsonBytes(o.detail);
    if (bytes > DETAIL_CAP)
      return reduced(o, capNote('detail_bytes', bytes, KEPT), `detail of ${bytes} bytes exceeds the cap of ${DETAIL_CAP}; ${KEPT}`);
  }
  return o;
}

const LOGS_CAP = CHAIN_DATA_LIMITS.logs_per_transaction.value;
const LEGS_CAP = CHAIN_DATA_LIMITS.legs_per_transaction.value;
const DETAIL_CAP = CHAIN_DATA_LIMITS.detail_bytes.value;
const KEPT = 'legs, logs and calls not kept, nominal unknown';
const noLegs = () => ({ legs: [] as Leg[], unknownDecimals: [] as string[], forensics: [] as Record<string, unknown>[] });

/**
 * `o` as stored beyond a cap: its top-level members but `nominal_parts` (null: the legs behind a value are not
 * kept), a `decode` that starts with the cap, and a detail of bounded size: the transaction's envelope, the
 * receipt without logs, no legs, calls or undecoded logs, the cap note first in forensics (then the fee notes and
 * the primary token's metadata notes), and the primary token's symbol alone in `assets`.
 */
function reduced(o: Observation, note: Record<string, unknown>, reason: string): Observation {
  const d = o.detail;
  const primary = o.asset_contract;
  const kept = (f: Record<string, unknown>) =>
    FEE_NOTES.has(String(f.kind)) || (primary !== null && f.asset_contract === primary && METADATA_NOTES.has(String(f.kind)));
  return {
    ...o,
    nominal_parts: null,
    decode: `partial: ${reason}${o.decode.startsWith('partial: ') ? `; ${o.decode.slice('partial: '.length)}` : ''}`,
    detail: {
      transaction: d.transaction && envelopeOf(d.transaction),
      receipt: d.receipt && { ...d.receipt, logs: null },
      evidence: d.evidence,
      legs: null,
      calls: null,
      forensics: [note, ...(d.forensics ?? []).filter(kept)],
      unknown: null,
      assets: d.assets && (primary !== null ? { [primary]: d.assets[primary] ?? null } : {}),
      payer: d.payer ?? null,
      settlement: d.settlement ?? null,
      attribution: d.attribution ?? null,
    },
  };
}

const FEE_NOTES = new Set(['fee_mismatch', 'fee_log_missing', 'fee_payer_mismatch']);
const METADATA_NOTES = new Set(['oversized_metadata', 'invalid_metadata', 'bidi_override', 'metadata_call_failed']);

/** Distinct token contracts of the legs, in first-seen order. */
const contractsOf = (legs: readonly Leg[]) => new Set(legs.map((g) => g.asset_contract));

// Loops and counts instead of find/filter/map results, whose V8 maps differ when empty (./arrays.ts).

/** The first call's target, or null (what calls.find(c => c.target)?.target gives). */
function firstTargetOf(calls: readonly { target?: string | null }[]): string | null {
  for (let i = 0; i < calls.length; i++) {
    const t = calls[i]!.target;
    if (t) return t;
  }
  return null;
}

/** Calls with a selector the decoder could not name. */
function undecodedCallsOf(calls: readonly { selector?: string | null; function?: unknown }[]): number {
  let n = 0;
  for (let i = 0; i < calls.length; i++) if (calls[i]!.selector && !calls[i]!.function) n++;
  return n;
}

/** Logs no event matched. */
function unknownLogCountOf(logs: readonly DecodedLog[]): number {
  let n = 0;
  for (let i = 0; i < logs.length; i++) if (logs[i]!.event === null) n++;
  return n;
}

/** The logs no event matched, as stored in the detail's `unknown` (one array literal: one allocation site). */
function unknownLogsOf(logs: readonly DecodedLog[]): ReturnType<typeof unknownLog>[] {
  const out: ReturnType<typeof unknownLog>[] = [];
  for (let i = 0; i < logs.length; i++) if (logs[i]!.event === null) out.push(unknownLog(logs[i]!));
  return out;
}
/** An undecoded log as served in `unknown`. */
const unknownLog = (l: DecodedLog) => ({ log_index: l.log_index, address: l.address, topics: l.topics, data: l.data });

/**
 * The list-independent parts of the nominal value: what was paid in the transaction's non-fee legs, i.e. the
 * legs the sender sent plus the legs that settle an authorization (the payer's, submitted by a facilitator), in
 * tokens whose currency() is "USD" and whose decimals are known, summed per token contract (in first-seen order);
 * null when there is none. Which parts count as dollars depends on the token list and is decided when answers are
 * read (src/domain/listing.ts).
 */
export function nominalPartsOf(legs: Leg[], sender: string | null, tokens: TokenMap): NominalPart[] | null {
  const byContract = new Map<string, string[]>();
  for (const g of legs) {
    const info = tokens.get(g.asset_contract);
    if ((g.from !== sender && g.settlement == null) || info?.currency !== 'USD' || info.decimals == null) continue;
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

const NAMED = CHAIN_DATA_LIMITS.decode_note_addresses.value;

/**
 * "full", or "partial: <reasons>" (atomic amounts for unknown decimals, naming at most three contracts, undecoded
 * logs or calls).
 */
function decodeLevel(unknownDecimals: string[], unknownLogs: number, undecodedCalls: number): string {
  const reasons: string[] = [];
  if (unknownDecimals.length) {
    const named = unknownDecimals.slice(0, NAMED).join(' ');
    const more = unknownDecimals.length - NAMED;
    reasons.push(`atomic amounts, decimals unknown for ${named}${more > 0 ? ` and ${more} more` : ''}`);
  }
  if (unknownLogs) reasons.push(`${unknownLogs} undecoded log(s)`);
  if (undecodedCalls) reasons.push(`${undecodedCalls} undecoded call(s)`);
  return reasons.length ? `partial: ${reasons.join('; ')}` : 'full';
}
