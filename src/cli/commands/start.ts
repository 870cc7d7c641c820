/**
 * `paywatch start`: the collector and the public API together in one process (the main job). The API's
 * /api/status shows the live collector state. SIGINT/SIGTERM stop both cleanly.
 */
import type { Command } from 'commander';
import { openStore } from '../../store/db.js';
import { addCommonOptions } from '../main.js';
import { createLogger } from '../progress.js';
import { action, configFrom, untilSignal } from '../run.js';
import { addCollectorOptions } from './collect.js';
import { listenApi } from './serve.js';

/** Registers `start` on the program. */
export function register(program: Command): void {
  addCollectorOptions(addCommonOptions(program.command('start')))
    .description('run the collector and the public API together')
    .action(
      action(async (opts: Record<string, unknown>) => {
        const config = configFrom(opts);
        const { launchCollector } = await import('../../chain/collector/index.js'); // lazily: see collect.ts
        const log = createLogger(config);
        const store = await openStore(config.db);
        try {
          const launched = await launchCollector(config, store, log);
          const { collector } = launched;
          try {
            const { app, url } = await listenApi(config, store, log, new Map([['collector', () => collector.report()]]));
            log.info({ url, source: launched.rpc.source, store: store.location }, `collecting; API on ${url}/api/status`);
            const running = collector.run();
            const signal = await untilSignal();
            log.info({ signal }, 'shutting down');
            collector.stop();
            await running.catch(() => {});
            await app.close();
          } finally {
            await launched.release();
          }
        } finally {
          await store.close();
        }
      }),
    );
}
