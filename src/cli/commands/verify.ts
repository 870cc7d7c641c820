/**
 * `paywatch verify`: the trust-check service alone (POST /v1/check on --verify-port, default 8081), over the
 * configured store. `paywatch start` and `paywatch demo` run it beside the public API via startVerifyServer.
 */
import type { Command } from 'commander';
import { addSettingOptions } from '../options.js';
import { action, CliError } from '../run.js';
import { serveUntilSignal } from '../listener.js';
import { startVerifyServer, type VerifyServer } from '../../trust/app.js';
import { verifyBaseUrl } from '../../http/base-urls.js';
import type { AppContext } from '../../context.js';
import { shortMessage } from '../../domain/errors.js';

/**
 * Starts the trust-check listener on config.host:config.verifyPort (for `verify`, `start` and `demo`).
 * @throws CliError with one line when the port cannot be bound
 */
export async function listenVerify(ctx: AppContext): Promise<VerifyServer> {
  try {
    return await startVerifyServer(ctx);
  } catch (e) {
    throw new CliError(`cannot listen on ${ctx.config.host}:${ctx.config.verifyPort}: ${shortMessage(e)}`);
  }
}

/** Adds `verify`'s options and action to its command. */
export function register(cmd: Command): void {
  addSettingOptions(cmd, 'verify').action(
    action((opts: Record<string, unknown>) =>
      serveUntilSignal(opts, async (config, store, log, limits) => {
        const ctx: AppContext = { store, config, limits, components: new Map(), log: log.child({ component: 'verify' }) };
        const server = await listenVerify(ctx);
        log.info(
          { url: server.url, advertised: verifyBaseUrl(ctx.config), x402: config.x402PayTo !== null },
          `trust check listening on ${server.url}/v1/check`,
        );
        return () => server.close();
      }),
    ),
  );
}
