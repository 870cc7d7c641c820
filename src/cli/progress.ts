/**
 * What long-running commands show on the terminal: a progress bar (blocks, tx/s, ETA) while a collector
 * backfills on a TTY, and structured pino logs (JSON lines on stdout) otherwise.
 */
import cliProgress from 'cli-progress';
import pino, { type Logger } from 'pino';
import type { Config } from '../config.js';

/**
 * The process logger: pino JSON lines on stdout at the configured level. On a TTY with a progress bar, only
 * warnings and errors are logged (to stderr), so they do not tear the bar; `--log-level` still wins when given.
 * @param explicitLevel true when the level came from a flag or PAYWATCH_LOG_LEVEL
 */
export function createLogger(config: Config, opts: { progressBar?: boolean; explicitLevel?: boolean } = {}): Logger {
  if (opts.progressBar && !opts.explicitLevel) return pino({ level: 'warn' }, pino.destination(2));
  return pino({ level: config.logLevel });
}

/** True when a progress bar can be drawn (stderr is a terminal). */
export function canShowProgress(): boolean {
  return Boolean(process.stderr.isTTY);
}

/** A backfill progress bar: `update` takes the collector's onProgress reports. */
export interface BackfillProgress {
  update(p: { lastBlock: number; head: number; startHeight: number; transactions: number }): void;
  stop(): void;
}

/**
 * Draws "blocks [bar] done/total | N tx/s | ETA" on stderr. Transactions per second are counted since the bar
 * started; the ETA is cli-progress's estimate from recent block progress.
 */
export function backfillProgress(): BackfillProgress {
  const bar = new cliProgress.SingleBar(
    {
      format: 'blocks [{bar}] {value}/{total} | {tps} tx/s | block {height} | ETA {eta_formatted}',
      stream: process.stderr,
      hideCursor: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  const startedAt = Date.now();
  let txs = 0;
  let started = false;
  return {
    update(p) {
      txs += p.transactions;
      const total = p.head - p.startHeight + 1;
      const done = p.lastBlock - p.startHeight + 1;
      const tps = Math.round(txs / Math.max(0.001, (Date.now() - startedAt) / 1000));
      if (!started) {
        bar.start(total, done, { tps, height: p.lastBlock });
        started = true;
      } else {
        bar.setTotal(total);
        bar.update(done, { tps, height: p.lastBlock });
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
