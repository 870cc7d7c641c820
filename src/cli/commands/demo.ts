/**
 * `paywatch demo`: everything offline in one command: anvil in Tempo mode, real activity, the collector
 * following the head, real local paid services (x402 v1/v2, MPP) probed into offers and changes, the API and
 * MCP on a free (or the given) port, and the trust check beside it. Ctrl-C stops everything it started.
 */
import type { Command } from 'commander';
import { addSettingOptions, flagsFrom, levelWasChosen } from '../options.js';
import { createLogger } from '../progress.js';
import { action, configFrom, untilSignal } from '../run.js';
import { TEMPO_PUBLIC_RPC, TEMPO_PUBLIC_RPC_LIMITS } from '../../domain/tempo.js';

/** Adds `demo`'s options and action to its command. */
export function register(cmd: Command): void {
  addSettingOptions(cmd, 'demo').action(
    action(async (opts: Record<string, unknown>) => {
      // Validates the flags first (one-line error for a bad one); the demo then sets rpc and from itself.
      const config = configFrom(opts);
      const { startDemo } = await import('../demo.js'); // lazily: see collect.ts
      // Its own node, first height and token list: the demo sets these itself.
      const { rpcUrl: _rpc, from: _from, tokenList: _tokens, ...flags } = flagsFrom(opts);
      // The demo talks to the person in plain lines; logs only say what went wrong unless asked for more.
      if (!levelWasChosen(opts)) flags.logLevel = 'warn';
      const log = createLogger({ ...config, logLevel: levelWasChosen(opts) ? config.logLevel : 'warn' });
      const say = (line: string) => process.stdout.write(`${line}\n`);
      // Listen from the start: a Ctrl-C during start-up stops everything once it is up (nothing is orphaned).
      const stopped = untilSignal();
      const demo = await startDemo({ flags, log, say });
      say('');
      say(`paywatch is serving ${demo.transactions} real Tempo transactions at ${demo.apiUrl}; try:`);
      for (const u of demo.urls) say(`  curl -s '${u}'`);
      say('');
      say(`MCP (Streamable HTTP, read-only tools): ${demo.mcpUrl}`);
      say('');
      say(`trust check on ${demo.verifyUrl}: get a free key into KEY, then check a URL with it:`);
      for (const c of demo.checks) say(`  ${c}`);
      say('');
      say('or pay 0.01 per check with x402 and no key (a local token, settled on the local chain; prints PAYMENT-RESPONSE):');
      say(`  ${demo.paidCheck}`);
      say('');
      say(`Against Tempo mainnet: paywatch start --rpc ${TEMPO_PUBLIC_RPC} (the default); ${TEMPO_PUBLIC_RPC_LIMITS}.`);
      say('');
      say('New (empty) blocks arrive every second and are collected as they finalize. Press Ctrl-C to stop.');
      await stopped;
      say('stopping the collector, the API and anvil…');
      await demo.stop();
    }),
  );
}
