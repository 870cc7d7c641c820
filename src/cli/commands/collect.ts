/**
 * `paywatch collect [--once]`: runs the collector against the configured node and store.
 * With `--once` it collects up to the finalized head read at start and exits 0.
 */
import type { Command } from 'commander';
import { openConfiguredStore } from '../open-store.js';
import { addCollectorOptions, addCommonOptions, levelWasChosen } from '../options.js';
import { backfillProgress, canShowProgress, createLogger } from '../progress.js';
import { action, configFrom, untilSignal } from '../run.js';
import { startMetricsIfAsked } from '../metrics.js';

/** Adds `collect`'s options and action to its command. */
export function register(cmd: Command): void {
  addCollectorOptions(addCommonOptions(cmd, ['rpc', 'from', 'tokenlist', 'metrics']))
    .option('--once', 'collect up to the current finalized head, then exit 0')
    .action(
      action(async (opts: Record<string, unknown>) => {
        const config = configFrom(opts);
        const bar = canShowProgress() ? backfillProgress() : null;
        const log = createLogger(config, { progressBar: bar !== null, explicitLevel: levelWasChosen(opts) });
        const store = await openConfiguredStore(config);
        try {
          if (opts.once) {
            const { caughtUp } = await import('../../chain/collector/caught-up.js');
            const seen = await caughtUp(config, store);
            if (seen) {
              bar?.stop();
              log.info({ last_block: seen.last_block, finalized_head: seen.finalized_head, source: seen.source }, 'nothing to collect: the store is at the finalized head');
              return;
            }
          }
          const stopMetrics = await startMetricsIfAsked(config, store, log);
          try {
            // Loaded here, not at the top: `--help`, flag errors and a run with nothing to do stay fast (viem and
            // the decoder load slowly).
            const { launchCollector } = await import('../../chain/collector/index.js');
            const launched = await launchCollector(config, store, log, { once: Boolean(opts.once), onProgress: bar ? (p) => bar.update(p) : undefined });
            const { collector } = launched;
            log.info({ source: launched.rpc.source, store: store.location, once: Boolean(opts.once) }, 'collector starting');
            void untilSignal().then((s) => {
              log.info({ signal: s }, 'stopping after the write in progress');
              collector.stop();
            });
            try {
              await collector.run();
            } finally {
              bar?.stop();
              await launched.release();
            }
            const s = collector.status();
            log.info({ last_block: s.last_block, finalized_head: s.finalized_head }, 'collector stopped');
          } finally {
            await stopMetrics();
          }
        } finally {
          await store.close();
        }
      }),
    );
}
