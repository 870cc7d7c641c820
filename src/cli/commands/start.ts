/**
 * `paywatch start`: the main job in one process — the chain collector, the public API, the provider-intelligence
 * collector (sources + probes on PAYWATCH_INTEL_INTERVAL_SECONDS) and the trust-check listener (--verify-port).
 * The API's /api/status shows the live collector state. SIGINT/SIGTERM stop everything cleanly.
 */
import type { Command } from 'commander';
import { openConfiguredLimits, openConfiguredReadStore, openConfiguredStore } from '../open-store.js';
import { addSettingOptions } from '../options.js';
import { createLogger } from '../progress.js';
import { action, configFrom, untilSignal } from '../run.js';
import { listenApi } from './serve.js';
import { listenVerify } from './verify.js';
import type { AppContext, LiveComponents } from '../../context.js';
import { closeGracefully } from '../../http/fastify.js';
import { withListeningVerifyPort } from '../../http/base-urls.js';
import { startMetricsIfAsked } from '../metrics.js';

/** Adds `start`'s options and action to its command. */
export function register(cmd: Command): void {
  addSettingOptions(cmd, 'start').action(
    action(async (opts: Record<string, unknown>) => {
      const config = configFrom(opts);
      const log = createLogger(config);
      const store = await openConfiguredStore(config, { readers: config.readers });
      const readStore = await openConfiguredReadStore(config, store, log);
      const limits = await openConfiguredLimits(config, log);
      try {
        const stopMetrics = await startMetricsIfAsked(config, store, log);
        const { superviseCollector } = await import('../../chain/collector/supervise.js'); // lazily: see collect.ts
        const collector = superviseCollector(config, store, log);
        const components: LiveComponents = new Map([['collector', () => collector.report()]]);
        const ctx: AppContext = { store, config, components, limits, log };
        const listeners: { app: Parameters<typeof closeGracefully>[0] }[] = [];
        try {
          // The trust check first: the public app advertises the address it really listens on (manifest, explorer).
          const verify = await listenVerify({ ...ctx, log: log.child({ component: 'verify' }) });
          listeners.push(verify);
          const api = await listenApi({ ...ctx, config: withListeningVerifyPort(config, verify.port), readStore });
          listeners.push(api);
          const { startIntelCollector } = await import('../../intel/schedule.js');
          const intel = startIntelCollector({ ...ctx, log: log.child({ component: 'intel' }) });
          log.info(
            { url: api.url, verify: verify.url, source: collector.report().source, store: store.location },
            `collecting; API on ${api.url}/api/status; trust check on ${verify.url}/v1/check`,
          );
          // A fatal collector error (wrong chain; on SQLite a store held by another collector) ends the process like a signal.
          const ended = await Promise.race([untilSignal(), collector.done.then(() => null)]);
          log.info({ signal: ended }, 'shutting down');
          collector.stop();
          await Promise.all([collector.done, intel.stop()]);
        } finally {
          collector.stop();
          await Promise.all(listeners.map((l) => closeGracefully(l.app, config.shutdownGraceSeconds)));
          await collector.done.catch(() => {});
          await stopMetrics();
        }
      } finally {
        await limits.close();
        await readStore?.close();
        await store.close();
      }
    }),
  );
}
