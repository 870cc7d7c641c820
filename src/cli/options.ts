/**
 * The flags several commands share, added by the commands that use them so that `--help` lists only flags that
 * change what a command does. Values are read and validated once by src/config.ts (flags → environment → defaults).
 */
import { Option, type Command } from 'commander';

/** Shared options a command may take besides `--db` and `--log-level`, which every command takes. */
export type CommonOption = 'rpc' | 'port' | 'host' | 'from' | 'tokenlist' | 'metrics' | 'dbRead' | 'redis';

/**
 * Adds the shared options a command uses: always `--db` and `--log-level`, plus those in `uses` (default all).
 * @returns `cmd`, for chaining
 */
export function addCommonOptions(
  cmd: Command,
  uses: readonly CommonOption[] = ['rpc', 'port', 'host', 'from', 'tokenlist', 'metrics', 'dbRead', 'redis'],
): Command {
  cmd.addOption(
    new Option('--db <location>', 'store: a path, sqlite:PATH or postgres://… (env PAYWATCH_DB; default ./data/paywatch.sqlite)'),
  );
  if (uses.includes('dbRead'))
    cmd.addOption(
      new Option('--db-read <url>', 'PostgreSQL streaming replica of --db for the public reads (env PAYWATCH_DB_READ; default: read --db)'),
    );
  if (uses.includes('redis'))
    cmd.addOption(
      new Option(
        '--redis <url>',
        'Redis (redis:// or rediss://) shared by every replica for per-client limits (env PAYWATCH_REDIS_URL; default: limits counted per process)',
      ),
    );
  if (uses.includes('rpc'))
    cmd.addOption(new Option('--rpc <url>', 'Tempo JSON-RPC URL (env PAYWATCH_RPC_URL; default https://rpc.tempo.xyz)'));
  if (uses.includes('port')) cmd.addOption(new Option('--port <n>', 'public API port (env PORT; default 8080)'));
  if (uses.includes('host')) {
    cmd.addOption(new Option('--host <addr>', 'listen address (default 127.0.0.1)'));
    cmd.addOption(
      new Option(
        '--trust-proxy <hops|addresses>',
        'believe X-Forwarded-For from reverse proxies: a hop count or proxy addresses/CIDRs, comma-separated (env PAYWATCH_TRUST_PROXY; default off)',
      ),
    );
  }
  if (uses.includes('metrics')) {
    cmd.addOption(new Option('--metrics-port <n>', 'serve Prometheus metrics on this port (env PAYWATCH_METRICS_PORT; default off)'));
    cmd.addOption(new Option('--metrics-host <addr>', 'metrics listener address (env PAYWATCH_METRICS_HOST; default 127.0.0.1)'));
  }
  if (uses.includes('from'))
    cmd.addOption(new Option('--from <height>', 'first block height on a fresh store (default finalized head − 10,000)'));
  if (uses.includes('tokenlist'))
    cmd.addOption(
      new Option(
        '--tokenlist <path>',
        "token list (Uniswap format): only its tokens count as dollars (env PAYWATCH_TOKENLIST; default: Tempo mainnet's listed tokens)",
      ),
    );
  return cmd.addOption(new Option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent (env PAYWATCH_LOG_LEVEL)'));
}

/** Adds the chain collector's tuning flags (`collect`, `start`, `demo`). @returns `cmd` */
export function addCollectorOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--batch-size <n>', 'blocks fetched and written per run (env PAYWATCH_BATCH_SIZE; default 50)'))
    .addOption(new Option('--rpc-concurrency <n>', 'JSON-RPC HTTP requests in flight (env PAYWATCH_RPC_CONCURRENCY; default 8)'))
    .addOption(new Option('--poll-interval-ms <ms>', 'head poll interval once caught up (env PAYWATCH_POLL_MS; default 1000)'));
}

/** Adds the trust-check listener's flags (`verify`, `start`, `demo`). @returns `cmd` */
export function addVerifyOptions(cmd: Command): Command {
  return cmd.addOption(new Option('--verify-port <n>', 'trust-check listener port (env PAYWATCH_VERIFY_PORT; default 8081)'));
}

/** True when the log level was chosen by the user (flag or environment), not defaulted. */
export function levelWasChosen(opts: Record<string, unknown>): boolean {
  return opts.logLevel !== undefined || Boolean(process.env.PAYWATCH_LOG_LEVEL);
}
