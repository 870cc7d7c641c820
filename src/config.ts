/**
 * Configuration: command-line flags over environment variables over defaults, validated once into one typed,
 * frozen object. Every setting is declared in the one table (src/settings/index.ts): its schema, variable, flag
 * and default come from there, so areas add a setting there rather than reading process.env. A bad value is
 * reported by what the user typed: `invalid --port: …`, `invalid PAYWATCH_RATE_LIMIT: …`.
 */
import { z } from 'zod';
import { PaywatchError } from './domain/errors.js';
import { flagName, SETTING_KEYS, SETTINGS, type SettingKey } from './settings/index.js';

/** The configuration: one member per setting, as its schema reads it. */
export type Config = Readonly<{ [K in SettingKey]: z.output<(typeof SETTINGS)[K]['schema']> }>;

/** Flag values as parsed by the CLI (strings or undefined), by setting (src/cli/options.ts flagsFrom). */
export type Flags = Partial<Record<SettingKey, string | number | null | undefined>>;

/** Where a setting's value came from. */
type Source = 'flag' | 'env' | 'default';

/** One schema over every setting (each member's schema from the table). */
const ConfigSchema = z.object(Object.fromEntries(SETTING_KEYS.map((k): [SettingKey, z.ZodType] => [k, SETTINGS[k].schema])));

/**
 * Builds the validated configuration from flags, then environment, then defaults (src/settings/index.ts).
 * @param flags values given on the command line (undefined = not given)
 * @param env the environment (defaults to process.env); an empty variable counts as not set
 * @throws ConfigError with a one-line message naming the flag or variable the bad value came from
 */
export function loadConfig(flags: Flags = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, unknown> = {};
  const source = {} as Record<SettingKey, Source>;
  for (const k of SETTING_KEYS) {
    const s = SETTINGS[k];
    const flag = flags[k];
    const fromEnv = env[s.env];
    if (flag !== undefined && flag !== null) [raw[k], source[k]] = [flag, 'flag'];
    else if (fromEnv !== undefined && fromEnv !== '') [raw[k], source[k]] = [fromEnv, 'env'];
    else [raw[k], source[k]] = [s.default, 'default'];
  }
  const named = (k: SettingKey) => (source[k] === 'flag' ? flagName(k)! : SETTINGS[k].env);
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`invalid ${named(issue.path[0] as SettingKey)}: ${issue.message}`);
  }
  const config = parsed.data as unknown as Config;
  const wrong = crossCheck(config, source, named);
  if (wrong) throw new ConfigError(wrong);
  return Object.freeze(config);
}

/**
 * Rules between settings, each reported by the setting the user set (of the two, the one not defaulted).
 * @returns the one-line message of the first broken rule, or null
 */
function crossCheck(c: Config, source: Record<SettingKey, Source>, named: (k: SettingKey) => string): string | null {
  // A replica is a PostgreSQL thing: a SQLite file has one writer and its readers read the file itself.
  if (c.dbRead !== null && !/^postgres(ql)?:\/\//i.test(c.db.trim())) {
    return `invalid ${named('dbRead')}: needs a PostgreSQL ${named('db')} (postgres://…); a SQLite store is read from its own file`;
  }
  // Node refuses a head timeout longer than the whole request's (http.createServer, ERR_OUT_OF_RANGE).
  if (c.headersTimeoutSeconds > c.requestTimeoutSeconds) {
    return source.headersTimeoutSeconds === 'default' && source.requestTimeoutSeconds !== 'default'
      ? `invalid ${named('requestTimeoutSeconds')}: must be at least ${named('headersTimeoutSeconds')} (${c.headersTimeoutSeconds} s)`
      : `invalid ${named('headersTimeoutSeconds')}: must be at most ${named('requestTimeoutSeconds')} (${c.requestTimeoutSeconds} s)`;
  }
  return null;
}

/** A configuration problem; its message is one line meant for the person running the command. */
export class ConfigError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'config' });
  }
}
