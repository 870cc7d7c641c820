import type { Migration, MigrationProvider } from 'kysely';
import { chainMigrations } from './chain.js';
import { intelMigrations } from './intel.js';
import { retentionMigrations } from './retention.js';
import { rollupMigrations } from './rollups.js';
import { intakeMigrations } from './intake.js';
import { trustMigrations } from './trust.js';

/** All migrations of all areas. Names are unique across areas ("area_NNNN_what"). */
export const allMigrations: Record<string, Migration> = {
  ...chainMigrations,
  ...retentionMigrations,
  ...rollupMigrations,
  ...intelMigrations,
  ...intakeMigrations,
  ...trustMigrations,
};

/** A Kysely migration provider over the in-code migrations (no file-system scanning). */
export const migrationProvider: MigrationProvider = {
  getMigrations: async () => allMigrations,
};
