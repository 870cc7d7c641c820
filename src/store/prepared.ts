/**
 * Prepared statements, one mechanism for every store: on PostgreSQL a few hot SQL texts run as named statements,
 * on SQLite every statement is already cached by openStore (cachingStatements in ./sqlite.ts).
 *
 * Kysely sends every query unnamed, so PostgreSQL parses and plans it each time. For the collector's multi-row
 * INSERTs (hundreds of parameters) and the intake's group inserts that was a large share of the server's CPU per
 * row (docs/decisions.md). A text marked with `preparedOnPostgres` runs, on any connection of a store opened by
 * openStore (or a read store, ./read-replica.ts), as a named statement: parsed and planned once per connection,
 * then only bound and executed (node-postgres keeps track of which names each connection has prepared). Marked
 * texts run through Kysely like any query, inside the caller's transaction if any, with outages reported as
 * StoreUnavailable (./outage.ts).
 *
 * Only for a bounded set of texts (each stays prepared for the life of every connection): the marking is refused
 * past MAX_PREPARED_TEXTS, and such a text simply runs unnamed.
 */
import type pg from 'pg';
import { CompiledQuery, type PostgresPool, type PostgresPoolClient } from 'kysely';
import type { Store } from './store.js';

/**
 * Texts marked at most; beyond, marking is a no-op (the text runs unnamed). Room for the collector's full-chunk
 * INSERT per table and the intake's group insert per table and row count (2 × 200).
 */
export const MAX_PREPARED_TEXTS = 512;

/** Marked SQL texts and their statement names (`pw_0`, `pw_1`, …; the same in every connection). */
const names = new Map<string, string>();

/**
 * Marks `text` to run as a named prepared statement on PostgreSQL connections of stores opened by openStore
 * (no effect on SQLite, whose statements openStore caches anyway).
 * @param text one SQL text with `$n` placeholders, without RETURNING columns that could change shape
 * @returns `text`, for use inline
 */
export function preparedOnPostgres(text: string): string {
  if (!names.has(text) && names.size < MAX_PREPARED_TEXTS) names.set(text, `pw_${names.size}`);
  return text;
}

/**
 * Runs `query` on `store` outside any transaction (autocommit), as a prepared statement: on PostgreSQL its text
 * is marked (preparedOnPostgres), on SQLite it runs as is (every statement is cached).
 * @returns the rows the statement returned
 * @throws what an equivalent Kysely query throws (StoreUnavailable on an outage, the driver's error otherwise)
 */
export async function executePrepared<R>(store: Pick<Store, 'db' | 'dialect'>, query: CompiledQuery<R>): Promise<R[]> {
  const q = store.dialect === 'postgres' ? CompiledQuery.raw(preparedOnPostgres(query.sql), [...query.parameters]) : query;
  return (await store.db.executeQuery(q as CompiledQuery<R>)).rows;
}

/**
 * `pool` as Kysely's PostgresDialect takes it, whose connections run marked texts (preparedOnPostgres) as
 * named statements and everything else as given. One wrapper per pooled client, so Kysely sees the same
 * connection object each time it checks that client out.
 */
export function namingPool(pool: Pick<pg.Pool, 'connect' | 'end'>): PostgresPool {
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => ({
    // Kysely calls query(sql, parameters), or query(cursor) to stream: only the former can be named.
    query: ((q: unknown, values?: unknown[]): unknown => {
      const name = typeof q === 'string' ? names.get(q) : undefined;
      return name ? client.query({ name, text: q as string, values }) : client.query(q as never, values);
    }) as unknown as PostgresPoolClient['query'],
    release: () => client.release(),
  });
  return {
    async connect() {
      const client = await pool.connect();
      let w = wrappers.get(client);
      if (!w) {
        w = wrap(client);
        wrappers.set(client, w);
      }
      return w;
    },
    end: () => pool.end(),
  };
}
