/**
 * Starts the Prometheus metrics listener for a command when `--metrics-port` / PAYWATCH_METRICS_PORT is set.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Store } from '../store/db.js';
import { CliError } from './run.js';
import { shortMessage } from '../domain/errors.js';

/**
 * Serves the process's metrics on config.metricsHost:config.metricsPort, with gauges of `store`'s connection use.
 * @returns how to stop it (a no-op when metrics are off)
 * @throws CliError (one line) when the port cannot be bound
 */
export async function startMetricsIfAsked(config: Config, store: Store, log: Logger): Promise<() => Promise<void>> {
  if (config.metricsPort === null) return async () => {};
  const [{ startMetricsServer }, { watchStore }] = await Promise.all([import('../ops/metrics-server.js'), import('../ops/metrics.js')]);
  watchStore(store);
  try {
    const server = await startMetricsServer(config.metricsHost, config.metricsPort);
    log.info({ url: server.url }, `metrics on ${server.url}`);
    return () => server.close();
  } catch (e) {
    throw new CliError(`cannot listen on ${config.metricsHost}:${config.metricsPort} for metrics: ${shortMessage(e)}`);
  }
}
