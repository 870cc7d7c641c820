/**
 * `paywatch collect [--once] [--retry-quarantined]`: runs the collector against the configured node and store.
 * With `--retry-quarantined` it first tries the quarantined blocks again (src/chain/collector/quarantine.ts).
 * With `--once` it collects up to the finalized head read at start and exits 0. Without it, on PostgreSQL, while
 * another collector holds the store it stands by and takes over when that one goes (src/store/chain/collector-lock.ts).
 */
import type { Command } from 'commander';
import { openConfiguredStore } from '../open-store.js';
import { addSettingOptions, levelWasChosen } from '../options.js';
import { backfillProgress, canShowProgress, createLogger } from '../progress.js';
import { action, configFrom, untilSignal } from '../run.js';
import { startMetricsIfAsked } from '../metrics.js';
import { shortMessage } from '../../domain/errors.js';

/** Adds `collect`'s options and action to its command. */
export function register(cmd: Command): void {
  addSettingOptions(cmd, 'collect')
    .option('--once', 'collect up to the current finalized head, then exit 0')
    .option('--retry-quarantined', 'first try the quarantined blocks again (written when they pass, else kept quarantined)')
    .action(
      action(async (opts: Record<string, unknown>) => {
        const config = configFrom(opts);
        const bar = canShowProgress() ? backfillProgress() : null;
        const log = createLogger(config, { progressBar: bar !== null, explicitLevel: levelWasChosen(opts) });
        const store = await openConfiguredStore(config);
        try {
          if (opts.once && !opts.retryQuarantined) {
            const { caughtUp } = await import('../../chain/collector/caught-up.js');
            const seen = await caughtUp(config, store);
            if (seen) {
              bar?.stop();
              log.info(
                { last_block: seen.last_block, finalized_head: seen.finalized_head, source: seen.source },
                'nothing to collect: the store is at the finalized head',
              );
              return;
            }
          }
          const stopMetrics = await startMetricsIfAsked(config, store, log);
          try {
            // Loaded here, not at the top: `--help`, flag errors and a run with nothing to do stay fast (viem and
            // the decoder load slowly).
            const { launchCollector, lostLock, retryQuarantined } = await import('../../chain/collector/index.js');
            const { acquireOrStandBy } = await import('../../store/chain/collector-lock.js');
            const { recordCollectorState } = await import('../../ops/metrics.js');
            const stopping = new AbortController();
            let running: { stop(): void } | null = null;
            void untilSignal().then((s) => {
              log.info({ signal: s }, 'stopping after the write in progress');
              stopping.abort();
              running?.stop();
            });
            try {
              while (!stopping.signal.aborted) {
                // `--once` keeps failing fast when the store is held; otherwise stand by for the holder to go.
                const lock = opts.once
                  ? undefined
                  : await acquireOrStandBy(store, config.db, {
                      signal: stopping.signal,
                      onStandby: (holder) => {
                        recordCollectorState('standby');
                        log.info({ holder_pid: holder, store: store.location }, 'another collector holds the store; standing by');
                      },
                    });
                if (lock === null) break;
                const launched = await launchCollector(
                  config,
                  store,
                  log,
                  { once: Boolean(opts.once), onProgress: bar ? (p) => bar.update(p) : undefined },
                  lock,
                );
                const { collector } = launched;
                running = collector;
                log.info({ source: launched.rpc.source, store: store.location, once: Boolean(opts.once) }, 'collector starting');
                if (stopping.signal.aborted) collector.stop();
                try {
                  if (opts.retryQuarantined) {
                    const r = await retryQuarantined({ store, rpc: launched.rpc, tokens: launched.tokens, log });
                    log.info(
                      { written: r.written, still_quarantined: r.failed.map((f) => f.height), released: r.released },
                      'quarantined blocks tried again',
                    );
                    opts.retryQuarantined = false; // once per command, not again after a lost lock
                  }
                  await collector.run();
                } catch (e) {
                  if (opts.once || !lostLock(e)) throw e;
                  log.warn({ err: shortMessage(e) }, 'lost the collector lock to another collector; standing by');
                  continue;
                } finally {
                  running = null;
                  await launched.release();
                }
                const s = collector.status();
                log.info({ last_block: s.last_block, finalized_head: s.finalized_head }, 'collector stopped');
                break;
              }
            } finally {
              bar?.stop();
            }
          } finally {
            await stopMetrics();
          }
        } finally {
          await store.close();
        }
      }),
    );
}
