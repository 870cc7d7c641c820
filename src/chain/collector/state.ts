/**
 * The collector's live state, as shown by /api/status (`collector`) and saved in the store so that `serve`
 * in another process can show it too. Rates are measured over a sliding window of recent writes.
 */
import type { CollectorState } from '../../store/chain/index.js';

/**
 * - `starting`: connecting, reading the checkpoint;
 * - `catching_up`: more than one batch behind the finalized head (backfill);
 * - `running`: at the finalized head, following it;
 * - `stalled`: the source's finalized head has not advanced for `stallAfterMs`;
 * - `error`: the last attempt failed (see `last_error`); it retries with backoff;
 * - `stopped`: the process stopped it (end of `--once`, or a signal);
 * - `standby`: another collector holds the store's lock (PostgreSQL); this one takes over when it is released.
 */
export type CollectorPhase = 'starting' | 'standby' | 'catching_up' | 'running' | 'stalled' | 'error' | 'stopped';

/** Snapshot of the collector's state. Times are ISO 8601; heights are block heights; null = not known yet. */
export interface CollectorStatus {
  state: CollectorPhase;
  /** Height of the newest block written (the checkpoint). */
  last_block: number | null;
  /** The source's finalized head at the last poll. */
  finalized_head: number | null;
  /** Blocks between the checkpoint and the finalized head. */
  behind_blocks: number | null;
  /** Ingest rate over the last `RATE_WINDOW_MS`: transactions and blocks per second; null before any write. */
  rate: { transactions_per_second: number; blocks_per_second: number } | null;
  /** The last error and when it happened (kept after recovery, for diagnosis). */
  last_error: { message: string; at: string } | null;
  /** The RPC source, credentials removed. */
  source: string;
  started_at: string;
  updated_at: string;
}

/**
 * The form kept in the store (CollectorState of src/store/chain/index.ts), read by /api/status in processes that do not run the
 * collector. `starting` is stored as `running`: the store's states are the public ones.
 */
export function toStoredState(s: CollectorStatus): CollectorState {
  return {
    state: s.state === 'starting' ? 'running' : s.state,
    source: s.source,
    last_block: s.last_block,
    finalized_head: s.finalized_head,
    rate_tx_per_s: s.rate?.transactions_per_second ?? null,
    rate_blocks_per_s: s.rate?.blocks_per_second ?? null,
    last_error: s.last_error?.message ?? null,
    last_error_at: s.last_error?.at ?? null,
    updated_at: s.updated_at,
  };
}

/** Width of the ingest-rate window, milliseconds. */
export const RATE_WINDOW_MS = 30_000;

/**
 * Ingest rate over a sliding window: record each write's block and transaction counts, read per-second rates.
 * Time source injectable for tests; milliseconds.
 */
export class RateMeter {
  private readonly samples: { at: number; blocks: number; txs: number }[] = [];
  private readonly startedAt: number;
  constructor(
    private readonly windowMs = RATE_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = now();
  }

  /** Records a write of `blocks` blocks holding `txs` transactions, just finished. */
  record(blocks: number, txs: number): void {
    this.samples.push({ at: this.now(), blocks, txs });
    this.trim();
  }

  /**
   * Rates over the window: units written in the last `windowMs` divided by the window (or by the time since
   * the meter started, when that is shorter).
   * @returns null when nothing was written in the window
   */
  rate(): { transactions_per_second: number; blocks_per_second: number } | null {
    this.trim();
    if (this.samples.length === 0) return null;
    const now = this.now();
    const span = Math.max(1, Math.min(this.windowMs, now - this.startedAt)) / 1000;
    let blocks = 0;
    let txs = 0;
    for (const s of this.samples) {
      blocks += s.blocks;
      txs += s.txs;
    }
    const round = (x: number) => Math.round(x * 100) / 100;
    return { transactions_per_second: round(txs / span), blocks_per_second: round(blocks / span) };
  }

  private trim(): void {
    const cutoff = this.now() - this.windowMs;
    while (this.samples.length > 0 && this.samples[0].at < cutoff) this.samples.shift();
  }
}
