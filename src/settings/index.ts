/**
 * Every setting paywatch reads, declared once: its environment variable, its flag (when it has one) and the
 * commands that take it, its default, its zod schema, its `--help` line and its README meaning. Built from this
 * table: the configuration's schema and the environment reading (src/config.ts), the commander options and their
 * `--help` text (src/cli/options.ts), and the README's Configuration table (`npm run docs:tables`; held equal by
 * test/settings/settings.test.ts). A bad value is reported by the flag or variable the user typed.
 *
 * Adding a setting is one entry here (docs/architecture.md#settings): its member of Config, its variable, its flag
 * on the commands listed, its line in `--help` and its README row all follow.
 * Model: fastify's options declared once with their defaults (build/build-validation.js).
 */
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { DEFAULT_SOURCES_SPEC, parseSources } from '../domain/sources.js';
import { shortMessage } from '../domain/errors.js';
import { TEMPO_PUBLIC_RPC } from '../domain/tempo.js';

/**
 * The commands a flag can be on. `operator` is every `paywatch operator …` subcommand; `operator sender keys` the
 * ones that seal a sender's key (connection create and rotate, producer enroll and rotate).
 */
export const COMMANDS = [
  'start',
  'collect',
  'serve',
  'demo',
  'seed',
  'verify',
  'intel collect',
  'intel verify-archive',
  'integrity verify',
  'operator',
  'operator sender keys',
  'compact',
] as const;
export type CommandName = (typeof COMMANDS)[number];

/** One setting. */
export interface Setting {
  /** The environment variable that sets it. */
  readonly env: string;
  /** The commander flag with its argument (`--db <location>`); absent when only the environment sets it. */
  readonly flag?: string;
  /** The commands that take the flag. */
  readonly commands?: readonly CommandName[];
  /** The value used when neither flag nor variable gives one, as the schema reads it; null: none. */
  readonly default: string | number | null;
  /** How the README and `--help` show the default when the value alone does not say it (backticks for code). */
  readonly defaultText?: string;
  /** Validates and converts the raw value (a string from a flag or the environment, or the default). */
  readonly schema: z.ZodType;
  /** The flag may be given more than once; its values are joined with spaces (as the variable is written). */
  readonly repeatable?: boolean;
  /** The `--help` line (the variable and default are added). */
  readonly help: string;
  /** The README's meaning column; default: `help`. */
  readonly doc?: string;
}

/** The commands every flag of the store and the log is on. */
const EVERY_COMMAND = COMMANDS.filter((c) => c !== 'operator sender keys');
/** Commands that run a listener. */
const LISTENERS = ['start', 'serve', 'demo', 'verify'] as const;
/** Commands that run the chain collector. */
const COLLECTORS = ['start', 'collect', 'demo'] as const;

const port = z.coerce.number().int().min(0).max(65535);
/** A duration in seconds (fractions allowed) for a listener timeout: a millisecond to a day. */
const seconds = z.coerce.number().min(0.001).max(86_400);
const httpUrl = z.url({ protocol: /^https?$/ });
const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address of 40 hex digits')
  .nullable();

/** The settings by their Config member; the order is the README's. */
export const SETTINGS = {
  db: {
    env: 'PAYWATCH_DB',
    flag: '--db <location>',
    commands: EVERY_COMMAND,
    default: './data/paywatch.sqlite',
    schema: z.string().min(1),
    help: 'store: a path, sqlite:PATH or postgres://…',
    doc: 'the store: a path, `sqlite:PATH`, or `postgres://…`',
  },
  dbRead: {
    env: 'PAYWATCH_DB_READ',
    flag: '--db-read <url>',
    commands: ['start', 'serve'],
    default: null,
    defaultText: 'none: read `--db`',
    schema: z
      .string()
      .regex(/^postgres(ql)?:\/\//i, 'must be a postgres:// URL (a streaming replica of --db)')
      .nullable(),
    help: 'PostgreSQL streaming replica of --db for the public reads',
    doc: 'a PostgreSQL streaming replica of `--db` for the public reads; refused with a SQLite `--db`. Reads fail over to `--db` while it is down; `/api/status` → `replica` shows its replay lag',
  },
  redis: {
    env: 'PAYWATCH_REDIS_URL',
    flag: '--redis <url>',
    commands: ['start', 'serve', 'verify'],
    default: null,
    defaultText: 'none: limits counted per process',
    schema: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).nullable(),
    help: 'Redis (redis:// or rediss://) shared by every replica for per-client limits',
    doc: 'a Redis (`redis://[:password@]host:port[/db]` or `rediss://`) where every replica counts the per-client limits (rate limits, free-key issuance, failed authentications), so N replicas enforce each limit once. While it does not answer, limits count per process (logged once, `/readyz` → `limits.shared: false`) and return to Redis when it is back; its password never reaches the log or `/readyz`',
  },
  rpcUrl: {
    env: 'PAYWATCH_RPC_URL',
    flag: '--rpc <url>',
    commands: ['start', 'collect', 'serve', 'demo', 'verify'],
    default: TEMPO_PUBLIC_RPC,
    schema: httpUrl,
    help: "Tempo JSON-RPC URL (default: Tempo mainnet's public endpoint)",
    doc: "the Tempo JSON-RPC node (http or https); the default is Tempo mainnet's public endpoint, whose batch and rate limits are not published (the collector finds them: docs/collector.md#rpc-limits)",
  },
  port: {
    env: 'PORT',
    flag: '--port <n>',
    commands: ['start', 'serve', 'demo'],
    default: 8080,
    schema: port,
    help: 'public API port',
  },
  host: {
    env: 'PAYWATCH_HOST',
    flag: '--host <addr>',
    commands: LISTENERS,
    default: '127.0.0.1',
    schema: z.string().min(1),
    help: 'listen address',
    doc: 'the address every listener binds',
  },
  trustProxy: {
    env: 'PAYWATCH_TRUST_PROXY',
    flag: '--trust-proxy <hops|addresses>',
    commands: LISTENERS,
    default: 'false',
    defaultText: 'off',
    schema: z.preprocess(
      (v) => parseTrustProxy(v),
      z.union([z.literal(false), z.number().int().min(1).max(16), z.array(z.string()).min(1)], {
        error: 'must be off, a hop count (1–16), or proxy addresses or CIDRs, comma-separated ("true" is refused)',
      }),
    ),
    help: 'believe X-Forwarded-For from reverse proxies: a hop count or proxy addresses/CIDRs, comma-separated',
    doc: 'behind a reverse proxy: the proxies whose `X-Forwarded-For` to believe, as addresses or CIDRs (`10.0.0.5,10.1.0.0/16`) or a hop count (`1`; only when the listener is reachable through the proxy alone), so rate limits and free-key limits key on the real client; `true` is refused',
  },
  publicUrl: {
    env: 'PAYWATCH_PUBLIC_URL',
    default: null,
    defaultText: "the request's address",
    schema: httpUrl.nullable(),
    help: 'the public API address clients see',
    doc: "the public API's address as clients see it (OpenAPI `servers`, else `/`; the manifest and `/api/status`'s link, else the scheme and Host each request was sent to, answered `Cache-Control: private`)",
  },
  metricsPort: {
    env: 'PAYWATCH_METRICS_PORT',
    flag: '--metrics-port <n>',
    commands: ['start', 'collect', 'serve', 'demo', 'verify'],
    default: null,
    defaultText: 'off',
    schema: port.nullable(),
    help: 'serve Prometheus metrics on this port',
    doc: 'the Prometheus metrics listener (`GET /metrics`) port',
  },
  metricsHost: {
    env: 'PAYWATCH_METRICS_HOST',
    flag: '--metrics-host <addr>',
    commands: ['start', 'collect', 'serve', 'demo', 'verify'],
    default: '127.0.0.1',
    schema: z.string().min(1),
    help: 'metrics listener address',
    doc: "the Prometheus metrics listener's address",
  },
  shutdownGraceSeconds: {
    env: 'PAYWATCH_SHUTDOWN_GRACE_SECONDS',
    default: 10,
    schema: seconds,
    help: 'on SIGTERM/SIGINT, how long requests in flight may take to finish before they are cut',
  },
  from: {
    env: 'PAYWATCH_FROM',
    flag: '--from <height>',
    commands: COLLECTORS,
    default: null,
    defaultText: 'finalized head − 10,000',
    schema: z.coerce.number().int().min(0).nullable(),
    help: 'first block height on a fresh store',
    doc: 'first height on a fresh store (then the checkpoint)',
  },
  tokenList: {
    env: 'PAYWATCH_TOKENLIST',
    flag: '--tokenlist <path>',
    commands: ['start', 'collect', 'serve', 'demo', 'seed', 'verify'],
    default: null,
    defaultText: "Tempo mainnet's listed tokens, built in",
    schema: z.string().min(1).nullable(),
    help: 'token list (Uniswap format): only its tokens count as dollars',
    doc: 'token list (Uniswap format): only its tokens whose `currency()` is USD count in `nominal`; symbols on it name only its contracts',
  },
  logLevel: {
    env: 'PAYWATCH_LOG_LEVEL',
    flag: '--log-level <level>',
    commands: EVERY_COMMAND,
    default: 'info',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    help: 'fatal|error|warn|info|debug|trace|silent',
    doc: 'pino level',
  },
  batchSize: {
    env: 'PAYWATCH_BATCH_SIZE',
    flag: '--batch-size <n>',
    commands: COLLECTORS,
    default: 50,
    schema: z.coerce.number().int().min(1).max(1000),
    help: 'blocks fetched and written per run',
  },
  rpcConcurrency: {
    env: 'PAYWATCH_RPC_CONCURRENCY',
    flag: '--rpc-concurrency <n>',
    commands: COLLECTORS,
    default: 8,
    schema: z.coerce.number().int().min(1).max(64),
    help: 'JSON-RPC HTTP requests in flight',
  },
  rpcBatchCalls: {
    env: 'PAYWATCH_RPC_BATCH_CALLS',
    flag: '--rpc-batch-calls <n>',
    commands: COLLECTORS,
    default: 40,
    schema: z.coerce.number().int().min(1).max(1000),
    help: 'most JSON-RPC calls per HTTP request (halved when the node refuses a batch as too large, then probed back up to its cap)',
  },
  rpcRate: {
    env: 'PAYWATCH_RPC_RATE',
    flag: '--rpc-rate <n>',
    commands: COLLECTORS,
    default: null,
    defaultText: 'none',
    schema: z.coerce.number().positive().max(10_000).nullable(),
    help: 'JSON-RPC HTTP requests per second from the start (default: paced only after the node answers 429)',
  },
  pollIntervalMs: {
    env: 'PAYWATCH_POLL_MS',
    flag: '--poll-interval-ms <ms>',
    commands: COLLECTORS,
    default: 1000,
    schema: z.coerce.number().int().min(50),
    help: 'head poll interval once caught up',
    doc: 'milliseconds between polls of the finalized head once caught up',
  },
  retainDays: {
    env: 'PAYWATCH_RETAIN_DAYS',
    flag: '--retain-days <n>',
    commands: COLLECTORS,
    default: null,
    defaultText: 'off',
    schema: z.coerce.number().int().min(1).max(36_500).nullable(),
    help: 'delete observations older than this many days, in small batches while collecting (default: keep all)',
    doc: 'days of observations kept: older ones (with their details and blocks) are deleted in small batches while collecting; `/api/coverage` `historical` says from where data is retained ([docs/deploy.md](docs/deploy.md#retention))',
  },
  rpcTimeoutMs: {
    env: 'PAYWATCH_RPC_TIMEOUT_MS',
    default: 10_000,
    schema: z.coerce.number().int().min(100).max(600_000),
    help: 'milliseconds before one JSON-RPC HTTP request is abandoned and retried',
  },
  decodeWorkers: {
    env: 'PAYWATCH_DECODE_WORKERS',
    default: null,
    defaultText: '0',
    schema: z.coerce.number().int().min(0).max(16).nullable(),
    help: 'worker threads for integrity + decoding, 0 = the main thread (only worth it with cores to spare)',
  },
  consensusRpc: {
    env: 'PAYWATCH_CONSENSUS_RPC',
    flag: '--consensus-rpc <url>',
    commands: COLLECTORS,
    default: null,
    defaultText: 'the collection node (`--rpc`)',
    schema: httpUrl.nullable(),
    help: 'node serving consensus_getFinalization (finality certificates)',
    doc: 'the node asked for finalization certificates (`consensus_getFinalization`); a node without the `consensus_*` namespace leaves finality `unknown` (see [docs/integrity.md](docs/integrity.md))',
  },
  consensusGenesis: {
    env: 'PAYWATCH_CONSENSUS_GENESIS',
    flag: '--consensus-genesis <hex>',
    commands: [...COLLECTORS, 'integrity verify'],
    default: null,
    defaultText: "mainnet's genesis outcome, built in",
    schema: z
      .string()
      .regex(/^(0x)?([0-9a-fA-F]{2})+$/, 'must be hex bytes (a genesis extraData holding an epoch DKG outcome)')
      .max(2 + 2 * 64 * 1024)
      .nullable(),
    help: 'genesis extraData whose DKG outcome anchors the group key',
    doc: "a genesis `extraData` (hex) whose DKG outcome's group key anchors finality verification; other networks and tests pass their own",
  },
  consensusEpochLength: {
    env: 'PAYWATCH_CONSENSUS_EPOCH_LENGTH',
    flag: '--consensus-epoch-length <n>',
    commands: [...COLLECTORS, 'integrity verify'],
    default: 21_600,
    defaultText: '21600 (chain 4217)',
    schema: z.coerce.number().int().min(1).max(1e12),
    help: 'blocks per consensus epoch',
  },
  witnesses: {
    env: 'PAYWATCH_WITNESSES',
    flag: '--witness <url>',
    commands: COLLECTORS,
    repeatable: true,
    default: null,
    defaultText: 'none',
    schema: z.preprocess(
      (v) => (v === null || v === undefined ? [] : String(v).split(/\s+/).filter(Boolean)),
      z.array(httpUrl).max(16, 'at most 16 witnesses'),
    ),
    help: 'independent node asked for its block hash at each certified height (repeatable; env space-separated)',
    doc: "an independent operator's node asked, at each certified height, for its finalized head and its block hash there (repeatable; the variable is space-separated). A disagreeing witness is an alarm (log, `/api/status`, metrics), never unverifies a certificate; keys in its URL are never logged or shown",
  },
  witnessQuorum: {
    env: 'PAYWATCH_WITNESS_QUORUM',
    flag: '--witness-quorum <n>',
    commands: COLLECTORS,
    default: null,
    defaultText: 'the number of witnesses',
    schema: z.coerce.number().int().min(0).max(16).nullable(),
    help: 'agreeing witnesses wanted',
  },
  rateLimitPerMinute: {
    env: 'PAYWATCH_RATE_LIMIT',
    default: 600,
    schema: z.coerce.number().int().min(1),
    help: 'requests per client per minute on each listener (IPv6: per /64)',
  },
  heavyPerClient: {
    env: 'PAYWATCH_HEAVY_PER_CLIENT',
    default: 2,
    schema: z.coerce.number().int().min(1).max(64),
    help: 'metrics, export or filtered-list requests one client may have in flight at once (429 + `Retry-After` beyond; the manifest publishes it)',
  },
  readyMaxLagSeconds: {
    env: 'PAYWATCH_READY_MAX_LAG_SECONDS',
    default: 300,
    schema: z.coerce.number().int().min(1).max(604_800),
    help: 'seconds of chain time the collection may lag behind the finalized head before `GET /readyz/collector` answers 503 (it also does while the collector is in `error` or blocks are quarantined); `/readyz` is not affected',
  },
  readers: {
    env: 'PAYWATCH_READERS',
    default: 2,
    schema: z.coerce.number().int().min(0).max(16),
    help: "reader threads for heavy chain reads on a SQLite store (metrics, uncached counts, export), so one client's heavy query never stalls the others; 0 = on the main thread",
  },
  requestTimeoutSeconds: {
    env: 'PAYWATCH_REQUEST_TIMEOUT_SECONDS',
    default: 30,
    schema: seconds,
    help: 'every listener: the time a client has to send a whole request, head and body (408 `{error}` past it); sending the answer is not limited by it, so a long CSV export is not cut',
  },
  headersTimeoutSeconds: {
    env: 'PAYWATCH_HEADERS_TIMEOUT_SECONDS',
    default: 10,
    schema: seconds,
    help: "every listener: the time a client has to send a request's head (408 `{error}` past it; at most the request timeout)",
  },
  keepAliveSeconds: {
    env: 'PAYWATCH_KEEP_ALIVE_SECONDS',
    default: 5,
    schema: z.coerce.number().int().min(1).max(86_400),
    help: 'every listener: an idle kept-alive connection is closed after this long (whole seconds)',
  },
  connectionIdleSeconds: {
    env: 'PAYWATCH_CONNECTION_IDLE_SECONDS',
    default: 120,
    schema: seconds,
    help: 'every listener: a connection with no bytes moving either way this long is closed; keep it above the slowest answer (a trust check waits up to `PAYWATCH_VERIFY_TIMEOUT_MS`)',
  },
  maxConnections: {
    env: 'PAYWATCH_MAX_CONNECTIONS',
    default: 1024,
    schema: z.coerce.number().int().min(1),
    help: "every listener: open connections at most; Node closes further ones as soon as they are accepted (keep the process's open-file limit above the total)",
  },
  exportIdleSeconds: {
    env: 'PAYWATCH_EXPORT_IDLE_SECONDS',
    default: 15,
    schema: seconds,
    help: 'a CSV export whose client takes no bytes this long is cut (connection reset) and frees its export slot',
  },
  intakeRateLimitPerMinute: {
    env: 'PAYWATCH_INTAKE_RATE_LIMIT',
    default: 6000,
    schema: z.coerce.number().int().min(1),
    help: 'signed deliveries per sender (connection or producer) per minute',
  },
  authFailureLimitPerMinute: {
    env: 'PAYWATCH_AUTH_FAILURE_LIMIT',
    default: 30,
    schema: z.coerce.number().int().min(1),
    help: 'failed authentications (intake signatures, operator tokens, trust-check API keys) per client address (IPv6: per /64) per minute before 429',
  },
  keyGraceSeconds: {
    env: 'PAYWATCH_KEY_GRACE_SECONDS',
    default: 86_400,
    schema: z.coerce.number().int().min(0),
    help: 'how long a rotated intake key keeps verifying',
  },
  sources: {
    env: 'PAYWATCH_SOURCES',
    flag: '--sources <spec>',
    commands: ['intel collect'],
    default: DEFAULT_SOURCES_SPEC,
    defaultText: 'CDP Bazaar and the mpp.dev registry',
    schema: z
      .string()
      .min(1)
      .superRefine((v, ctx) => {
        try {
          parseSources(v);
        } catch (e) {
          ctx.addIssue({ code: 'custom', message: shortMessage(e) });
        }
      }),
    help: 'directories: [name=]kind:url,… or @file.json',
    doc: 'directories to discover paid services in (`[name=]kind:url,…` or `@file.json`)',
  },
  intelIntervalSeconds: {
    env: 'PAYWATCH_INTEL_INTERVAL_SECONDS',
    default: 3600,
    schema: z.coerce.number().int().min(1),
    help: 'seconds between intel collection runs (sources, then probes)',
  },
  intelStaleDays: {
    env: 'PAYWATCH_INTEL_STALE_DAYS',
    default: 7,
    schema: z.coerce.number().min(0).max(3650),
    help: 'days a service may keep failing before its listing is stale (hidden from default provider search)',
  },
  verifyPort: {
    env: 'PAYWATCH_VERIFY_PORT',
    flag: '--verify-port <n>',
    commands: ['start', 'demo', 'verify'],
    default: 8081,
    schema: port,
    help: 'trust-check listener port',
  },
  verifyUrl: {
    env: 'PAYWATCH_VERIFY_URL',
    default: null,
    defaultText: '`http://HOST:VERIFY_PORT`',
    schema: httpUrl.nullable(),
    help: "the address the trust check advertises (in the manifest, else the request's host with the verify port: in `start` and `demo` the port the trust-check listener really has, e.g. with `--verify-port 0`)",
  },
  verifyTimeoutMs: {
    env: 'PAYWATCH_VERIFY_TIMEOUT_MS',
    default: 10_000,
    schema: z.coerce.number().int().min(100).max(60_000),
    help: "time budget of a check's fetches, all hops, in milliseconds",
  },
  verifyMaxBytes: {
    env: 'PAYWATCH_VERIFY_MAX_BYTES',
    default: 1024 * 1024,
    defaultText: '1 MiB',
    schema: z.coerce
      .number()
      .int()
      .min(1024)
      .max(16 * 1024 * 1024),
    help: "size cap of a check's fetched body, in bytes",
  },
  verifyKeysPerHour: {
    env: 'PAYWATCH_VERIFY_KEYS_PER_HOUR',
    default: 5,
    schema: z.coerce.number().int().min(1),
    help: 'free keys `POST /v1/keys` issues per client address per hour',
  },
  verifyMaxInFlight: {
    env: 'PAYWATCH_VERIFY_MAX_IN_FLIGHT',
    default: 32,
    schema: z.coerce.number().int().min(1).max(10_000),
    help: 'trust checks running at once (503 + `Retry-After` beyond; never metered)',
  },
  verifyMaxInFlightPerClient: {
    env: 'PAYWATCH_VERIFY_MAX_IN_FLIGHT_PER_CLIENT',
    default: 4,
    schema: z.coerce.number().int().min(1).max(10_000),
    help: 'trust checks running at once per client address and per API key (429 + `Retry-After` beyond; at most `PAYWATCH_VERIFY_MAX_IN_FLIGHT` − 1)',
  },
  verifyFreeKeysPerMonth: {
    env: 'PAYWATCH_VERIFY_FREE_KEYS_PER_MONTH',
    default: 3,
    schema: z.coerce.number().int().min(0).max(1000),
    help: 'free keys `POST /v1/keys` issues per client address (IPv6 /64) per UTC calendar month, counted in the store',
  },
  verifyKeyIdleDays: {
    env: 'PAYWATCH_VERIFY_KEY_IDLE_DAYS',
    default: 90,
    schema: z.coerce.number().int().min(1).max(3650),
    help: 'a free key unused this many days expires (401 naming the expiry; see [docs/trust-check.md](docs/trust-check.md))',
  },
  verifyAllowLoopback: {
    env: 'PAYWATCH_VERIFY_ALLOW_LOOPBACK',
    default: '0',
    schema: z.preprocess((v) => v === true || v === '1' || v === 'true', z.boolean()),
    help: 'let checks reach loopback targets (local demo and tests only)',
  },
  trustChangeWindowDays: {
    env: 'PAYWATCH_TRUST_CHANGE_WINDOW_DAYS',
    default: 30,
    schema: z.coerce.number().min(0).max(3650),
    help: 'recorded payTo, price, network and asset changes this recent make a trust check warn (see [docs/trust-check.md](docs/trust-check.md))',
  },
  secret: {
    env: 'PAYWATCH_SECRET',
    default: null,
    defaultText: 'none',
    schema: z.string().nullable(),
    help: 'the master secret (64 hex characters) encrypting HMAC keys at rest; wins over `PAYWATCH_SECRET_FILE` (see [docs/intake.md](docs/intake.md))',
  },
  secretFile: {
    env: 'PAYWATCH_SECRET_FILE',
    flag: '--secret-file <path>',
    commands: ['operator sender keys'],
    default: null,
    defaultText: 'none',
    schema: z.string().nullable(),
    help: 'file with the 64-hex-character master secret',
    doc: 'a file holding the master secret (see [docs/intake.md](docs/intake.md))',
  },
  x402PayTo: {
    env: 'PAYWATCH_X402_PAY_TO',
    default: null,
    defaultText: 'none: per-call payment off',
    schema: address,
    help: 'x402 per-call payment of the trust check: the payTo address (see [docs/trust-check.md](docs/trust-check.md))',
  },
  x402Asset: {
    env: 'PAYWATCH_X402_ASSET',
    default: null,
    defaultText: 'none',
    schema: address,
    help: 'x402: the token contract paid in',
  },
  x402AssetName: {
    env: 'PAYWATCH_X402_ASSET_NAME',
    default: 'USD Coin',
    schema: z.string().min(1),
    help: "x402: the token's EIP-712 domain name (the exact scheme signs against it)",
  },
  x402AssetVersion: {
    env: 'PAYWATCH_X402_ASSET_VERSION',
    default: '2',
    schema: z.string().min(1),
    help: "x402: the token's EIP-712 domain version",
  },
  x402AssetDecimals: {
    env: 'PAYWATCH_X402_ASSET_DECIMALS',
    default: 6,
    schema: z.coerce.number().int().min(0).max(36),
    help: "x402: the token's decimals",
  },
  x402Network: {
    env: 'PAYWATCH_X402_NETWORK',
    default: 'eip155:4217',
    schema: z.string().regex(/^[a-z0-9-]+:[A-Za-z0-9-]+$/, 'must be a CAIP-2 network id (namespace:reference)'),
    help: 'x402: the network (CAIP-2)',
  },
  x402FacilitatorUrl: {
    env: 'PAYWATCH_X402_FACILITATOR_URL',
    default: null,
    defaultText: 'none',
    schema: httpUrl.nullable(),
    help: 'x402: the facilitator that verifies and settles payments',
  },
} as const satisfies Record<string, Setting>;

/** A setting's name: its member of Config. */
export type SettingKey = keyof typeof SETTINGS;

/** Every setting's key, in table order. */
export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];

/** The flag's name without its argument (`--db`), or null when the setting has no flag. */
export function flagName(key: SettingKey): string | null {
  const s: Setting = SETTINGS[key];
  return s.flag ? s.flag.split(' ')[0]! : null;
}

/** The settings whose flag `command` takes, in table order. */
export function settingsOfCommand(command: CommandName): SettingKey[] {
  return SETTING_KEYS.filter((k) => (SETTINGS[k] as Setting).commands?.includes(command));
}

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
