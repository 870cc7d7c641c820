/** Applying every area's pending migrations. */
import { Migrator } from 'kysely';
import type { Store } from './store.js';
import { migrationProvider } from './migrations/index.js';
import { MigrationError } from './errors.js';
import { shortMessage } from '../domain/errors.js';

/**
 * Applies every pending migration of every area. Callers on a SQLite file hold its migration lock
 * (lockSqliteMigrations; openStore does), since Kysely's SQLite migrator takes none.
 * @throws Error naming the failed migration
 */
export async function migrateStore(store: Store): Promise<void> {
  const migrator = new Migrator({ db: store.db, provider: migrationProvider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new MigrationError(`migration ${failed?.migrationName ?? '?'} failed: ${shortMessage(error)}`);
  }
}
