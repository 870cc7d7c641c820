/**
 * `paywatch verify`: the trust-check service alone (POST /v1/check on --verify-port, default 8081), over the
 * configured store. `paywatch start` and `paywatch demo` run it beside the public API via startVerifyServer.
 */
import { Option, type Command } from 'commander';
import { addCommonOptions } from '../main.js';
import { action, CliError } from '../run.js';
import { serveUntilSignal } from '../listener.js';
import { startVerifyServer, verifyBaseUrl, type VerifyServer } from '../../trust/app.js';
import type { AppContext } from '../../api/context.js';

/** Adds `--verify-port` (for every command that runs the trust-check listener). */
export function addVerifyOptions(cmd: Command): Command {
  return cmd.addOption(new Option('--verify-port <n>', 'trust-check listener port (env PAYWATCH_VERIFY_PORT; default 8081)'));
}

/**
 * Starts the trust-check listener on config.host:config.verifyPort (for `verify`, `start` and `demo`).
 * @throws CliError with one line when the port cannot be bound
 */
export async function listenVerify(ctx: AppContext): Promise<VerifyServer> {
  try {
    return await startVerifyServer(ctx);
  } catch (e) {
    throw new CliError(`cannot listen on ${ctx.config.host}:${ctx.config.verifyPort}: ${(e as Error).message}`);
  }
}

/** Registers `verify` on the program. */
export function register(program: Command): void {
  addVerifyOptions(addCommonOptions(program.command('verify'), ['rpc', 'host', 'tokenlist']))
    .description('serve the trust-check API (POST /v1/check, POST /v1/keys, GET /v1/openapi.json)')
    .action(
      action((opts: Record<string, unknown>) =>
        serveUntilSignal(opts, async (config, store, log) => {
          const ctx: AppContext = { store, config, components: new Map(), log: log.child({ component: 'verify' }) };
          const server = await listenVerify(ctx);
          log.info({ url: server.url, advertised: verifyBaseUrl(ctx), x402: config.x402PayTo !== null }, `trust check listening on ${server.url}/v1/check`);
          return () => server.close();
        }),
      ),
    );
}
