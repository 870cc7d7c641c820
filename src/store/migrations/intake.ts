import type { Migration } from 'kysely';

/** Migrations of the intake area, named "intake_NNNN_what" (unique across areas, applied in name order). */
export const intakeMigrations: Record<string, Migration> = {};
