/**
 * Plumbing shared by the `paywatch operator …` subcommands: store and secret from the flags, options for the
 * reads, and output as text or `--json`. Secrets are written to stdout only, once, by the command that issues them.
 */
import { Option, type Command } from 'commander';
import { addSettingOptions, flagsFrom } from '../options.js';
import { CliError, configFrom } from '../run.js';
import { openStore, type Store } from '../../store/db.js';
import type { Config } from '../../config.js';
import { MasterSecret, loadMasterSecret } from '../../secrets/index.js';
import { KeyVault } from '../../intake/keys.js';

/** Adds the store options plus `--json` to an operator leaf command. */
export function operatorOptions(cmd: Command): Command {
  return addSettingOptions(cmd, 'operator').addOption(new Option('--json', 'print JSON (for scripts)'));
}

/** Adds `--secret-file` (the master secret file; PAYWATCH_SECRET or PAYWATCH_SECRET_FILE otherwise). */
export function secretOption(cmd: Command): Command {
  return addSettingOptions(cmd, 'operator sender keys');
}

/** The required `--env test|live` option, described by `what`. */
export function envOption(what: string): Option {
  return new Option('--env <env>', what).choices(['test', 'live']).makeOptionMandatory();
}

/** Adds `--env` (required), `--since`, `--until` to a read command; `paging` adds `--limit` and `--offset`. */
export function readOptions(cmd: Command, paging: boolean): Command {
  cmd
    .addOption(envOption('test or live (required: the two are never mixed)'))
    .addOption(new Option('--since <unix>', 'inclusive lower bound, UTC Unix seconds'))
    .addOption(new Option('--until <unix>', 'exclusive upper bound, UTC Unix seconds'));
  if (paging)
    cmd.addOption(new Option('--limit <n>', 'rows, 1..100 (default 30)')).addOption(new Option('--offset <n>', 'rows to skip (default 0)'));
  return cmd;
}

/** The operator read flags as the shared query schemas expect them (strings, `env`). */
export function readQuery(opts: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const q: Record<string, unknown> = {};
  for (const k of keys) if (opts[k] !== undefined) q[k] = String(opts[k]);
  return q;
}

/**
 * Opens the store named by the flags, runs `fn`, and closes the store whatever happens.
 * @throws CliError / ConfigError with a one-line message
 */
export async function withStore<T>(opts: Record<string, unknown>, fn: (store: Store, config: Config) => Promise<T>): Promise<T> {
  const config = configFrom(opts);
  const store = await openStore(config.db);
  try {
    return await fn(store, config);
  } finally {
    await store.close();
  }
}

/** The key vault from `--secret-file`, PAYWATCH_SECRET or PAYWATCH_SECRET_FILE. @throws CliError when none is set */
export function vaultFrom(opts: Record<string, unknown>, config: Config): KeyVault {
  const master = flagsFrom(opts).secretFile ? MasterSecret.fromFile(config.secretFile!) : loadMasterSecret(config);
  if (!master)
    throw new CliError('no master secret: set PAYWATCH_SECRET or PAYWATCH_SECRET_FILE, or pass --secret-file (docs/intake.md)', 2);
  return new KeyVault(master);
}

/** Prints `data` as JSON with `--json`, else the text lines from `text`. */
export function output(opts: Record<string, unknown>, data: unknown, text: () => string[]): void {
  process.stdout.write(
    opts.json
      ? `${JSON.stringify(data, null, 2)}\n`
      : text()
          .map((l) => `${l}\n`)
          .join(''),
  );
}

/**
 * Text received from senders, made safe for a terminal: control characters (C0, DEL, C1, which start escape
 * sequences) and bidirectional overrides (which reorder what is shown) are written as \u{…} escapes.
 */
export function printable(s: string): string {
  return s.replace(/[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

/** Formats UTC Unix seconds (or null) for text output. */
export function when(s: number | null): string {
  return s == null ? '-' : new Date(s * 1000).toISOString().replace('.000Z', 'Z');
}

/** The warning printed (to stderr) beside every issued secret. */
export const SHOWN_ONCE = 'This is the only time it is shown: store it now in your secret manager.';
