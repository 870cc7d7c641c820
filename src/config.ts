/**
 * Configuration: command-line flags over environment variables over defaults, validated once into one typed,
 * frozen object. Areas add their own members here (and a flag in src/cli) rather than reading process.env.
 */
import { PaywatchError } from './domain/errors.js';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { DEFAULT_SOURCES_SPEC, parseSources } from './domain/sources.js';

export const DEFAULT_DB = './data/paywatch.sqlite';
export const DEFAULT_RPC = 'https://rpc.tempo.xyz';

const port = z.coerce.number().int().min(0).max(65535);
/** A duration in seconds (fractions allowed) for a listener timeout: a millisecond to a day. */
const seconds = z.coerce.number().min(0.001).max(86_400);

const ConfigSchema = z
  .object({
    /** `--db` / PAYWATCH_DB: a path, `sqlite:PATH`, or `postgres://…`. */
    db: z.string().min(1),
    /** `--db-read` / PAYWATCH_DB_READ: a PostgreSQL streaming replica of `db` for the public reads; null = read `db`. */
    dbRead: z
      .string()
      .regex(/^postgres(ql)?:\/\//i, 'must be a postgres:// URL (a streaming replica of --db)')
      .nullable(),
    /** `--redis` / PAYWATCH_REDIS_URL: Redis shared by every replica for per-client limits; null = counted per process. */
    redis: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).nullable(),
    /** `--rpc` / PAYWATCH_RPC_URL: the Tempo JSON-RPC endpoint (http or https). */
    rpcUrl: z.url({ protocol: /^https?$/ }),
    /** `--port` / PORT: the public API's port. */
    port,
    /** `--host`: the address every listener binds. */
    host: z.string().min(1),
    /** `--from`: first block height to collect on a fresh store; null = finalized head − 10,000. */
    from: z.coerce.number().int().min(0).nullable(),
    /** `--tokenlist` / PAYWATCH_TOKENLIST: a token list file (Uniswap format); null = the built-in Tempo mainnet list. */
    tokenList: z.string().min(1).nullable(),
    /** PAYWATCH_LOG_LEVEL: pino level. */
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    /** PAYWATCH_READERS: reader threads for heavy chain reads on a SQLite store (metrics, counts, export); 0 = inline. */
    readers: z.coerce.number().int().min(0).max(16),
    /** PAYWATCH_HEAVY_PER_CLIENT: metrics, export or filtered-list requests one client may have in flight at once. */
    heavyPerClient: z.coerce.number().int().min(1).max(64),
    /** PAYWATCH_RATE_LIMIT: requests per client IP per minute on the public API. */
    rateLimitPerMinute: z.coerce.number().int().min(1),
    /** Collector: blocks fetched per batch and parallel RPC requests. */
    batchSize: z.coerce.number().int().min(1).max(1000),
    rpcConcurrency: z.coerce.number().int().min(1).max(64),
    /** Collector: PAYWATCH_DECODE_WORKERS, worker threads for integrity + decode (0 = main thread); null = DEFAULT_DECODE_WORKERS (0). */
    decodeWorkers: z.coerce.number().int().min(0).max(16).nullable(),
    /** Collector: milliseconds between polls of the finalized head once caught up. */
    pollIntervalMs: z.coerce.number().int().min(50),
    /** Intel: PAYWATCH_INTEL_STALE_DAYS, days a service may keep failing before its listing is stale (hidden from default search). */
    intelStaleDays: z.coerce.number().min(0).max(3650),
    /** Intel: PAYWATCH_INTEL_INTERVAL_SECONDS between collection runs (sources, then probes); default hourly. */
    intelIntervalSeconds: z.coerce.number().int().min(1),
    /** Intel: `--sources` / PAYWATCH_SOURCES, the directories to collect (`[name=]kind:url,…` or `@file.json`; src/domain/sources.ts). */
    sources: z
      .string()
      .min(1)
      .superRefine((v, ctx) => {
        try {
          parseSources(v);
        } catch (e) {
          ctx.addIssue({ code: 'custom', message: (e as Error).message });
        }
      }),
    /** Trust check: `--verify-port` / PAYWATCH_VERIFY_PORT, the trust-check listener's port (default 8081). */
    verifyPort: port,
    /** Trust check: PAYWATCH_VERIFY_URL, the address the trust-check service advertises; null = http://host:verifyPort. */
    verifyUrl: z.url({ protocol: /^https?$/ }).nullable(),
    /** Trust check: PAYWATCH_VERIFY_TIMEOUT_MS (total budget for fetching a checked URL, all hops) and PAYWATCH_VERIFY_MAX_BYTES (body cap). */
    verifyTimeoutMs: z.coerce.number().int().min(100).max(60_000),
    verifyMaxBytes: z.coerce
      .number()
      .int()
      .min(1024)
      .max(16 * 1024 * 1024),
    /** Trust check: PAYWATCH_VERIFY_ALLOW_LOOPBACK=1 lets checks reach 127.0.0.1 (local demo and tests only). */
    verifyAllowLoopback: z.preprocess((v) => v === true || v === '1' || v === 'true', z.boolean()),
    /** Trust check: PAYWATCH_VERIFY_MAX_IN_FLIGHT, checks running at once at most (503 + Retry-After beyond). */
    verifyMaxInFlight: z.coerce.number().int().min(1).max(10_000),
    /** Trust check: PAYWATCH_VERIFY_KEYS_PER_HOUR, free keys POST /v1/keys issues per client address per hour. */
    verifyKeysPerHour: z.coerce.number().int().min(1),
    /** Trust check: PAYWATCH_TRUST_CHANGE_WINDOW_DAYS, how far back recorded payTo, price, network and asset changes count (docs/trust-check.md). */
    trustChangeWindowDays: z.coerce.number().min(0).max(3650),
    /** Trust check x402 per-call payment: payTo (PAYWATCH_X402_PAY_TO; null = per-call payment off), token, network, facilitator. */
    x402PayTo: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/)
      .nullable(),
    x402Asset: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/)
      .nullable(),
    /** EIP-712 domain name and version of the x402 token (the exact scheme signs against them), and its decimals. */
    x402AssetName: z.string().min(1),
    x402AssetVersion: z.string().min(1),
    x402AssetDecimals: z.coerce.number().int().min(0).max(36),
    x402Network: z.string().regex(/^[a-z0-9-]+:[A-Za-z0-9-]+$/),
    x402FacilitatorUrl: z.url({ protocol: /^https?$/ }).nullable(),
    /** PAYWATCH_RPC_TIMEOUT_MS: milliseconds before one JSON-RPC HTTP request is abandoned and retried. */
    rpcTimeoutMs: z.coerce.number().int().min(100).max(600_000),
    /** Intake: PAYWATCH_SECRET (64 hex chars) or PAYWATCH_SECRET_FILE (a file holding them); null = not configured. */
    secret: z.string().nullable(),
    secretFile: z.string().nullable(),
    /** Intake: PAYWATCH_KEY_GRACE_SECONDS, how long a rotated HMAC key keeps verifying (default 86,400 = 24 h). */
    keyGraceSeconds: z.coerce.number().int().min(0),
    /** Intake: PAYWATCH_INTAKE_RATE_LIMIT, signed deliveries per connection or producer per minute. */
    intakeRateLimitPerMinute: z.coerce.number().int().min(1),
    /** PAYWATCH_AUTH_FAILURE_LIMIT: failed authentications (intake signatures, operator tokens, trust-check API keys) per client address (IPv6: per /64) per minute before 429. */
    authFailureLimitPerMinute: z.coerce.number().int().min(1),
    /** Every listener: PAYWATCH_REQUEST_TIMEOUT_SECONDS, the time a client has to send a whole request (head and body; not the answer). */
    requestTimeoutSeconds: seconds,
    /** Every listener: PAYWATCH_HEADERS_TIMEOUT_SECONDS, the time a client has to send a request's head (at most the request timeout). */
    headersTimeoutSeconds: seconds,
    /** Every listener: PAYWATCH_KEEP_ALIVE_SECONDS, how long (whole seconds: Keep-Alive's timeout is in seconds) an idle kept-alive connection waits for its next request. */
    keepAliveSeconds: z.coerce.number().int().min(1).max(86_400),
    /** Every listener: PAYWATCH_CONNECTION_IDLE_SECONDS, a connection with no bytes moving either way this long is closed (longer than the slowest answer). */
    connectionIdleSeconds: seconds,
    /** Every listener: PAYWATCH_MAX_CONNECTIONS, open connections at most; Node closes further ones at once. */
    maxConnections: z.coerce.number().int().min(1),
    /** Public API: PAYWATCH_EXPORT_IDLE_SECONDS, a CSV export whose client takes no bytes this long is aborted and frees its slot. */
    exportIdleSeconds: seconds,
    /** Public API: PAYWATCH_PUBLIC_URL, the address the manifest and documents advertise; null = http://host:port. */
    publicUrl: z.url({ protocol: /^https?$/ }).nullable(),
    /**
     * Every listener: `--trust-proxy` / PAYWATCH_TRUST_PROXY, which reverse proxies' X-Forwarded-For to believe, so
     * rate limits and quotas key on the real client: false (off), a hop count, or proxy addresses and CIDRs.
     */
    trustProxy: z.preprocess(
      (v) => parseTrustProxy(v),
      z.union([z.literal(false), z.number().int().min(1).max(16), z.array(z.string()).min(1)]),
    ),
    /** `--metrics-port` / PAYWATCH_METRICS_PORT: the Prometheus metrics listener's port; null = off. */
    metricsPort: port.nullable(),
    /** `--metrics-host` / PAYWATCH_METRICS_HOST: the metrics listener's address (loopback by default). */
    metricsHost: z.string().min(1),
    /** PAYWATCH_SHUTDOWN_GRACE_SECONDS: on SIGTERM, how long in-flight requests may take to finish before they are cut. */
    shutdownGraceSeconds: seconds,
  })
  .superRefine((c, ctx) => {
    // A replica is a PostgreSQL thing: a SQLite file has one writer and its readers read the file itself.
    if (c.dbRead !== null && !/^postgres(ql)?:\/\//i.test(c.db.trim())) {
      ctx.addIssue({
        code: 'custom',
        path: ['dbRead'],
        message: '--db-read needs a PostgreSQL --db (postgres://…); a SQLite store is read from its own file',
      });
    }
    // Node refuses a head timeout longer than the whole request's (http.createServer, ERR_OUT_OF_RANGE).
    if (c.headersTimeoutSeconds > c.requestTimeoutSeconds) {
      ctx.addIssue({
        code: 'custom',
        path: ['headersTimeoutSeconds'],
        message: `must be at most the request timeout (${c.requestTimeoutSeconds} s)`,
      });
    }
  });

export type Config = Readonly<z.infer<typeof ConfigSchema>>;

/**
 * Reads a trust-proxy setting: "false"/"0"/"off" → false; a whole number → that many proxy hops; otherwise a
 * comma-separated list of proxy addresses or CIDRs (checked by ipaddr.js), as Fastify's `trustProxy` takes them
 * (https://fastify.dev/docs/latest/Reference/Server/#trustproxy). "true" (believe any X-Forwarded-For) is refused:
 * any client could then choose its own address and rate-limit bucket.
 * @returns the setting, or the input unchanged when it cannot be read (the schema then names the problem)
 */
function parseTrustProxy(v: unknown): unknown {
  if (v === false || v === undefined || v === null) return false;
  const text = String(v).trim();
  if (/^(false|0|off|no)$/i.test(text)) return false;
  if (/^\d+$/.test(text)) return Number(text);
  const list = text
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  const valid = (a: string) => {
    const [addr, bits] = a.split('/');
    // Dotted quads only: ipaddr.js also reads "1" as 0.0.0.1, which here is surely a typo.
    if (!ipaddr.IPv4.isValidFourPartDecimal(addr!) && !ipaddr.IPv6.isValid(addr!)) return false;
    if (bits === undefined) return true;
    const max = ipaddr.parse(addr!).kind() === 'ipv4' ? 32 : 128;
    return /^\d+$/.test(bits) && Number(bits) <= max;
  };
  return list.length && list.every(valid) ? list : text;
}

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
    dbRead: pick(flags.dbRead, 'PAYWATCH_DB_READ', null),
    redis: pick(flags.redis, 'PAYWATCH_REDIS_URL', null),
    rpcUrl: pick(flags.rpcUrl, 'PAYWATCH_RPC_URL', DEFAULT_RPC),
    port: pick(flags.port, 'PORT', 8080),
    host: pick(flags.host, 'PAYWATCH_HOST', '127.0.0.1'),
    from: pick(flags.from, 'PAYWATCH_FROM', null),
    tokenList: pick(flags.tokenList, 'PAYWATCH_TOKENLIST', null),
    logLevel: pick(flags.logLevel, 'PAYWATCH_LOG_LEVEL', 'info'),
    readers: pick(flags.readers, 'PAYWATCH_READERS', 2),
    heavyPerClient: pick(flags.heavyPerClient, 'PAYWATCH_HEAVY_PER_CLIENT', 2),
    rateLimitPerMinute: pick(flags.rateLimitPerMinute, 'PAYWATCH_RATE_LIMIT', 600),
    batchSize: pick(flags.batchSize, 'PAYWATCH_BATCH_SIZE', 50),
    rpcConcurrency: pick(flags.rpcConcurrency, 'PAYWATCH_RPC_CONCURRENCY', 8),
    decodeWorkers: pick(flags.decodeWorkers, 'PAYWATCH_DECODE_WORKERS', null),
    pollIntervalMs: pick(flags.pollIntervalMs, 'PAYWATCH_POLL_MS', 1000),
    intelStaleDays: pick(flags.intelStaleDays, 'PAYWATCH_INTEL_STALE_DAYS', 7),
    intelIntervalSeconds: pick(flags.intelIntervalSeconds, 'PAYWATCH_INTEL_INTERVAL_SECONDS', 3600),
    sources: pick(flags.sources, 'PAYWATCH_SOURCES', DEFAULT_SOURCES_SPEC),
    verifyPort: pick(flags.verifyPort, 'PAYWATCH_VERIFY_PORT', 8081),
    verifyUrl: pick(flags.verifyUrl, 'PAYWATCH_VERIFY_URL', null),
    verifyTimeoutMs: pick(flags.verifyTimeoutMs, 'PAYWATCH_VERIFY_TIMEOUT_MS', 10_000),
    verifyMaxBytes: pick(flags.verifyMaxBytes, 'PAYWATCH_VERIFY_MAX_BYTES', 1024 * 1024),
    verifyAllowLoopback: pick(flags.verifyAllowLoopback, 'PAYWATCH_VERIFY_ALLOW_LOOPBACK', '0'),
    verifyMaxInFlight: pick(flags.verifyMaxInFlight, 'PAYWATCH_VERIFY_MAX_IN_FLIGHT', 32),
    verifyKeysPerHour: pick(flags.verifyKeysPerHour, 'PAYWATCH_VERIFY_KEYS_PER_HOUR', 5),
    trustChangeWindowDays: pick(flags.trustChangeWindowDays, 'PAYWATCH_TRUST_CHANGE_WINDOW_DAYS', 30),
    x402PayTo: pick(flags.x402PayTo, 'PAYWATCH_X402_PAY_TO', null),
    x402Asset: pick(flags.x402Asset, 'PAYWATCH_X402_ASSET', null),
    x402AssetName: pick(flags.x402AssetName, 'PAYWATCH_X402_ASSET_NAME', 'USD Coin'),
    x402AssetVersion: pick(flags.x402AssetVersion, 'PAYWATCH_X402_ASSET_VERSION', '2'),
    x402AssetDecimals: pick(flags.x402AssetDecimals, 'PAYWATCH_X402_ASSET_DECIMALS', 6),
    x402Network: pick(flags.x402Network, 'PAYWATCH_X402_NETWORK', 'eip155:4217'),
    x402FacilitatorUrl: pick(flags.x402FacilitatorUrl, 'PAYWATCH_X402_FACILITATOR_URL', null),
    rpcTimeoutMs: pick(flags.rpcTimeoutMs, 'PAYWATCH_RPC_TIMEOUT_MS', 10_000),
    secret: pick(flags.secret, 'PAYWATCH_SECRET', null),
    secretFile: pick(flags.secretFile, 'PAYWATCH_SECRET_FILE', null),
    keyGraceSeconds: pick(flags.keyGraceSeconds, 'PAYWATCH_KEY_GRACE_SECONDS', 86_400),
    intakeRateLimitPerMinute: pick(flags.intakeRateLimitPerMinute, 'PAYWATCH_INTAKE_RATE_LIMIT', 6000),
    authFailureLimitPerMinute: pick(flags.authFailureLimitPerMinute, 'PAYWATCH_AUTH_FAILURE_LIMIT', 30),
    requestTimeoutSeconds: pick(flags.requestTimeoutSeconds, 'PAYWATCH_REQUEST_TIMEOUT_SECONDS', 30),
    headersTimeoutSeconds: pick(flags.headersTimeoutSeconds, 'PAYWATCH_HEADERS_TIMEOUT_SECONDS', 10),
    keepAliveSeconds: pick(flags.keepAliveSeconds, 'PAYWATCH_KEEP_ALIVE_SECONDS', 5),
    connectionIdleSeconds: pick(flags.connectionIdleSeconds, 'PAYWATCH_CONNECTION_IDLE_SECONDS', 120),
    maxConnections: pick(flags.maxConnections, 'PAYWATCH_MAX_CONNECTIONS', 1024),
    exportIdleSeconds: pick(flags.exportIdleSeconds, 'PAYWATCH_EXPORT_IDLE_SECONDS', 15),
    publicUrl: pick(flags.publicUrl, 'PAYWATCH_PUBLIC_URL', null),
    trustProxy: pick(flags.trustProxy, 'PAYWATCH_TRUST_PROXY', 'false'),
    metricsPort: pick(flags.metricsPort, 'PAYWATCH_METRICS_PORT', null),
    metricsHost: pick(flags.metricsHost, 'PAYWATCH_METRICS_HOST', '127.0.0.1'),
    shutdownGraceSeconds: pick(flags.shutdownGraceSeconds, 'PAYWATCH_SHUTDOWN_GRACE_SECONDS', 10),
  };
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`invalid setting ${issue.path.join('.')}: ${issue.message}`);
  }
  return Object.freeze(parsed.data);
}

/** A configuration problem; its message is one line meant for the person running the command. */
export class ConfigError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'config' });
  }
}
