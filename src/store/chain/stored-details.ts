/**
 * Reading stored details back as JSON text, whatever their form (./detail-codec.ts): legacy JSON text, packed alone,
 * or grouped by block time, where a row's text lives in its group's first row, fetched here when the caller's rows
 * do not include it. The one way every reader of `observation_details` gets a detail's text.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { storedDetailForm, unpackDetail, unpackDetailGroup } from './detail-codec.js';

/** A row of observation_details as read (PostgreSQL answers bigint seqs as strings). */
export interface StoredDetailRow {
  seq: number | string | bigint;
  /** The legacy JSON text ('' once packed); null when the row was read through an outer join and is missing. */
  detail: string | null;
  packed: Uint8Array | null;
}

/** First rows fetched per query. */
const HEADS_PER_QUERY = 500;

/**
 * The JSON text of each row's detail. A grouped row whose first row is not among `rows` has it read from `db`
 * (one query per HEADS_PER_QUERY groups). A row that cannot be read gets an Error in its place, so one bad row
 * never stops a batch: its group's first row missing or corrupt, an unknown format, corrupt bytes, or no detail at all.
 * @param db the store, or the transaction the rows were read in
 * @param rows the rows to read, any order
 * @returns per row, same order: its JSON text, or the Error saying why it cannot be read
 * @throws the store's errors
 * @example const [json] = await readStoredDetails(store.db, [{ seq: 42, detail: '', packed }])
 */
export async function readStoredDetails(db: Kysely<Database>, rows: readonly StoredDetailRow[]): Promise<(string | Error)[]> {
  const groups = new Map<number, string[] | Error>();
  const open = (packed: Uint8Array): string[] | Error => {
    try {
      return unpackDetailGroup(packed);
    } catch (e) {
      return asError(e);
    }
  };
  // Each row's place: whole, or its group's first row (its seq) and its index there (0 for the first row itself).
  const places = rows.map((r) => {
    const f = r.packed ? storedDetailForm(r.packed) : null;
    if (f === null || f.form === 'whole') return null;
    const index = f.form === 'member' ? f.index : 0;
    return { head: Number(r.seq) - index, index };
  });
  for (const [i, p] of places.entries()) if (p?.index === 0) groups.set(p.head, open(rows[i]!.packed!));
  const missing = new Set<number>();
  for (const p of places) if (p && !groups.has(p.head)) missing.add(p.head);
  const wanted = [...missing];
  for (let i = 0; i < wanted.length; i += HEADS_PER_QUERY) {
    const heads = await db
      .selectFrom('observation_details')
      .select(['seq', 'packed'])
      .where('seq', 'in', wanted.slice(i, i + HEADS_PER_QUERY))
      .execute();
    for (const h of heads)
      groups.set(Number(h.seq), h.packed ? open(h.packed) : new Error(`stored detail ${h.seq} is not the first row of a group`));
  }
  return rows.map((r, i) => {
    try {
      if (!r.packed) return r.detail ?? new Error(`stored detail ${r.seq} is missing`);
      const place = places[i];
      if (place === null) return unpackDetail(r.packed);
      const { head, index } = place;
      const texts = groups.get(head) ?? new Error(`stored detail ${r.seq}: its group's first row ${head} is missing`);
      if (texts instanceof Error) return texts;
      return texts[index] ?? new Error(`stored detail ${r.seq}: its group at ${head} holds ${texts.length} texts, not ${index + 1}`);
    } catch (e) {
      return asError(e);
    }
  });
}

/** `e` as an Error (a thrown non-Error wrapped). */
const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));
