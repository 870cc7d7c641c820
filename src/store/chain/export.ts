/**
 * The CSV export's rows: the newest 10,000 matches in keyset steps, read on a reader thread when the store has them.
 */
import { sql } from 'kysely';
import type { Store } from '../store.js';
import type { ObservationFilters } from '../../domain/filters.js';
import type { ExportRow } from './answers.js';
import { keysetBatches, keysetStep, type KeysetPosition } from './query.js';
import { LIST_COLUMNS, rowWithIntegrity } from './rows.js';

/** Export cap (docs/api-chain.md). */
export const EXPORT_CAP = 10_000;

/** Plain columns read for the export (LIST_COLUMNS without the integrity JSON). */
const EXPORT_READ = LIST_COLUMNS.filter((c): c is Exclude<(typeof LIST_COLUMNS)[number], 'integrity'> => c !== 'integrity');

/**
 * One keyset step of export rows (at most `n` after `after`), on the calling thread: integrity's score and maximum
 * are read from the stored JSON by the database (the stages and their reasons, most of a row's bytes, never are).
 */
export async function exportStep(store: Store, filters: ObservationFilters, after: KeysetPosition, n: number): Promise<ExportRow[]> {
  // A JSON number member of the stored integrity: text on PostgreSQL, a number on SQLite (Number() below).
  const member = (m: 'score' | 'maximum') =>
    store.dialect === 'postgres'
      ? sql<string | number>`(integrity::json ->> ${sql.lit(m)})`
      : sql<string | number>`json_extract(integrity, ${sql.lit(`$.${m}`)})`;
  const list = store.tokenList;
  const rows = await keysetStep({
    db: store.db,
    filters,
    list,
    after,
    n,
    select: (qb) => qb.select(EXPORT_READ).select([member('score').as('integrity_score'), member('maximum').as('integrity_maximum')]),
  });
  return rows.map((r) => rowWithIntegrity(r, { score: Number(r.integrity_score), maximum: Number(r.integrity_maximum) }, list));
}

/**
 * The newest 10,000 matches, newest first, as an async iterator of row arrays: one array per keyset step
 * (500 rows), read when the consumer asks (on a reader thread when the store has them) and not kept afterwards,
 * so an export holds one step.
 */
export function exportRows(store: Store, filters: ObservationFilters): AsyncIterableIterator<ExportRow[]> {
  return keysetBatches(EXPORT_CAP, (after, n) =>
    store.readers ? store.readers.exportStep(filters, after, n) : exportStep(store, filters, after, n),
  );
}
