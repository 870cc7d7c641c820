/**
 * `paywatch operator key create|list|revoke`: trust-check API keys. A new key is printed once (stdout) and
 * stored hashed; listings show the id, prefix, plan and state, never the key.
 */
import { Option, type Command } from 'commander';
import { action, CliError } from '../run.js';
import { operatorOptions, withStore } from './shared.js';
import { apiKeys, issueApiKey, revokeApiKeyNow, type Plan } from '../../trust/keys.js';
import { FREE_MONTHLY_CHECKS, CHECK_PRICE_DOLLARS } from '../../trust/metering.js';
import { SETTINGS } from '../../settings/index.js';

/** Adds `key create|list|revoke` to the operator group. */
export function registerKeys(operator: Command): void {
  const key = operator.command('key').description('trust-check API keys (POST /v1/check)');
  operatorOptions(key.command('create'))
    .addOption(
      new Option(
        '--plan <plan>',
        `free (${FREE_MONTHLY_CHECKS} checks per UTC month) or paid (${CHECK_PRICE_DOLLARS} dollars per successful check, invoiced monthly)`,
      )
        .choices(['free', 'paid'])
        .default('free'),
    )
    .addOption(new Option('--label <text>', 'who the key is for'))
    .description('issue a key (printed once; stored hashed)')
    .action(
      action(async (opts: Record<string, unknown>) => {
        await withStore(opts, async (store) => {
          const { key: secret, row } = await issueApiKey(
            store,
            opts.plan as Plan,
            'operator',
            typeof opts.label === 'string' ? opts.label : null,
          );
          if (opts.json)
            process.stdout.write(
              `${JSON.stringify({ key: secret, key_id: row.id, plan: row.plan, label: row.label, created_at: row.created_at })}\n`,
            );
          else
            process.stdout.write(
              `key_id ${row.id} (${row.plan})\nkey    ${secret}\nThe key is shown once; store it now.${row.plan === 'free' ? ` A free key unused for PAYWATCH_VERIFY_KEY_IDLE_DAYS days (default ${SETTINGS.verifyKeyIdleDays.default}) expires.` : ''}\n`,
            );
        });
      }),
    );
  operatorOptions(key.command('list'))
    .description('list keys (never the key itself)')
    .action(
      action(async (opts: Record<string, unknown>) => {
        await withStore(opts, async (store) => {
          const rows = await apiKeys(store);
          if (opts.json) process.stdout.write(`${JSON.stringify(rows)}\n`);
          else
            for (const r of rows)
              process.stdout.write(
                `${r.id}\t${r.prefix}…\t${r.plan}\t${r.revoked_at ? `revoked ${r.revoked_at}` : 'active'}\t${r.issued_via}\t${r.created_at}\t${r.label ?? ''}\n`,
              );
        });
      }),
    );
  operatorOptions(key.command('revoke'))
    .argument('<key_id>', 'the key id (key_…)')
    .description('revoke a key at once')
    .action(
      action(async (keyId: string, opts: Record<string, unknown>) => {
        await withStore(opts, async (store) => {
          if (!(await revokeApiKeyNow(store, keyId))) throw new CliError(`no active key ${keyId}`);
          process.stdout.write(opts.json ? `${JSON.stringify({ key_id: keyId, revoked: true })}\n` : `revoked ${keyId}\n`);
        });
      }),
    );
}
