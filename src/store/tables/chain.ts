/**
 * Tables of the chain area (created by ../migrations/chain.ts). Integer columns are `bigint` on PostgreSQL,
 * which `pg` returns as strings: readers convert with Number() (heights, seconds and counts stay far below 2^53).
 */
import type { NullableAs, StoredMember, TRANSACTION_MEMBERS } from '../../domain/observation.js';

/** The TypeScript type of each column kind (src/domain/observation.ts StoredAs); JSON columns hold JSON text. */
export interface ColumnTypes {
  bigint: number | string;
  integer: number;
  text: string;
  json: string;
}

/**
 * The `observations` columns that hold an observation's members (TRANSACTION_MEMBERS with a `stored` kind).
 * Money columns are exact decimal TEXT, never numeric; `integrity` is JSON text of the Integrity member;
 * `nominal_parts` is JSON text `[[contract, amount], …]` of the NominalParts, or null: list-independent, so
 * `nominal` is derived from it with the token list when read (migration chain_0004).
 */
export type ObservationColumns = { [K in StoredMember]: NullableAs<K, ColumnTypes[(typeof TRANSACTION_MEMBERS)[K]['stored']]> };

/** One row per observed transaction (primary key: hash): its members' columns plus its rank. */
export interface ObservationsTable extends ObservationColumns {
  /** Dense insertion rank 0..n-1; while chain_stats.ordered = 1 it follows the public sort (see ../chain/query.ts). */
  seq: number | string;
}

/**
 * The retained detail of one observation (primary key: its observations row's `seq`), written in the same
 * transaction as that row and read only by the detail endpoint, so lists, counts, metrics and export never read
 * it. Keyed by seq, not hash (migration chain_0003): seq grows with every write, so details are appended in key
 * order, and an integer key (SQLite's rowid itself) needs no second index of 66-character hashes.
 */
export interface ObservationDetailsTable {
  /** The observations row's seq (bigint: a string from PostgreSQL). */
  seq: number | string;
  /**
   * JSON text of ObservationDetail (transaction, receipt, evidence, legs, calls, forensics, unknown) in rows
   * written before migration chain_0007; '' once `packed` holds it.
   */
  detail: string;
  /** The detail compressed (../chain/detail-codec.ts packDetail); null only in rows not yet packed (chain_0007). */
  packed: Uint8Array | null;
}

/**
 * One row per (leg recipient, observation) whose TIP-20 legs pay an address other than the observation's
 * primary `recipient` (primary key: recipient, hash). Time and execution are copied from the observation
 * (never rewritten) so "payments received by X" is one index range without reading observations or details.
 */
export interface LegRecipientsTable {
  /** Lower-case 0x address a leg's `to` names. */
  recipient: string;
  hash: string;
  /** Block timestamp, UTC Unix seconds. */
  time: number | string;
  execution: string;
}

/** Merged, non-overlapping intervals of collected block heights (a gap is a gap). */
export interface CoverageTable {
  first: number | string;
  last: number | string;
}

/** Single row (id = 1): the last block written in order by the collector. */
export interface CheckpointTable {
  id: number;
  height: number | string;
  hash: string;
  /** ISO 8601. */
  updated_at: string;
}

/** Single row (id = 1): the collector's recorded state (CollectorState in ../chain/checkpoint.ts). */
export interface CollectorStateTable {
  id: number;
  state: string;
  source: string;
  last_block: number | string | null;
  finalized_head: number | string | null;
  rate_tx_per_s: number | null;
  rate_blocks_per_s: number | null;
  last_error: string | null;
  last_error_at: string | null;
  updated_at: string;
}

/**
 * Single row (id = 1): counters maintained by every write, so `total` and rank arithmetic need no full scans.
 * `ordered` = 1 while every insert so far came after all earlier rows in the public sort order
 * (time descending, then hash ascending), which makes `seq` a usable rank.
 */
export interface ChainStatsTable {
  id: number;
  observation_count: number | string;
  ordered: number;
  /** Sort key of the row with the highest seq (null when empty). */
  last_time: number | string | null;
  last_hash: string | null;
  /** Newest collected block timestamp (blocks without transactions included), UTC Unix seconds. */
  newest_block_time: number | string | null;
  /** ISO 8601 time of the last write; the lists' `as_of`. */
  updated_at: string | null;
  /**
   * Details of seq in [pack_next, pack_end) may still be JSON text (a store written before migration chain_0007,
   * packed by ../chain/pack-details.ts); both null when every detail is packed.
   */
  pack_next: number | string | null;
  pack_end: number | string | null;
  /**
   * Observations deleted by retention (migration chain_0011, ../chain/retention.ts): the stored count is
   * observation_count − dropped, and in an ordered store the lowest retained seq is `dropped`.
   */
  dropped: number | string;
  /** Oldest block time retained (UTC Unix seconds: everything older was dropped), or null when nothing was dropped. */
  retained_from_time: number | string | null;
  /** Lowest block height retained after the last drop, or null when nothing was dropped. */
  retained_from_height: number | string | null;
  /**
   * Rows of seq in [payments_next, payments_end) were stored before migration chain_0009 and may still lack their
   * payer, self_payment and fingerprints (../chain/backfill-payments.ts); both null when none is left.
   */
  payments_next: number | string | null;
  payments_end: number | string | null;
  /** The last intel_offers id the attribution pass applied to stored rows (src/store/payments); null: none yet. */
  payments_offer_id: number | string | null;
}

/** A block whose processing failed (src/store/chain/quarantine.ts); `quarantined_at` set = a gap collection moved past. */
export interface QuarantinedBlocksTable {
  height: number | string;
  hash: string;
  /** The last failure, one line. */
  reason: string;
  /** Failed attempts so far. */
  attempts: number;
  /** ISO 8601. */
  first_failed_at: string;
  /** ISO 8601. */
  last_failed_at: string;
  /** ISO 8601; null while the block is still retried in order. */
  quarantined_at: string | null;
}

/**
 * One row per collected block, empty ones included (migration chain_0006), so the parent-hash chain and the
 * finality certificates can be re-checked (`paywatch integrity verify`). Hashes are 32 raw bytes (BLOB/bytea).
 */
export interface BlocksTable {
  height: number | string;
  /** The block hash (32 bytes). */
  hash: Uint8Array;
  parent_hash: Uint8Array;
  /** Block timestamp, UTC Unix seconds (bounds the observations' time index when finality upgrades them). */
  time: number | string;
  /** Observations written for it (the finality counts add these). */
  observations: number;
  /** 1 when the hash was recomputed from the header (integrity stage 2), else 0: only then can a certificate bind it. */
  recomputed: number;
  /** The finalization certificate of this very block, when one was checked here; else null. */
  certificate: Uint8Array | null;
  /** Height of the certificate check that covers it (finality_checks.height); null: awaiting certificate. */
  finality: number | string | null;
}

/** One row per certificate checked (its block's height): the result served as the detail's `evidence.finality`. */
export interface FinalityChecksTable {
  height: number | string;
  /** verified | failed | unknown. */
  status: string;
  /** JSON text of FinalityEvidence (src/chain/consensus/evidence.ts) plus `block_hash`. */
  evidence: string;
  /**
   * ISO 8601: when the check was recorded, served as the covered observations' integrity `evaluated_at`
   * (../chain/finality-at-read.ts); null for checks recorded before chain_0015_finality_at_read.
   */
  checked_at: string | null;
}

/** Single row (id = 1): finality counters kept as the collector writes, the key chain and the last witness alarm. */
export interface FinalityStateTable {
  id: number;
  /** Observations in verified / failed blocks (unknown = observation_count − both). */
  verified: number | string;
  failed: number | string;
  last_verified_height: number | string | null;
  /** JSON text of the KeyChain (src/chain/consensus/key-chain.ts); null: anchored anew at start. */
  key_chain: string | null;
  /** JSON text of the last witness disagreement, or null. */
  alarm: string | null;
  updated_at: string | null;
}

/** Amount columns of a rollup row: an exact sum whole + frac_hi/10^9 + frac_lo/10^18 (+ big), ../chain/rollup-amounts.ts. */
export interface RollupAmountColumns {
  whole: number | string;
  frac_hi: number | string;
  frac_lo: number | string;
  /** Exact decimal string of amounts the integer columns cannot hold, or null. */
  big: string | null;
}

/**
 * Payment rollups per payer (../chain/rollups.ts; layout of migration chain_0013): payments and summed amounts per
 * (dimension, subject, payer, UTC day, protocol, self, method, client, contract), kept in the observations' own write
 * transaction.
 */
export interface PaymentRollupsTable extends RollupAmountColumns {
  /** `service` (subject: service_id) or `recipient` (subject: lower-case address). */
  dim: string;
  subject: string;
  /** Lower-case payer address. */
  payer: string;
  /** floor(block time / 86,400): the UTC day number. */
  day: number | string;
  /** mpp, x402 or unknown. */
  protocol: string;
  /** 1 for self-payments (payer = recipient), else 0. */
  self: number | string;
  /** Attribution method (dim service), else ''. */
  method: string;
  /** MPP client fingerprint (dim service), '' when anonymous, none, or dim recipient. */
  client: string;
  /** Token contract of the amount columns ('' for payments with no nominal part). */
  contract: string;
  /** The service's provider domain (dimension service), else null. */
  provider: string | null;
  /** Payments counted on this row (each payment on the row of its first contract). */
  payments: number | string;
  /** Earliest and latest payment in the row, UTC Unix seconds. */
  first_time: number | string;
  last_time: number | string;
}

/** Payment rollups per (dimension service/recipient/payer, subject, UTC day, protocol, self, contract), what rankings sum. */
export interface PaymentDaysTable extends RollupAmountColumns {
  dim: string;
  subject: string;
  day: number | string;
  protocol: string;
  self: number | string;
  contract: string;
  provider: string | null;
  payments: number | string;
}

/** Per (dimension, subject, payer): an upper bound of the pair's non-self payments (src/store/chain/payer-pairs.ts). */
export interface PaymentPayerTotalsTable {
  dim: string;
  subject: string;
  payer: string;
  /** Sum of ceil(part amount × 10^6) over every token part under 10^6 units. */
  bound: number | string;
  /** Parts of 10^6 units or more (no bound). */
  huge: number | string;
}

/** Payers (other than the subject) whose latest payment to a subject, in a protocol or '*' (any), fell on a UTC day. */
export interface PaymentLastDaysTable {
  dim: string;
  subject: string;
  protocol: string;
  day: number | string;
  payers: number | string;
}

/** payment_last_days summed per week of WEEK_DAYS days (../chain/rollups.ts, migration chain_0023). */
export interface PaymentLastWeeksTable {
  dim: string;
  subject: string;
  protocol: string;
  week: number | string;
  payers: number | string;
}

/**
 * Running (cumulative) payment totals per (dimension, protocol or '*', subject, self, contract, UTC day)
 * (../chain/rollup-running.ts, migration chain_0016): the day's own payments and amounts, and `cum_*` the sums of
 * the group's rows up to and including that day, so a window's sums are a difference of two rows.
 */
export interface PaymentRunningTable extends RollupAmountColumns {
  dim: string;
  protocol: string;
  subject: string;
  self: number | string;
  contract: string;
  day: number | string;
  payments: number | string;
  cum_payments: number | string;
  cum_whole: number | string;
  cum_hi: number | string;
  cum_lo: number | string;
  /** Exact decimal string: the group's `big` parts up to and including the day, or null. */
  cum_big: string | null;
}

/** A running group's totals (the cumulative values of its latest row), its latest day and provider. */
export interface PaymentTotalsTable extends RollupAmountColumns {
  dim: string;
  protocol: string;
  subject: string;
  self: number | string;
  contract: string;
  provider: string | null;
  payments: number | string;
  last_day: number | string;
}

/**
 * One row per (address, token contract): the first observed successful inflow of that token into the address
 * (../chain/first-fundings.ts). First by (height, tx_index); kept when retention drops the observation (it stays
 * the first one observed).
 */
export interface FirstFundingsTable {
  /** Lower-case address that received the inflow (the primary leg's recipient). */
  address: string;
  /** Lower-case token contract of the inflow. */
  contract: string;
  /** Lower-case payer of that inflow. */
  funder: string;
  height: number | string;
  tx_index: number | string;
  /** Block time, UTC Unix seconds. */
  time: number | string;
  hash: string;
}

export interface ChainTables {
  payment_running: PaymentRunningTable;
  payment_totals: PaymentTotalsTable;
  first_fundings: FirstFundingsTable;
  payment_rollups: PaymentRollupsTable;
  payment_days: PaymentDaysTable;
  payment_payer_totals: PaymentPayerTotalsTable;
  payment_last_days: PaymentLastDaysTable;
  payment_last_weeks: PaymentLastWeeksTable;
  observations: ObservationsTable;
  observation_details: ObservationDetailsTable;
  leg_recipients: LegRecipientsTable;
  coverage: CoverageTable;
  checkpoint: CheckpointTable;
  collector_state: CollectorStateTable;
  chain_stats: ChainStatsTable;
  quarantined_blocks: QuarantinedBlocksTable;
  blocks: BlocksTable;
  finality_checks: FinalityChecksTable;
  finality_state: FinalityStateTable;
}
