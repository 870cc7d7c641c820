import { PostgresAdapter, type Kysely } from 'kysely';

/** True when a migration runs on PostgreSQL (column types, ids and storage options differ from SQLite). */
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
