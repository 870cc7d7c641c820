/**
 * The flags of settings, built from the one settings table (src/settings/index.ts): each command adds the flags
 * the table says it takes, so `--help` lists only flags that change what that command does, each with its
 * variable and default. Values are read back by `flagsFrom` and validated once by src/config.ts (flags →
 * environment → defaults).
 */
import { Option, type Command } from 'commander';
import type { Flags } from '../config.js';
import { type CommandName, SETTING_KEYS, SETTINGS, type Setting, type SettingKey, settingsOfCommand } from '../settings/index.js';

/** Markdown (code spans, links) as plain terminal text. */
function plain(text: string): string {
  return text.replace(/\[([^\]]+)\]\([^)]+\)/g, '$1').replace(/`/g, '');
}

/**
 * The `--help` line of setting `key`: its help text, its variable and its default.
 * @example helpLine('port') // 'public API port (env PORT; default 8080)'
 */
export function helpLine(key: SettingKey): string {
  const s: Setting = SETTINGS[key];
  const dflt = s.defaultText ?? (s.default === null ? null : String(s.default));
  return plain(`${s.help} (env ${s.env}${dflt === null ? '' : `; default ${dflt}`})`);
}

/** The commander option of setting `key` (which has a flag). */
function optionOf(key: SettingKey): Option {
  const s: Setting = SETTINGS[key];
  const option = new Option(s.flag!, helpLine(key));
  // A repeated flag collects its values, space-separated like its variable.
  if (s.repeatable) option.argParser((value: string, previous: string | undefined) => (previous ? `${previous} ${value}` : value));
  return option;
}

/** Each flag's commander attribute name (`--tokenlist` → `tokenlist`), by setting. */
const ATTRIBUTE = new Map<SettingKey, string>(
  SETTING_KEYS.filter((k) => (SETTINGS[k] as Setting).flag).map((k) => [k, optionOf(k).attributeName()]),
);

/**
 * Adds to `cmd` the flag of every setting the table says `command` takes, in table order.
 * @returns `cmd`, for chaining
 */
export function addSettingOptions(cmd: Command, command: CommandName): Command {
  for (const k of settingsOfCommand(command)) cmd.addOption(optionOf(k));
  return cmd;
}

/** The setting flags given on the command line, by setting (commander option values, camelCase keys). */
export function flagsFrom(opts: Record<string, unknown>): Flags {
  const flags: Flags = {};
  for (const [k, attribute] of ATTRIBUTE) {
    const v = opts[attribute];
    if (v !== undefined) flags[k] = v as string;
  }
  return flags;
}

/** True when the log level was chosen by the user (flag or environment), not defaulted. */
export function levelWasChosen(opts: Record<string, unknown>): boolean {
  return flagsFrom(opts).logLevel !== undefined || Boolean(process.env[SETTINGS.logLevel.env]);
}
