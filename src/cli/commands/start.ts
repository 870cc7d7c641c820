/**
 * `paywatch start`: the main job in one process — the chain collector, the public API, the provider-intelligence
 * collector (sources + probes on PAYWATCH_INTEL_INTERVAL_SECONDS) and the trust-check listener (--verify-port).
 * The API's /api/status shows the live collector state. SIGINT/SIGTERM stop everything cleanly.
 */
import type { Command } from 'commander';
import { openConfiguredStore } from '../open-store.js';
import { addCollectorOptions, addCommonOptions, addVerifyOptions } from '../options.js';
import { createLogger } from '../progress.js';
import { action, configFrom, untilSignal } from '../run.js';
import { listenApi } from './serve.js';
import { listenVerify } from './verify.js';
import type { AppContext } from '../../api/context.js';

/** Adds `start`'s options and action to its command. */
export function register(cmd: Command): void {
  addVerifyOptions(addCollectorOptions(addCommonOptions(cmd)))
    .action(
      action(async (opts: Record<string, unknown>) => {
        const config = configFrom(opts);
        const { launchCollector } = await import('../../chain/collector/index.js'); // lazily: see collect.ts
        const log = createLogger(config);
        const store = await openConfiguredStore(config, { readers: config.readers });
        try {
          const launched = await launchCollector(config, store, log);
          const { collector } = launched;
          try {
            const components = new Map<string, () => unknown>([['collector', () => collector.report()]]);
            const { app, url } = await listenApi(config, store, log, components);
            const ctx: AppContext = { store, config, components, log };
            const verify = await listenVerify({ ...ctx, log: log.child({ component: 'verify' }) });
            const { startIntelCollector } = await import('../../intel/collect.js');
            const intel = startIntelCollector({ ...ctx, log: log.child({ component: 'intel' }) });
            log.info({ url, verify: verify.url, source: launched.rpc.source, store: store.location }, `collecting; API on ${url}/api/status; trust check on ${verify.url}/v1/check`);
            const running = collector.run();
            const signal = await untilSignal();
            log.info({ signal }, 'shutting down');
            collector.stop();
            await Promise.all([running.catch(() => {}), intel.stop()]);
            await Promise.all([app.close(), verify.close()]);
          } finally {
            await launched.release();
          }
        } finally {
          await store.close();
        }
      }),
    );
}
