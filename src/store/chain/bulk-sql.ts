/**
 * Multi-row statements as plain SQL text with bound parameters, built once per shape: the writer's hot inserts,
 * upserts and key lookups run hundreds of rows per statement, and Kysely's `sql` builder made one node per value and
 * compiled them on every statement (most of the writer's CPU on a payment-heavy chain; bench/README.md). Identifiers
 * in the texts are our own table and column names, never input.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import type { Database } from '../schema.js';
import { isPostgres } from '../migrations/dialect.js';
import { preparedOnPostgres } from '../prepared.js';

/** The dialect a Kysely instance or transaction talks to. */
export const dialectOf = (db: Kysely<Database>): DialectName => (isPostgres(db) ? 'postgres' : 'sqlite');

/**
 * The shape of a multi-row statement: `head`, then `row` repeated once per row joined by `sep`, then `tail`.
 * `row` holds one `?` per cell (numbered `$n` on PostgreSQL).
 */
export interface BulkShape {
  head: string;
  row: string;
  sep: string;
  tail: string;
  /** Never a named statement: a lookup joined on its keys, whose generic plan PostgreSQL may make a scan. */
  unnamed?: boolean;
}

const texts = new Map<string, string>();

/** The text of `shape` for `n` rows in `dialect`'s placeholder style (built once per shape, dialect and n). */
export function bulkText(dialect: DialectName, shape: BulkShape, n: number): string {
  const key = `${dialect}\u0000${shape.head}\u0000${shape.row}\u0000${shape.sep}\u0000${shape.tail}\u0000${n}`;
  let text = texts.get(key);
  if (text === undefined) {
    let k = 0;
    const rows = Array.from({ length: n }, () => (dialect === 'postgres' ? shape.row.replace(/\?/g, () => `$${++k}`) : shape.row));
    text = `${shape.head}${rows.join(shape.sep)}${shape.tail}`;
    texts.set(key, text);
  }
  return text;
}

/** Rows per statement of runBulk unless told: ≤ 20 cells × 250 rows stays far under both dialects' parameter bounds. */
export const BULK_ROWS = 250;

/**
 * Runs `shape` over `rows` (each an array of cells, one per `?` of `shape.row`) in statements of at most `chunk`
 * rows, inside the caller's transaction if any. On PostgreSQL a statement of exactly `chunk` rows runs as a named
 * prepared statement (one text per shape; not when `shape.unnamed`), the remainder unnamed.
 * @returns every row the statements returned, in order
 */
export async function runBulk<R>(
  db: Kysely<Database>,
  shape: BulkShape,
  rows: readonly (readonly unknown[])[],
  chunk = BULK_ROWS,
): Promise<R[]> {
  const out: R[] = [];
  if (!rows.length) return out;
  const dialect = dialectOf(db);
  for (let i = 0; i < rows.length; i += chunk) {
    const part = rows.slice(i, i + chunk);
    const text = bulkText(dialect, shape, part.length);
    const params = part.flat();
    const q = CompiledQuery.raw(
      dialect === 'postgres' && part.length === chunk && !shape.unnamed ? preparedOnPostgres(text) : text,
      params,
    );
    const r = await db.executeQuery<R>(q);
    for (const x of r.rows) out.push(x);
  }
  return out;
}

/** `"a", "b", …`: our own column names, quoted. */
export const columnList = (columns: readonly string[]) => columns.map((c) => `"${c}"`).join(', ');

/** `(?, ?, …)` for `n` cells. */
export const marks = (n: number) => `(${Array.from({ length: n }, () => '?').join(', ')})`;
