/** Tables of the intake area. Each table's row type: see the migrations in ../migrations/intake.ts. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface IntakeTables {}
