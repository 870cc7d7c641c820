/**
 * The retention step of the collector (`--retain-days`): between writes, once a minute, it drops what is older than
 * the retention window in batches (src/store/chain/retention.ts) for at most a short time budget, so the next write
 * waits at most that long; a backlog (the first start with retention on an old store) is worked off over the
 * following turns.
 */
import type { Logger } from 'pino';
import type { Store } from '../../store/db.js';
import { dropOlderThan } from '../../store/chain/retention.js';
import { firstLine } from '../rpc.js';

/** What the collector calls between writes. */
export interface RetentionHook {
  /** Drops a budget's worth of expired data when due; never throws (a failure is logged and tried again later). */
  step(): Promise<void>;
}

export interface RetentionOptions {
  /** Milliseconds between checks once nothing is left to drop (default 60,000). */
  intervalMs?: number;
  /** Milliseconds of batches per step at most (default 50; one batch always runs). */
  budgetMs?: number;
  /** Observations per batch (default RETENTION_BATCH of src/store/chain/retention.ts). */
  batch?: number;
  /** The clock, milliseconds since the epoch (tests). */
  now?: () => number;
}

/** Drops observations older than `days` days (block time against the wall clock) while the collector runs. */
export class RetentionStep implements RetentionHook {
  private nextAt = 0;
  private pending = { observations: 0, blocks: 0 };
  private readonly intervalMs: number;
  private readonly budgetMs: number;
  private readonly now: () => number;
  private readonly batch: number | undefined;

  constructor(
    private readonly store: Store,
    private readonly days: number,
    private readonly log: Logger,
    opts: RetentionOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? 60_000;
    this.budgetMs = opts.budgetMs ?? 50;
    this.now = opts.now ?? Date.now;
    this.batch = opts.batch;
  }

  async step(): Promise<void> {
    const now = this.now();
    if (now < this.nextAt) return;
    const cutoff = Math.floor(now / 1000) - this.days * 86_400;
    try {
      const r = await dropOlderThan(this.store, cutoff, this.budgetMs, this.batch);
      this.pending.observations += r.observations;
      this.pending.blocks += r.blocks;
      if (!r.done) {
        this.nextAt = now; // more to drop: again after the next write
        return;
      }
      this.nextAt = now + this.intervalMs;
      if (this.pending.observations || this.pending.blocks)
        this.log.info(
          { ...this.pending, retained_from: new Date(cutoff * 1000).toISOString(), retain_days: this.days },
          'retention dropped observations older than the window',
        );
      this.pending = { observations: 0, blocks: 0 };
    } catch (e) {
      this.nextAt = now + this.intervalMs;
      this.log.warn({ err: firstLine(e) }, 'retention batch failed; trying again later');
    }
  }
}
