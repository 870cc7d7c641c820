/**
 * Public reads from a PostgreSQL streaming replica (`--db-read`). The read store is a Kysely handle over a pool
 * that hands out replica connections and, while the replica cannot be reached (stopped, restarting, still
 * starting up), primary connections instead, trying the replica again after a backoff; so reads fail over to the
 * primary and come back by themselves. Everything a read store answers, its store version (chain_stats, which
 * the remembered answers key on) included, comes from the one database that connection reached.
 */
import pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { PaywatchError, shortMessage } from '../domain/errors.js';
import { backoffDelayMs } from '../net/backoff.js';
import type { Database } from './schema.js';
import { namingPool } from './prepared.js';
import { parseDbTarget, pgPoolOf, redactDbLocation, type Store } from './db.js';
import { StoreCache } from './cache.js';
import { reportingOutages } from './outage.js';
import { pingDatabase } from './maintenance.js';
import { NO_JIT } from './postgres.js';

/** `--db-read` cannot be used with this `--db`. */
export class ReadReplicaError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'read_replica' });
  }
}

/** Milliseconds a replica connection may take before the read goes to the primary. */
export const REPLICA_CONNECT_TIMEOUT_MS = 2000;
/** Backoff between tries of an unreachable replica, milliseconds (full jitter, doubling from the base). */
export const REPLICA_RETRY = { baseMs: 500, maxMs: 5000 };

/** Where the read store's connections go now: the replica, or the primary while the replica is unreachable. */
export type ReadTarget = 'replica' | 'primary';

/** A read store over a replica, with the target its pool is using. */
export interface ReadStore extends Store {
  /** `replica` while the replica answers; `primary` from a failed connection until a retry reaches it again. */
  readonly target: () => ReadTarget;
}

/**
 * Opens the read store over the replica at `readValue`, failing over to `primary`'s pool. Does not migrate (a
 * replica is read-only; it replays the primary's migrations). A replica that is down at open is not an error:
 * reads go to the primary until it answers.
 * @param primary the `--db` store, opened by openStore on PostgreSQL
 * @param readValue the `--db-read` URL (postgres://…)
 * @param opts.poolSize replica connections at most (default 10)
 * @param opts.onTarget called when reads switch database, with the replica's connection error when it failed
 * @throws ReadReplicaError when `primary` is not PostgreSQL or `readValue` is not a postgres:// URL
 */
export function openReadStore(
  primary: Store,
  readValue: string,
  opts: { poolSize?: number; onTarget?: (t: ReadTarget, error: string | null) => void } = {},
): ReadStore {
  const t = parseDbTarget(readValue);
  const primaryPool = pgPoolOf(primary);
  if (t.dialect !== 'postgres' || !primaryPool)
    throw new ReadReplicaError('--db-read needs a PostgreSQL --db and a postgres:// replica URL');
  const replica = new pg.Pool({
    connectionString: t.target,
    max: opts.poolSize ?? 10,
    connectionTimeoutMillis: REPLICA_CONNECT_TIMEOUT_MS,
    options: NO_JIT,
  });
  // As in openStore: a lost server is reported by the query in flight or the next one, never a crash.
  replica.on('error', () => {});
  replica.on('connect', (client) => client.on('error', () => {}));
  let target: ReadTarget = 'replica';
  let failures = 0;
  let retryAt = 0;
  const failover = {
    async connect(): Promise<pg.PoolClient> {
      if (Date.now() >= retryAt) {
        try {
          const c = await replica.connect();
          if (target !== 'replica') opts.onTarget?.('replica', null);
          target = 'replica';
          failures = 0;
          return c;
        } catch (e) {
          failures++;
          retryAt = Date.now() + backoffDelayMs(failures, REPLICA_RETRY.baseMs, REPLICA_RETRY.maxMs);
          if (target !== 'primary') opts.onTarget?.('primary', shortMessage(e));
          target = 'primary';
        }
      }
      return primaryPool.connect();
    },
    end: () => replica.end(),
  };
  // Outages reported as the primary's are (./outage.ts): the faces map one code.
  const dialect = reportingOutages(new PostgresDialect({ pool: namingPool(failover) }));
  const db = new Kysely<Database>({ dialect });
  return {
    db,
    dialect: 'postgres',
    location: redactDbLocation(t),
    tokenList: primary.tokenList,
    readers: null,
    // Its own: the replica's version may lag the primary's, and an answer must come from the database it keys on.
    cache: new StoreCache(),
    ping: () => pingDatabase(db),
    // Nothing is written through a read store: its readiness is the answer to reads.
    writeOutage: () => null,
    probeWrite: async () => {},
    target: () => target,
    close: () => dialect.close(),
  };
}

/** The replica's replay state as /api/status shows it (`replica`). */
export interface ReplicaStatus {
  /** Which database answered this read: `replica`, or `primary` while the replica cannot be reached. */
  serving: ReadTarget;
  /** Seconds of primary activity not yet replayed: 0 when caught up, else now − the last replayed commit time. */
  replay_lag_seconds: number | null;
  /** Bytes of WAL the primary has written that the replica has not replayed yet. */
  replay_lag_bytes: number | null;
  /** True while replay is paused on the replica (pg_wal_replay_pause()). */
  replay_paused: boolean | null;
}

/** A `X/Y` pg_lsn as a byte position. */
const lsnBytes = (lsn: string): bigint => {
  const [hi, lo] = lsn.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
};

/**
 * The replay state of the read store's database, compared with the primary's current WAL position.
 * @returns `serving: 'primary'` and nulls when the read went to the primary (replica unreachable)
 * @throws the driver's error when neither database answers
 */
export async function replicaStatus(read: Store, primary: Store): Promise<ReplicaStatus> {
  const r = await sql<{ in_recovery: boolean; replay_lsn: string | null; since_replay: number | null; paused: boolean | null }>`
    select pg_is_in_recovery() as in_recovery,
      pg_last_wal_replay_lsn()::text as replay_lsn,
      extract(epoch from now() - pg_last_xact_replay_timestamp())::float8 as since_replay,
      case when pg_is_in_recovery() then pg_is_wal_replay_paused() end as paused`.execute(read.db);
  const row = r.rows[0]!;
  if (!row.in_recovery || row.replay_lsn === null)
    return { serving: 'primary', replay_lag_seconds: null, replay_lag_bytes: null, replay_paused: null };
  const p = await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(primary.db);
  const behind = lsnBytes(p.rows[0]!.lsn) - lsnBytes(row.replay_lsn);
  const bytes = behind > 0n ? Number(behind) : 0;
  // The last replayed commit's age is the lag only while something is left to replay; an idle primary is no lag.
  const seconds = bytes === 0 ? 0 : row.since_replay === null ? null : Math.max(0, Math.round(row.since_replay * 1000) / 1000);
  return { serving: 'replica', replay_lag_seconds: seconds, replay_lag_bytes: bytes, replay_paused: row.paused };
}
