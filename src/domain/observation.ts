/**
 * The observation of one finalized transaction: what the collector writes and the public API serves.
 * Addresses are lower-case 0x hex. Money members are exact decimal strings (see ./money.ts) or null when unknown.
 * Source of the shape: the Transaction, Integrity and TransactionDetail objects of docs/api-chain.md.
 */
export const CHAIN_ID = 4217 as const;

export type Execution = 'success' | 'failed' | 'unknown';
export type StageStatus = 'pass' | 'fail' | 'unknown';

/** One evaluated integrity stage (docs/integrity.md). */
export interface IntegrityStage {
  level: number;
  label: string;
  status: StageStatus;
  reason: string;
}

/** The `integrity` member of a transaction. `score` = consecutive passed stages from stage 1. */
export interface Integrity {
  score: number;
  maximum: 5;
  version: string;
  scope: string;
  stages: IntegrityStage[];
  name?: string;
  status?: string;
  label?: string;
  /** ISO 8601 date-time. */
  evaluated_at?: string;
  independent_consensus_verified?: false;
}

/** A TIP-20 value movement inside a transaction (never the fee transfer). `amount` is a decimal string. */
export interface Leg {
  from: string;
  to: string;
  asset: string | null;
  asset_contract: string;
  /** Exact decimal string in token units; atomic integer string when decimals are unknown. */
  amount: string;
  /** Atomic integer string, always present. */
  amount_atomic: string;
  log_index: number;
  memo?: string | null;
  kind?: 'transfer' | 'mint' | 'burn';
}

/**
 * What the sender sent in one token whose `currency()` is "USD" (decimals known), fee excluded: the
 * list-independent part of the nominal value. `nominal` counts only the parts whose token is listed
 * (src/chain/listing.ts), so a changed token list needs no re-collection.
 */
export interface NominalPart {
  /** Lower-case token contract. */
  asset_contract: string;
  /** Exact decimal string in token units. */
  amount: string;
}

/** Retained observation data served only by the detail endpoint. Inner shapes are documented in docs/decoding.md. */
export interface ObservationDetail {
  transaction: Record<string, unknown> | null;
  receipt: Record<string, unknown> | null;
  evidence: Record<string, unknown> | null;
  legs: Leg[] | null;
  calls: Record<string, unknown>[] | null;
  forensics: Record<string, unknown>[] | null;
  unknown: Record<string, unknown>[] | null;
}

/** One observation: the public Transaction members plus the detail. */
export interface Observation {
  hash: `0x${string}`;
  /** Block timestamp, UTC Unix seconds. */
  time: number;
  /** Block height. */
  height: number;
  /** Position of the transaction in its block (ties broken by it; not a public member). */
  tx_index: number;
  chain_id: typeof CHAIN_ID;
  sender: string | null;
  recipient: string | null;
  asset: string | null;
  asset_contract: string | null;
  amount: string | null;
  /** The sender's USD-token parts, one per contract; null when none (see NominalPart). */
  nominal_parts: NominalPart[] | null;
  fee: string | null;
  exchange: string | null;
  protocol: string | null;
  category: string | null;
  execution: Execution;
  decode: string;
  integrity: Integrity;
  detail: ObservationDetail;
}

/** The observations of one finalized block, written atomically with its coverage and the checkpoint. */
export interface BlockObservations {
  height: number;
  hash: `0x${string}`;
  /** Block timestamp, UTC Unix seconds. */
  time: number;
  observations: Observation[];
}
