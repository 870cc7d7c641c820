/** `paywatch operator token …`: operator tokens for the HTTP operator reads; printed once, stored hashed. */
import { Option, type Command } from 'commander';
import { action } from '../run.js';
import { issueOperatorToken, operatorTokens, revokeOperatorTokenNow } from '../../intake/operator.js';
import { SHOWN_ONCE, operatorOptions, output, when, withStore } from './shared.js';

/** Registers `token` under the operator group. */
export function registerTokens(op: Command): void {
  const g = op.command('token').description('operator tokens for GET /api/operator/* (Authorization: Bearer)');
  operatorOptions(g.command('create'))
    .addOption(new Option('--name <name>', 'a name for people').makeOptionMandatory())
    .description('create an operator token; prints it once')
    .action(
      action(async (opts: Record<string, unknown>) => {
        const r = await withStore(opts, (store) => issueOperatorToken(store, String(opts.name)));
        output(opts, r, () => [`operator token ${r.id}: ${r.name}`, `token: ${r.token}`]);
        process.stderr.write(`${SHOWN_ONCE}\n`);
      }),
    );
  operatorOptions(g.command('list'))
    .description('list operator tokens (never the tokens)')
    .action(
      action(async (opts: Record<string, unknown>) => {
        const rows = await withStore(opts, (store) => operatorTokens(store));
        output(opts, rows, () =>
          rows.length === 0
            ? ['no operator tokens']
            : rows.map(
                (r) =>
                  `${r.id}\t${r.revoked_at == null ? 'active' : `revoked ${when(r.revoked_at)}`}\tcreated ${when(r.created_at)}\t${r.name}`,
              ),
        );
      }),
    );
  operatorOptions(g.command('revoke').argument('<id>', 'operator token id (op_…)'))
    .description('revoke an operator token at once')
    .action(
      action(async (id: string, opts: Record<string, unknown>) => {
        await withStore(opts, (store) => revokeOperatorTokenNow(store, id));
        output(opts, { id, revoked: true }, () => [`operator token ${id} revoked`]);
      }),
    );
}
