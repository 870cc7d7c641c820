/**
 * Conversion between Observation objects and `observations` rows, and the public shapes served by the API.
 */
import { unpackIntegrity } from './detail-codec.js';
import type { Selectable } from 'kysely';
import {
  TRANSACTION_MEMBERS,
  type AttributionMethod,
  type BlockObservations,
  type CHAIN_ID,
  type Execution,
  type Integrity,
  type MemberName,
  type MemberValue,
  type NominalPart,
  type Observation,
  type ObservationDetail,
  type ServedMember,
  type StoredMember,
} from '../../domain/observation.js';
import { imitationNotes, nominalOf, servedLegs, type ServedLeg } from '../../domain/listing.js';
import type { TokenList } from '../../domain/token-list.js';
import type { LegRecipientsTable, ObservationsTable } from '../tables/chain.js';
import { paymentColumnsOf } from './payment-columns.js';
import type { PaymentIntel } from '../../payments/attribute.js';
import { detailAttribution, type ServedAttribution } from '../payments/detail-attribution.js';

/** Integrity as a plain object type (a type literal, so it is assignable to the schemas' open object types). */
export type IntegrityJson = { [K in keyof Integrity]: Integrity[K] };

/**
 * The public Transaction members (docs/api-chain.md) as served in lists and the CSV export: the served members of
 * TRANSACTION_MEMBERS (a mapped type literal, assignable to the schemas' open object types).
 */
export type TransactionRow = { [K in ServedMember]: K extends 'integrity' ? IntegrityJson : MemberValue<K> };

/**
 * TransactionRow plus the retained detail members (transaction, receipt, evidence, legs, calls, forensics, unknown);
 * legs carry `asset_listed`.
 */
export type TransactionDetailRow = TransactionRow &
  Omit<ObservationDetail, 'legs' | 'assets' | 'payer' | 'attribution'> & {
    legs: (ServedLeg & { attribution: ServedAttribution | null })[] | null;
    settlement: ObservationDetail['settlement'];
    attribution: ServedAttribution | null;
  };

/** A column read for list rows and the export: every stored member but the in-block `tx_index`. */
export type ListColumn = Exclude<StoredMember, 'tx_index'>;

/** Columns read for list rows and the export (every column but the rank `seq` and in-block `tx_index`), in TRANSACTION_MEMBERS order. */
export const LIST_COLUMNS: readonly ListColumn[] = (Object.keys(TRANSACTION_MEMBERS) as MemberName[]).filter(
  (m): m is ListColumn => TRANSACTION_MEMBERS[m].stored !== null && m !== 'tx_index',
);

type ListRow = Pick<Selectable<ObservationsTable>, ListColumn>;

/** Lower-cases an address-like value; keeps null. */
const lower = (s: string | null) => (s == null ? null : s.toLowerCase());

/**
 * The rows one observation is stored as, before it gets its rank: its observations row (without `seq`), its
 * detail row and its leg recipients. Plain strings and numbers only, so it is cheap to pass between threads
 * (the collector's decode worker builds these, the writer only inserts them).
 */
export interface SerializedObservation {
  /** Lower-case transaction hash. */
  hash: string;
  /** Block timestamp, UTC Unix seconds. */
  time: number;
  row: Omit<ObservationsTable, 'seq'>;
  /** JSON text of the ObservationDetail (ObservationDetailsTable.detail; its seq is assigned at insert time). */
  detail: string;
  /** Distinct leg `to` addresses other than the primary recipient (see LegRecipientsTable). */
  legRecipients: LegRecipientsTable[];
}

/** A block whose observations are serialized for the store (what writePreparedBlocks takes). */
export interface PreparedBlock {
  height: number;
  hash: string;
  /** Block timestamp, UTC Unix seconds. */
  time: number;
  observations: SerializedObservation[];
  /** The parent block's hash: with it, the block gets its `blocks` row (the collector's blocks; seeds have none). */
  parentHash?: string;
  /** True when `hash` was recomputed from the header (integrity stage 2). */
  hashRecomputed?: boolean;
}

/**
 * The rows to insert for `o` (rank assigned at insert time). Addresses are stored lower-case; integrity and
 * detail as JSON text.
 */
export function serializeObservation(o: Observation): SerializedObservation {
  const hash = o.hash.toLowerCase();
  const recipient = lower(o.recipient);
  const legTo = new Set<string>();
  for (const l of o.detail.legs ?? []) {
    const to = lower(l.to);
    if (to && to !== recipient) legTo.add(to);
  }
  return {
    hash,
    time: o.time,
    row: {
      hash,
      time: o.time,
      height: o.height,
      tx_index: o.tx_index,
      chain_id: o.chain_id,
      sender: lower(o.sender),
      recipient,
      asset: o.asset,
      asset_contract: lower(o.asset_contract),
      amount: o.amount,
      nominal_parts: serializeNominalParts(o.nominal_parts),
      fee: o.fee,
      exchange: o.exchange,
      protocol: o.protocol,
      category: o.category,
      execution: o.execution,
      decode: o.decode,
      ...paymentColumnsOf(o.detail, recipient),
      // The matcher's (src/payments/attribute.ts): unknown until it runs over the row.
      service_id: null,
      provider: null,
      attribution_method: null,
      attribution_ambiguous: null,
      integrity: JSON.stringify(o.integrity),
    },
    detail: JSON.stringify(o.detail),
    legRecipients: [...legTo].map((to) => ({ recipient: to, hash, time: o.time, execution: o.execution })),
  };
}

/** A decoded block with its observations serialized (serializeObservation each). */
export function prepareBlock(b: BlockObservations): PreparedBlock {
  return { height: b.height, hash: b.hash, time: b.time, observations: b.observations.map(serializeObservation) };
}

/** NominalParts as stored: compact JSON `[[contract, amount], …]`, or null. */
export function serializeNominalParts(parts: readonly NominalPart[] | null): string | null {
  return parts?.length ? JSON.stringify(parts.map((p) => [p.asset_contract.toLowerCase(), p.amount])) : null;
}

/** The stored NominalParts text back as parts (null stays null). */
export function parseNominalParts(text: string | null): NominalPart[] | null {
  if (text == null) return null;
  return (JSON.parse(text) as [string, string][]).map(([asset_contract, amount]) => ({ asset_contract, amount }));
}

/**
 * The public members of a stored row (numbers converted from PostgreSQL bigint strings; `asset_listed` and
 * `nominal` derived with the token list) with `integrity` last, as ONE object literal: a spread of these members
 * followed by added ones made V8 build every row as a slow dictionary-mode object, which under concurrent exports
 * grew the server by 150–220 MB (docs/decisions.md, "CSV export memory").
 * @param integrity the stored integrity as parsed JSON (lists), or only its score and maximum (the export)
 * @param list the token list the answer follows
 */
export function rowWithIntegrity<I>(
  r: Omit<ListRow, 'integrity'>,
  integrity: I,
  list: TokenList,
): Omit<TransactionRow, 'integrity'> & { integrity: I } {
  return {
    hash: r.hash as `0x${string}`,
    time: Number(r.time),
    height: Number(r.height),
    chain_id: Number(r.chain_id) as typeof CHAIN_ID,
    sender: r.sender,
    recipient: r.recipient,
    asset: r.asset,
    asset_contract: r.asset_contract,
    asset_listed: list.isListed(r.asset_contract),
    amount: r.amount,
    nominal: nominalOf(parseNominalParts(r.nominal_parts), list),
    fee: r.fee,
    exchange: r.exchange,
    protocol: r.protocol,
    category: r.category,
    execution: r.execution as Execution,
    decode: r.decode,
    payer: r.payer,
    self_payment: r.self_payment == null ? null : Number(r.self_payment) === 1,
    client_fingerprint: r.client_fingerprint,
    service_id: r.service_id,
    provider: r.provider,
    attribution_method: r.attribution_method as AttributionMethod | null,
    integrity,
  };
}

/** A stored row as the public Transaction (integrity JSON parsed), following `list`. */
export function rowToTransaction(r: ListRow, list: TokenList): TransactionRow {
  return rowWithIntegrity(r, JSON.parse(unpackIntegrity(r.integrity)) as Integrity, list);
}

/**
 * A stored row with its detail as the public TransactionDetail, following `list` (legs' listing, imitation notes)
 * and `intel` (the transaction's and each leg's attribution, ../payments/detail-attribution.ts).
 */
export function rowToDetail(r: ListRow & { detail: string }, list: TokenList, intel: PaymentIntel): TransactionDetailRow {
  const d = JSON.parse(r.detail) as Partial<ObservationDetail>;
  const attributed = detailAttribution(d.legs ?? null, d.attribution, Number(r.time), intel);
  const legs =
    servedLegs(d.legs ?? null, list, d.assets)?.map((g) => ({ ...g, attribution: attributed.legs.get(g.log_index) ?? null })) ?? null;
  const imitations = imitationNotes(legs, list);
  return {
    ...rowToTransaction(r, list),
    transaction: d.transaction ?? null,
    receipt: d.receipt ?? null,
    evidence: d.evidence ?? null,
    legs,
    calls: d.calls ?? null,
    forensics: imitations.length ? (d.forensics ?? []).concat(imitations) : (d.forensics ?? null),
    unknown: d.unknown ?? null,
    // Absent from details stored before settlements were recognised: unknown, so null.
    settlement: d.settlement ?? null,
    attribution: attributed.attribution,
  };
}
