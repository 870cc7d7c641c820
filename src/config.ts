/**
 * Configuration: command-line flags over environment variables over defaults, validated once into one typed,
 * frozen object. Areas add their own members here (and a flag in src/cli) rather than reading process.env.
 */
import { z } from 'zod';

export const DEFAULT_DB = './data/paywatch.sqlite';
export const DEFAULT_RPC = 'https://rpc.tempo.xyz';

const port = z.coerce.number().int().min(0).max(65535);

const ConfigSchema = z.object({
  /** `--db` / PAYWATCH_DB: a path, `sqlite:PATH`, or `postgres://…`. */
  db: z.string().min(1),
  /** `--rpc` / PAYWATCH_RPC_URL: the Tempo JSON-RPC endpoint (http or https). */
  rpcUrl: z.url({ protocol: /^https?$/ }),
  /** `--port` / PORT: the public API's port. */
  port,
  /** `--host`: the address every listener binds. */
  host: z.string().min(1),
  /** `--from`: first block height to collect on a fresh store; null = finalized head − 10,000. */
  from: z.coerce.number().int().min(0).nullable(),
  /** PAYWATCH_LOG_LEVEL: pino level. */
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  /** PAYWATCH_RATE_LIMIT: requests per client IP per minute on the public API. */
  rateLimitPerMinute: z.coerce.number().int().min(1),
  /** Collector: blocks fetched per batch and parallel RPC requests. */
  batchSize: z.coerce.number().int().min(1).max(1000),
  rpcConcurrency: z.coerce.number().int().min(1).max(64),
  /** Collector: milliseconds between polls of the finalized head once caught up. */
  pollIntervalMs: z.coerce.number().int().min(50),
  /** PAYWATCH_RPC_TIMEOUT_MS: milliseconds before one JSON-RPC HTTP request is abandoned and retried. */
  rpcTimeoutMs: z.coerce.number().int().min(100).max(600_000),
  /** Intake: PAYWATCH_SECRET (64 hex chars) or PAYWATCH_SECRET_FILE (a file holding them); null = not configured. */
  secret: z.string().nullable(),
  secretFile: z.string().nullable(),
  /** Intake: PAYWATCH_KEY_GRACE_SECONDS, how long a rotated HMAC key keeps verifying (default 86,400 = 24 h). */
  keyGraceSeconds: z.coerce.number().int().min(0),
  /** Intake: PAYWATCH_INTAKE_RATE_LIMIT, signed deliveries per connection or producer per minute. */
  intakeRateLimitPerMinute: z.coerce.number().int().min(1),
});

export type Config = Readonly<z.infer<typeof ConfigSchema>>;

/** Flag values as parsed by the CLI (strings or undefined). */
export type Flags = Partial<Record<keyof z.infer<typeof ConfigSchema>, string | number | null | undefined>>;

/**
 * Builds the validated configuration from flags, then environment, then defaults.
 * @param flags values given on the command line (undefined = not given)
 * @param env the environment (defaults to process.env)
 * @throws ConfigError with a one-line message naming the bad setting
 */
export function loadConfig(flags: Flags = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const pick = <T>(flag: T | undefined, envName: string, dflt: T): T | string =>
    flag !== undefined && flag !== null ? flag : env[envName] !== undefined && env[envName] !== '' ? env[envName]! : dflt;
  const raw = {
    db: pick(flags.db, 'PAYWATCH_DB', DEFAULT_DB),
    rpcUrl: pick(flags.rpcUrl, 'PAYWATCH_RPC_URL', DEFAULT_RPC),
    port: pick(flags.port, 'PORT', 8080),
    host: pick(flags.host, 'PAYWATCH_HOST', '127.0.0.1'),
    from: pick(flags.from, 'PAYWATCH_FROM', null),
    logLevel: pick(flags.logLevel, 'PAYWATCH_LOG_LEVEL', 'info'),
    rateLimitPerMinute: pick(flags.rateLimitPerMinute, 'PAYWATCH_RATE_LIMIT', 600),
    batchSize: pick(flags.batchSize, 'PAYWATCH_BATCH_SIZE', 50),
    rpcConcurrency: pick(flags.rpcConcurrency, 'PAYWATCH_RPC_CONCURRENCY', 8),
    pollIntervalMs: pick(flags.pollIntervalMs, 'PAYWATCH_POLL_MS', 1000),
    rpcTimeoutMs: pick(flags.rpcTimeoutMs, 'PAYWATCH_RPC_TIMEOUT_MS', 10_000),
    secret: pick(flags.secret, 'PAYWATCH_SECRET', null),
    secretFile: pick(flags.secretFile, 'PAYWATCH_SECRET_FILE', null),
    keyGraceSeconds: pick(flags.keyGraceSeconds, 'PAYWATCH_KEY_GRACE_SECONDS', 86_400),
    intakeRateLimitPerMinute: pick(flags.intakeRateLimitPerMinute, 'PAYWATCH_INTAKE_RATE_LIMIT', 6000),
  };
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`invalid setting ${issue.path.join('.')}: ${issue.message}`);
  }
  return Object.freeze(parsed.data);
}

/** A configuration problem; its message is one line meant for the person running the command. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
