import type { Migration } from 'kysely';

/** Migrations of the chain area, named "chain_NNNN_what" (unique across areas, applied in name order). */
export const chainMigrations: Record<string, Migration> = {};
