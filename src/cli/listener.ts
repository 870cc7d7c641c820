/**
 * The life of a listener-only command (`serve`, `verify`): open the configured store, start the listener, wait
 * for SIGINT or SIGTERM, stop the listener, close the store — whatever fails on the way.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Store } from '../store/db.js';
import { openConfiguredLimits, openConfiguredStore } from './open-store.js';
import type { SharedLimits } from '../limits/shared.js';
import { createLogger } from './progress.js';
import { configFrom, untilSignal } from './run.js';
import { startMetricsIfAsked } from './metrics.js';

/**
 * Runs `start` over the store named by the command's options until a signal arrives.
 * @param start starts the listener (given the store, and where per-client limits count) and returns how to stop it
 * @throws ConfigError for bad settings; whatever `start` or openStore throws (store closed first)
 */
export async function serveUntilSignal(
  opts: Record<string, unknown>,
  start: (config: Config, store: Store, log: Logger, limits: SharedLimits) => Promise<() => Promise<void>>,
): Promise<void> {
  const config = configFrom(opts);
  const log = createLogger(config);
  const store = await openConfiguredStore(config, { readers: config.readers });
  const limits = await openConfiguredLimits(config, log);
  try {
    const stopMetrics = await startMetricsIfAsked(config, store, log);
    try {
      const stop = await start(config, store, log, limits);
      const signal = await untilSignal();
      log.info({ signal }, 'shutting down');
      await stop();
    } finally {
      await stopMetrics();
    }
  } finally {
    await limits.close();
    await store.close();
  }
}
