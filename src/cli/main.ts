/**
 * The `paywatch` command line. Each command lives in ./commands/NAME.ts and registers itself on the program;
 * this file only assembles them.
 */
import { Command, Option } from 'commander';
import { commands } from './commands/index.js';

/** Options shared by every command that touches the store, the node or a listener. */
export function addCommonOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--db <location>', 'store: a path, sqlite:PATH or postgres://… (env PAYWATCH_DB; default ./data/paywatch.sqlite)'))
    .addOption(new Option('--rpc <url>', 'Tempo JSON-RPC URL (env PAYWATCH_RPC_URL; default https://rpc.tempo.xyz)'))
    .addOption(new Option('--port <n>', 'public API port (env PORT; default 8080)'))
    .addOption(new Option('--host <addr>', 'listen address (default 127.0.0.1)'))
    .addOption(new Option('--from <height>', 'first block height on a fresh store (default finalized head − 10,000)'))
    .addOption(new Option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent (env PAYWATCH_LOG_LEVEL)'));
}

/** Runs the CLI with `argv` (as in process.argv). Sets process.exitCode; never throws. */
export async function main(argv: string[]): Promise<void> {
  const program = new Command('paywatch')
    .description('A public window onto machine payments on the Tempo chain (chain id 4217).')
    // One line for any usage error, with the pointer to --help on the same line.
    .configureOutput({ outputError: (s, write) => write(`paywatch: ${s.trim().replace(/^error: /, '')} (see paywatch --help)\n`) })
    .exitOverride();
  for (const register of commands) register(program);
  try {
    await program.parseAsync(argv);
  } catch (e) {
    const err = e as { code?: string; exitCode?: number };
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return;
    process.exitCode = err.exitCode && err.exitCode > 0 ? 2 : 1;
  }
}
