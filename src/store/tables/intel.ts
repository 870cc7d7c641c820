/** Tables of the intel area. Each table's row type: see the migrations in ../migrations/intel.ts. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface IntelTables {}
