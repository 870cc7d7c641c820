/** Applying every area's pending migrations. */
import { Migrator } from 'kysely';
import type { Store } from './store.js';
import { migrationProvider } from './migrations/index.js';
import { MigrationError } from './errors.js';
import { shortMessage } from '../domain/errors.js';
import { packPendingDetails, type PackProgress } from './chain/pack-details.js';
import { backfillPaymentColumns } from './chain/backfill-payments.js';

/**
 * Applies every pending migration of every area, then the data steps that run in batches of their own
 * transactions so a large store can be interrupted and resumed (packing details, ./chain/pack-details.ts; the
 * payment columns of rows stored before them, ./chain/backfill-payments.ts).
 * Callers on a SQLite file hold its migration lock (lockSqliteMigrations; openStore does), since Kysely's
 * SQLite migrator takes none.
 * @param onProgress rows done / to do of the batched steps (a progress bar for large stores)
 * @throws Error naming the failed migration
 */
export async function migrateStore(store: Store, onProgress?: PackProgress): Promise<void> {
  const migrator = new Migrator({ db: store.db, provider: migrationProvider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new MigrationError(`migration ${failed?.migrationName ?? '?'} failed: ${shortMessage(error)}`);
  }
  try {
    await packPendingDetails(store, onProgress);
  } catch (e) {
    throw new MigrationError(`packing stored details failed: ${shortMessage(e)}`);
  }
  try {
    await backfillPaymentColumns(store, onProgress);
  } catch (e) {
    throw new MigrationError(`filling the payment columns of stored rows failed: ${shortMessage(e)}`);
  }
}
