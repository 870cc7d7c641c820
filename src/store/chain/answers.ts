/**
 * The shapes of chain answers computed by the store (on the main thread or a reader thread, ./readers.ts), apart
 * from the queries that compute them so that both sides can name them.
 */
import type { ObservationFilters, SERIES_SPLITS } from '../../domain/filters.js';
import type { ExactSum } from '../../domain/money.js';
import type { TransactionRow } from './rows.js';

/** The counters row of chain_stats, as read once per request; its count and updated_at are the chain's store version. */
export type ChainStats = {
  /** Observations stored now (written minus dropped by retention). */
  count: number;
  ordered: boolean;
  /** Lowest seq still stored while `ordered` (retention drops the oldest ranks first); absent: 0. */
  seqBase?: number;
  /** Oldest block time retained, UTC Unix seconds (older observations were dropped by retention); absent or null: all kept. */
  retainedFrom?: number | null;
  /** Unix seconds of the newest collected block, or null on an empty store. */
  newestBlockTime: number | null;
  /** ISO 8601 time of the last write, or null before the first. */
  updatedAt: string | null;
};

/** A page of transactions with the total number of matches. */
export interface TransactionPage {
  total: number;
  /** ISO 8601 time of the store's last write: the page reflects the data as of then. */
  as_of: string;
  rows: TransactionRow[];
}

/** Metrics over the latest METRICS_WINDOW matches (the contract's "Metrics"). */
export type Metrics = {
  total: number;
  analyzed: number;
  truncated: boolean;
  /** Exact decimal sum; null when no analyzed observation has a known nominal value. */
  nominal: string | null;
  /** Exact decimal sum; null when no analyzed observation has a known fee. */
  fees: string | null;
  nominal_known: number;
  fees_known: number;
  /** Distinct non-null payers among analyzed, self-payments (payer = recipient) left out; null when no payer is known. */
  distinct_payers: number | null;
  /** Distinct non-null recipients among analyzed; null when none is known. */
  distinct_recipients: number | null;
  value_method: string;
  /** success / (success + failed) among analyzed; null when none has a known execution. */
  rate: number | null;
  task_outcomes: null;
};

/**
 * A row of the CSV export: the public Transaction members with integrity reduced to the two numbers the CSV
 * carries (score, maximum), read from the stored JSON by the database (the stages and their reasons, most of a
 * row's bytes, are never read for the export).
 */
export type ExportRow = Omit<TransactionRow, 'integrity'> & { integrity: { score: number; maximum: number } };

/** Counts and exact sums of one group of observations in a series bucket. */
export type SeriesPart = {
  count: number;
  /** Exact decimal sum of known nominal values; null when none is known. */
  nominal: string | null;
  /** Exact decimal sum of known fees (fee-token units); null when none is known. */
  fees: string | null;
};

/** One time bucket of a metrics series: [start, end), clipped to the series' since/until. */
export type SeriesBucket = SeriesPart & {
  /** Inclusive, UTC Unix seconds. */
  start: number;
  /** Exclusive, UTC Unix seconds. */
  end: number;
  nominal_known: number;
  fees_known: number;
  /** The bucket split by execution (always all three members). */
  execution: { success: SeriesPart; failed: SeriesPart; unknown: SeriesPart };
  /** With split=protocol only: the bucket split by protocol (unknown: none identified). */
  protocol?: { mpp: SeriesPart; x402: SeriesPart; unknown: SeriesPart };
  /**
   * The bucket's nominal split by listed token: per listed contract, the observations with a part in it and the
   * exact sum of those parts (the members add up to the bucket's nominal).
   */
  assets: { asset_contract: string; count: number; nominal: string }[];
};

/** A metrics series over [since, until) in equal buckets, aggregating the latest METRICS_WINDOW matches. */
export type MetricsSeries = {
  bucket: 'hour' | 'day';
  bucket_seconds: number;
  since: number;
  until: number;
  /** All matches in [since, until). */
  total: number;
  /** Matches aggregated (the latest 50,000 at most). */
  analyzed: number;
  truncated: boolean;
  /** When truncated, the time of the oldest aggregated match: buckets before it are not counted, its own is partial. */
  analyzed_since: number | null;
  value_method: string;
  /** Listed tokens appearing in `assets`, with the token list's symbol. */
  assets: { asset_contract: string; symbol: string }[];
  buckets: SeriesBucket[];
};

/** The rule behind `nominal` and `fees` in Metrics (value_method). */
export const VALUE_METHOD =
  'nominal-listed-usd-1to1: nominal is the exact sum of the analyzed observations\u2019 nominal values (tokens sent by the sender in non-fee TIP-20 transfers, counted only when the token contract is on the token list AND its currency() is USD, at 1 dollar per token; a token that is not listed is never a dollar, whatever its symbol or currency); observations with unknown nominal are skipped, not counted as zero. fees is the exact sum of known fees in fee-token units (6-decimal TIP-20 USD tokens). Fees are never part of nominal; neither measures revenue.';

/**
 * A position in the public order (time descending, then hash ascending): the last row a keyset step handed over
 * (the step starts after it), or, with `inclusive`, the first row a step starts at.
 */
export type KeysetPosition = { time: number; hash: string; inclusive?: boolean } | null;

/** The parameters of a metrics series: the common filters with both time bounds resolved, and the bucket size. */
export type SeriesRequest = {
  filters: ObservationFilters & { since: number; until: number };
  bucket: 'hour' | 'day';
  /** What each bucket is also split by (absent: execution and assets only). */
  split?: (typeof SERIES_SPLITS)[number];
};

/** One keyset range of a series' window: at most `cap` matches from `start` (null: the newest) in the public order. */
export type SeriesRange = { start: KeysetPosition; cap: number };

/** Running sums of one group of observations (a SeriesPart before formatting). */
export type PartSums = { count: number; nominal: ExactSum; fees: ExactSum };

/** Running sums of one bucket. */
export type BucketSums = {
  all: PartSums;
  execution: { success: PartSums; failed: PartSums; unknown: PartSums };
  /** By protocol (summed whatever the split; served with split=protocol). */
  protocol: { mpp: PartSums; x402: PartSums; unknown: PartSums };
  /** Per listed contract: observations with a part in it, and the sum of those parts. */
  assets: Record<string, { count: number; nominal: ExactSum }>;
};

/** The exact sums of one range of a series' window, per bucket (index 0 is the bucket holding `since`). */
export type SeriesSums = {
  analyzed: number;
  /** Time of the oldest match summed (Unix seconds); null when none. */
  oldest: number | null;
  buckets: BucketSums[];
};
