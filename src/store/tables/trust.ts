/** Tables of the trust area. Each table's row type: see the migrations in ../migrations/trust.ts. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface TrustTables {}
