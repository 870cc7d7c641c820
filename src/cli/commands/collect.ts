/**
 * `paywatch collect [--once]`: runs the collector against the configured node and store.
 * With `--once` it collects up to the finalized head read at start and exits 0.
 */
import { Command, Option } from 'commander';
import { openConfiguredStore } from '../open-store.js';
import { addCommonOptions } from '../main.js';
import { backfillProgress, canShowProgress, createLogger } from '../progress.js';
import { action, configFrom, untilSignal } from '../run.js';

/** Collector tuning flags shared by collect, start and demo (configFrom reads them by these names). */
export function addCollectorOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--batch-size <n>', 'blocks fetched and written per run (env PAYWATCH_BATCH_SIZE; default 50)'))
    .addOption(new Option('--rpc-concurrency <n>', 'JSON-RPC HTTP requests in flight (env PAYWATCH_RPC_CONCURRENCY; default 8)'))
    .addOption(new Option('--poll-interval-ms <ms>', 'head poll interval once caught up (env PAYWATCH_POLL_MS; default 1000)'));
}

/** True when the log level was chosen by the user (flag or environment), not defaulted. */
export function levelWasChosen(opts: Record<string, unknown>): boolean {
  return opts.logLevel !== undefined || Boolean(process.env.PAYWATCH_LOG_LEVEL);
}

/** Registers `collect` on the program. */
export function register(program: Command): void {
  addCollectorOptions(addCommonOptions(program.command('collect'), ['rpc', 'from', 'tokenlist']))
    .description('collect finalized Tempo blocks into the store (resumes from the checkpoint)')
    .option('--once', 'collect up to the current finalized head, then exit 0')
    .action(
      action(async (opts: Record<string, unknown>) => {
        const config = configFrom(opts);
        // Loaded here, not at the top: `--help` and flag errors stay fast (viem and the decoder load slowly).
        const { launchCollector } = await import('../../chain/collector/index.js');
        const bar = canShowProgress() ? backfillProgress() : null;
        const log = createLogger(config, { progressBar: bar !== null, explicitLevel: levelWasChosen(opts) });
        const store = await openConfiguredStore(config);
        try {
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
          await store.close();
        }
      }),
    );
}
