import type { Migration } from 'kysely';

/** Migrations of the trust area, named "trust_NNNN_what" (unique across areas, applied in name order). */
export const trustMigrations: Record<string, Migration> = {};
