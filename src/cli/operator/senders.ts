/**
 * `paywatch operator connection …` and `paywatch operator producer …`: issue, list, rotate and revoke the
 * senders of signed intake. One factory serves both kinds; keys are printed once.
 */
import { Option, type Command } from 'commander';
import { action, CliError } from '../run.js';
import { issueSender, revokeSenderNow, rotateSender, senders } from '../../intake/operator.js';
import { PROTOCOLS, type Protocol } from '../../intake/protocols.js';
import type { Environment, SenderKind } from '../../intake/operator.js';
import { SHOWN_ONCE, envOption, operatorOptions, output, printable, secretOption, vaultFrom, when, withStore } from './shared.js';

/** Parses `--grace` seconds. @throws CliError on a non-integer */
function graceSeconds(v: unknown, dflt: number): number {
  if (v === undefined) return dflt;
  if (!/^\d{1,9}$/.test(String(v))) throw new CliError('--grace must be whole seconds (0 or more)', 2);
  return Number(v);
}

/** Adds list/rotate/revoke (shared by both kinds) to the group `g`. */
function addCommonSenderCommands(g: Command, kind: SenderKind): void {
  operatorOptions(g.command('list'))
    .description(`list ${kind}s (ids, names, state; never keys)`)
    .action(
      action(async (opts: Record<string, unknown>) => {
        const rows = await withStore(opts, (store) => senders(store, kind));
        output(opts, rows, () =>
          rows.length === 0
            ? [`no ${kind}s`]
            : rows.map(
                (r) =>
                  `${r.id}\t${r.protocol ?? '-'}\t${r.environment}\t${r.revoked_at == null ? 'active' : `revoked ${when(r.revoked_at)}`}\tkeys=${r.active_keys}\tcreated ${when(r.created_at)}\t${printable(r.name)}`,
              ),
        );
      }),
    );
  secretOption(operatorOptions(g.command('rotate').argument('<id>', `${kind} id`)))
    .addOption(new Option('--grace <seconds>', 'how long the old key keeps verifying (default PAYWATCH_KEY_GRACE_SECONDS, 86400)'))
    .description(`issue a new key; the old one keeps verifying for the grace period`)
    .action(
      action(async (id: string, opts: Record<string, unknown>) => {
        const r = await withStore(opts, (store, config) =>
          rotateSender(store, vaultFrom(opts, config), kind, id, graceSeconds(opts.grace, config.keyGraceSeconds)),
        );
        output(opts, r, () => [`${kind} ${r.id}`, `key: ${r.key}`, `previous key verifies until ${when(r.previous_key_expires_at)}`]);
        process.stderr.write(`${SHOWN_ONCE}\n`);
      }),
    );
  operatorOptions(g.command('revoke').argument('<id>', `${kind} id`))
    .description(`revoke a ${kind}: all its keys stop verifying at once`)
    .action(
      action(async (id: string, opts: Record<string, unknown>) => {
        await withStore(opts, (store) => revokeSenderNow(store, kind, id));
        output(opts, { id, revoked: true }, () => [`${kind} ${id} revoked`]);
      }),
    );
}

/** Prints a newly issued sender and its key. */
function printIssued(
  opts: Record<string, unknown>,
  kind: SenderKind,
  r: { id: string; name: string; protocol: string | null; environment: Environment; key: string },
): void {
  output(opts, r, () => [
    `${kind} ${r.id} (${r.protocol ? `${r.protocol}, ` : ''}${r.environment}): ${printable(r.name)}`,
    `key: ${r.key}`,
  ]);
  process.stderr.write(`${SHOWN_ONCE}\n`);
}

/** `--env test|live`, required at issuance: the sender may deliver records of that environment only. */
const ISSUED_ENV = 'the only environment it may deliver: test or live (deliveries naming the other are refused)';

/** Registers `connection` under the operator group. */
export function registerConnection(op: Command): void {
  const g = op.command('connection').description('applications forwarding protocol events (POST /api/protocol-events)');
  secretOption(operatorOptions(g.command('create')))
    .addOption(new Option('--protocol <protocol>', 'the protocol it forwards').choices([...PROTOCOLS]).makeOptionMandatory())
    .addOption(new Option('--name <name>', 'a name for people').makeOptionMandatory())
    .addOption(envOption(ISSUED_ENV))
    .description('create a connection for one environment; prints its id and key once')
    .action(
      action(async (opts: Record<string, unknown>) => {
        const r = await withStore(opts, (store, config) =>
          issueSender(store, vaultFrom(opts, config), 'connection', String(opts.name), opts.protocol as Protocol, opts.env as Environment),
        );
        printIssued(opts, 'connection', r);
      }),
    );
  addCommonSenderCommands(g, 'connection');
}

/** Registers `producer` under the operator group. */
export function registerProducer(op: Command): void {
  const g = op.command('producer').description('producers signing outcome records (POST /api/intelligence/outcomes)');
  secretOption(operatorOptions(g.command('enroll')))
    .addOption(new Option('--name <name>', 'a name for people').makeOptionMandatory())
    .addOption(envOption(ISSUED_ENV))
    .description('enroll a producer for one environment; prints its id and signing key once')
    .action(
      action(async (opts: Record<string, unknown>) => {
        const r = await withStore(opts, (store, config) =>
          issueSender(store, vaultFrom(opts, config), 'producer', String(opts.name), null, opts.env as Environment),
        );
        printIssued(opts, 'producer', r);
      }),
    );
  addCommonSenderCommands(g, 'producer');
}
