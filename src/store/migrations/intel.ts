import type { Migration } from 'kysely';

/** Migrations of the intel area, named "intel_NNNN_what" (unique across areas, applied in name order). */
export const intelMigrations: Record<string, Migration> = {};
