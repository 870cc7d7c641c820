/**
 * `paywatch integrity verify [--from H] [--to H]`: re-verifies the stored blocks (parent-hash chain and finality
 * certificates, src/chain/reverify.ts) offline and prints one JSON report; exits 3 (`integrity_mismatch`) when
 * anything does not re-verify.
 */
import { Option, type Command } from 'commander';
import { PaywatchError } from '../../domain/errors.js';
import { openStore } from '../../store/db.js';
import { addSettingOptions } from '../options.js';
import { action, CliError, configFrom } from '../run.js';

/** Stored blocks do not re-verify (exit code from the catalogue: EXIT_CODE_OF_CODE.integrity_mismatch). */
export class IntegrityMismatch extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'integrity_mismatch' });
  }
}

/** Parses an optional block height flag. @throws CliError naming the flag */
function height(name: string, v: unknown): number | null {
  if (v === undefined) return null;
  const s = String(v);
  if (!/^\d{1,15}$/.test(s)) throw new CliError(`--${name} must be a block height (a non-negative integer), got ${JSON.stringify(v)}`, 2);
  return Number(s);
}

/** Adds `integrity`'s subcommands to its command. */
export function register(cmd: Command): void {
  addSettingOptions(cmd.command('verify'), 'integrity verify')
    .description('re-verify stored blocks: the parent-hash chain and every stored finalization certificate')
    .addOption(new Option('--from <height>', 'first block height (default: the lowest stored)'))
    .addOption(new Option('--to <height>', 'last block height (default: the highest stored)'))
    .action(
      action(async (opts: Record<string, unknown>) => {
        const from = height('from', opts.from);
        const to = height('to', opts.to);
        if (from !== null && to !== null && from > to) throw new CliError('--from must not be above --to', 2);
        const config = configFrom(opts);
        const { reverifyStoredBlocks } = await import('../../chain/reverify.js');
        const store = await openStore(config.db);
        try {
          const report = await reverifyStoredBlocks(store, {
            from,
            to,
            genesis: config.consensusGenesis,
            epochLength: config.consensusEpochLength,
          });
          process.stdout.write(`${JSON.stringify(report)}\n`);
          if (report.mismatches.length)
            throw new IntegrityMismatch(
              `${report.mismatches.length} stored block(s) do not re-verify; first: block ${report.mismatches[0]!.height}: ${report.mismatches[0]!.reason}`,
            );
        } finally {
          await store.close();
        }
      }),
    );
}
