/** Tables of the chain area. Each table's row type: see the migrations in ../migrations/chain.ts. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ChainTables {}
