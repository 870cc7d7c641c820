/**
 * `paywatch serve`: the public API only, over the configured store (another process may be collecting into it).
 */
import type { Command } from 'commander';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { addCommonOptions } from '../options.js';
import { action, CliError } from '../run.js';
import { serveUntilSignal } from '../listener.js';
import { closeGracefully } from '../../http/fastify.js';
import { openConfiguredReadStore } from '../open-store.js';

/**
 * Builds the API app and listens on `config.host:config.port`.
 * @param ctx the store, the `--db-read` store (openConfiguredReadStore), live component state for /api/status
 *   (e.g. `collector`), where limits count, and the logger (its `api` child is used)
 * @returns the listening app and the base URL (`http://host:port`)
 * @throws CliError with a one-line message when the address is taken or not allowed
 */
export async function listenApi(ctx: AppContext): Promise<{ app: FastifyInstance; url: string }> {
  const { config } = ctx;
  const { buildApp } = await import('../../api/app.js'); // lazily: see collect.ts
  const app = await buildApp({ ...ctx, log: ctx.log?.child({ component: 'api' }) });
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (e) {
    await app.close().catch(() => {});
    throw new CliError(`cannot listen on ${config.host}:${config.port}: ${(e as Error).message}`);
  }
  const addr = app.server.address();
  const port = addr && typeof addr === 'object' ? addr.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return { app, url: `http://${host}:${port}` };
}

/** Adds `serve`'s options and action to its command. */
export function register(cmd: Command): void {
  addCommonOptions(cmd, ['rpc', 'port', 'host', 'tokenlist', 'metrics', 'dbRead', 'redis']).action(
    action((opts: Record<string, unknown>) =>
      serveUntilSignal(opts, async (config, store, log, limits) => {
        const readStore = await openConfiguredReadStore(config, store, log);
        try {
          const { app, url } = await listenApi({ config, store, readStore, limits, components: new Map(), log });
          log.info({ url, store: store.location }, `API listening on ${url}/api/status`);
          return async () => {
            await closeGracefully(app, config.shutdownGraceSeconds);
            await readStore?.close();
          };
        } catch (e) {
          await readStore?.close();
          throw e;
        }
      }),
    ),
  );
}
