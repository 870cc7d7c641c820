/**
 * The shapes of chain answers computed by the store (on the main thread or a reader thread, ./readers.ts), apart
 * from the queries that compute them so that both sides can name them.
 */
import type { TransactionRow } from './rows.js';

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
