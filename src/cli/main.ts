/**
 * The `paywatch` command line. Each command lives in ./commands/NAME.ts; this file names them all (for `--help`)
 * and loads only the one that runs.
 */
import { Command } from 'commander';
import { commands } from './commands/index.js';
import { PAYWATCH_VERSION } from '../net/user-agent.js';

/**
 * The command `args` (process.argv without node and the script) runs: the first word that is not an option,
 * or the word after `help`; undefined when there is none.
 * @example commandNamed(['collect', '--once']) // 'collect'
 * @example commandNamed(['help', 'serve']) // 'serve'
 */
export function commandNamed(args: readonly string[]): string | undefined {
  const words = args.filter((a) => !a.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}

/** Runs the CLI with `argv` (as in process.argv). Sets process.exitCode; never throws. */
export async function main(argv: string[]): Promise<void> {
  const program = new Command('paywatch')
    .description('A public window onto machine payments on the Tempo chain (chain id 4217).')
    .version(PAYWATCH_VERSION, '-V, --version', 'print the version')
    // One line for any usage error, with the pointer to --help on the same line.
    .configureOutput({ outputError: (s, write) => write(`paywatch: ${s.trim().replace(/^error: /, '')} (see paywatch --help)\n`) })
    .exitOverride();
  const chosen = commandNamed(argv.slice(2));
  for (const entry of commands) {
    const cmd = program.command(entry.name).description(entry.description);
    if (entry.name === chosen) (await entry.load()).register(cmd);
  }
  try {
    await program.parseAsync(argv);
  } catch (e) {
    const err = e as { code?: string; exitCode?: number };
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return;
    process.exitCode = err.exitCode && err.exitCode > 0 ? 2 : 1;
  }
}
