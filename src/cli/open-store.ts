/**
 * Opening the configured store for a command: the `--db` location with the `--tokenlist` token list (or the
 * built-in Tempo mainnet list), so every chain answer the command gives follows one list.
 */
import type { Config } from '../config.js';
import { openStore, type OpenStoreOptions, type Store } from '../store/db.js';
import { DEFAULT_TOKEN_LIST, TokenList, TokenListError } from '../domain/token-list.js';
import { CliError } from './run.js';
import cliProgress from 'cli-progress';
import { canShowProgress } from './progress.js';
import type { Logger } from 'pino';
import { SharedLimits } from '../limits/shared.js';
import { redactUrl } from '../net/redact-url.js';

/**
 * The token list `config` names, or the built-in one.
 * @throws CliError (one line) when the file cannot be read or is not a valid token list
 */
export function configuredTokenList(config: Config): TokenList {
  if (!config.tokenList) return DEFAULT_TOKEN_LIST;
  try {
    return TokenList.read(config.tokenList);
  } catch (e) {
    if (e instanceof TokenListError) throw new CliError(e.message);
    throw e;
  }
}

/**
 * Opens (and migrates) the configured store with the configured token list.
 * @throws CliError for a bad token list; the store's one-line Error when it cannot be opened
 */
export async function openConfiguredStore(config: Config, opts: Omit<OpenStoreOptions, 'tokenList'> = {}): Promise<Store> {
  // A store written before chain_0007 packs its details on the first start, and one written before chain_0009
  // fills its payment columns: minutes for millions of rows. Each step starts its own bar (its progress from 0).
  let bar: cliProgress.SingleBar | null = null;
  const onMigrationProgress = canShowProgress()
    ? (done: number, total: number) => {
        if (!bar || (done === 0 && bar.getTotal() !== total)) {
          (bar as cliProgress.SingleBar | null)?.stop();
          bar = new cliProgress.SingleBar(
            { format: 'upgrading stored rows [{bar}] {value}/{total} | ETA {eta_formatted}', stream: process.stderr },
            cliProgress.Presets.shades_classic,
          );
          bar.start(total, done);
        } else bar.update(done);
      }
    : undefined;
  try {
    return await openStore(config.db, { onMigrationProgress, ...opts, tokenList: configuredTokenList(config) });
  } finally {
    (bar as cliProgress.SingleBar | null)?.stop();
  }
}

/**
 * The read store of `--db-read` over `primary` (src/store/read-replica.ts), or undefined when none is configured.
 * Logs when the public reads switch between the replica and the primary.
 * @param primary the store opened by openConfiguredStore (PostgreSQL: config validation refuses --db-read otherwise)
 */
export async function openConfiguredReadStore(config: Config, primary: Store, log: Logger): Promise<Store | undefined> {
  if (!config.dbRead) return undefined;
  const { openReadStore } = await import('../store/read-replica.js');
  const read = openReadStore(primary, config.dbRead, {
    onTarget: (target, error) =>
      target === 'primary'
        ? log.warn({ err: error }, 'read replica unreachable; public reads go to the primary until it answers')
        : log.info('read replica answers again; public reads go to it'),
  });
  log.info({ replica: read.location }, 'public reads from the read replica');
  return read;
}

/**
 * Where this process counts per-client limits: the `--redis` server (shared by every replica; ioredis is loaded
 * only then), or its own memory. An unreachable Redis does not fail the command: limits count in memory until it
 * answers (src/limits/shared.ts).
 */
export async function openConfiguredLimits(config: Config, log: Logger): Promise<SharedLimits> {
  if (!config.redis) return SharedLimits.inMemory();
  log.info({ redis: redactUrl(config.redis) }, 'per-client limits shared through Redis');
  return SharedLimits.connect(config.redis, log);
}
