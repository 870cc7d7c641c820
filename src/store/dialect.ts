/** The store's SQL dialects: SQLite (embedded, the default) and PostgreSQL. */
export type DialectName = 'sqlite' | 'postgres';
