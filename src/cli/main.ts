/**
 * The `paywatch` command line. Each command lives in ./commands/NAME.ts and registers itself on the program;
 * this file only assembles them.
 */
import { Command, Option } from 'commander';
import { commands } from './commands/index.js';

/** Shared options a command may take besides `--db` and `--log-level`, which every command takes. */
export type CommonOption = 'rpc' | 'port' | 'host' | 'from' | 'tokenlist';

/**
 * Adds the shared options a command uses: always `--db` and `--log-level`, plus those in `uses` (default all),
 * so that `--help` lists only flags that change what the command does.
 */
export function addCommonOptions(cmd: Command, uses: readonly CommonOption[] = ['rpc', 'port', 'host', 'from', 'tokenlist']): Command {
  cmd.addOption(new Option('--db <location>', 'store: a path, sqlite:PATH or postgres://… (env PAYWATCH_DB; default ./data/paywatch.sqlite)'));
  if (uses.includes('rpc')) cmd.addOption(new Option('--rpc <url>', 'Tempo JSON-RPC URL (env PAYWATCH_RPC_URL; default https://rpc.tempo.xyz)'));
  if (uses.includes('port')) cmd.addOption(new Option('--port <n>', 'public API port (env PORT; default 8080)'));
  if (uses.includes('host')) cmd.addOption(new Option('--host <addr>', 'listen address (default 127.0.0.1)'));
  if (uses.includes('from')) cmd.addOption(new Option('--from <height>', 'first block height on a fresh store (default finalized head − 10,000)'));
  if (uses.includes('tokenlist')) cmd.addOption(new Option('--tokenlist <path>', 'token list (Uniswap format): only its tokens count as dollars (env PAYWATCH_TOKENLIST; default: Tempo mainnet\'s listed tokens)'));
  return cmd.addOption(new Option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent (env PAYWATCH_LOG_LEVEL)'));
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
