/** The store's own errors: it cannot be opened or reached, or cannot be migrated. */
import { PaywatchError } from '../domain/errors.js';

/** The store cannot be opened or reached (a SQLite file that cannot be opened, a PostgreSQL server that does not answer). */
export class StoreOpenError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'store_unavailable', retryable: true });
  }
}

/** Migrating the store failed, or another process held its migration lock too long. */
export class MigrationError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'migration' });
  }
}
