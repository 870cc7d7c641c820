/**
 * `paywatch operator usage --month YYYY-MM [--key ID] [--plan paid|free]`: successful checks per key in a UTC
 * month, and for paid keys the invoice line at 0.01 dollars per successful check (exact decimal).
 */
import { Option, type Command } from 'commander';
import { action, CliError } from '../run.js';
import { operatorOptions, withStore } from './shared.js';
import { monthlyInvoice } from '../../trust/invoice.js';

/** Adds `usage` to the operator group. */
export function registerUsage(operator: Command): void {
  operatorOptions(operator.command('usage'))
    .addOption(new Option('--month <YYYY-MM>', 'UTC calendar month').makeOptionMandatory())
    .addOption(new Option('--key <key_id>', 'one key only'))
    .addOption(new Option('--plan <plan>', 'one plan only').choices(['free', 'paid']))
    .description('trust-check usage per key and month, with invoice lines for paid keys')
    .action(
      action(async (opts: Record<string, unknown>) => {
        const month = String(opts.month);
        if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new CliError(`--month must be YYYY-MM, got ${month}`, 2);
        await withStore(opts, async (store) => {
          const inv = await monthlyInvoice(store, month, {
            keyId: opts.key as string | undefined,
            plan: opts.plan as 'free' | 'paid' | undefined,
          });
          if (opts.json) {
            process.stdout.write(`${JSON.stringify(inv)}\n`);
            return;
          }
          process.stdout.write('key_id\tplan\tmonth\tchecks\tunit_price_usd\tamount_usd\n');
          for (const l of inv.lines)
            process.stdout.write(`${l.key_id}\t${l.plan}\t${l.month}\t${l.checks}\t${l.unit_price_usd ?? ''}\t${l.amount_usd ?? ''}\n`);
          process.stdout.write(`total_paid_usd\t${inv.total_usd}\n`);
        });
      }),
    );
}
