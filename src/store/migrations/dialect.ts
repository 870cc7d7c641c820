import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

/** True when a migration runs on PostgreSQL (column types, ids and storage options differ from SQLite). */
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Runs `fn` in one transaction: PostgreSQL's migrator already holds one, SQLite's does not (Kysely). */
export async function inOneTransaction(db: Kysely<any>, fn: (trx: Kysely<any>) => Promise<void>): Promise<void> {
  if (isPostgres(db)) await fn(db);
  else await db.transaction().execute(fn);
}

/**
 * The end of a CREATE TABLE whose rows live in their primary key's b-tree: `without rowid` on SQLite (a range
 * scan reads rows in key order with no lookup into a separate table, each row stored once); nothing on
 * PostgreSQL, whose tables are heaps.
 */
export function clusteredByKey(db: Kysely<any>): RawBuilder<unknown> {
  return isPostgres(db) ? sql`` : sql`without rowid`;
}
