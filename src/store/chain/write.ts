/**
 * Inserting observations with a dense rank (`seq`) and the counters in chain_stats, inside the caller's
 * transaction. Idempotent: a hash already stored is skipped, never rewritten.
 */
import { CompiledQuery, type Transaction } from 'kysely';
import type { Database } from '../schema.js';
import type { DialectName } from '../dialect.js';
import type { SerializedObservation } from './rows.js';
import { preparedOnPostgres } from '../prepared.js';
import { packDetails, packIntegrity } from './detail-codec.js';
import { adjustRollups } from './rollups.js';
import { bulkText, columnList, marks } from './bulk-sql.js';
import { recordFirstFundings } from './first-fundings.js';
import type { PaymentIntelIndex } from '../payments/intel-index.js';
import { attributionColumns, legsOfDetailJson, worthAttributing } from '../payments/attribute-rows.js';
import { onAttributed } from '../payments/attributed.js';

/**
 * Rows per INSERT on SQLite, and the sizes a write's remainder is cut into (powers of two below it): a fixed set of
 * statement texts per table, so every write finds its statements prepared (../sqlite.ts caches them by text).
 * Preparing one INSERT of the write's own row count, on every write whose count was new, cost 5.1–5.5 ms for 500 rows
 * of observations (~10 µs per row above 100 rows, 2 µs up to 100: bench/README.md); running it, as much as 128-row ones.
 */
export const SQLITE_ROWS = 128;

/** The row counts of the statements that insert `n` rows on SQLite: SQLITE_ROWS while it fits, then powers of two. */
export function sqliteChunks(n: number): number[] {
  const out: number[] = [];
  let left = n;
  for (; left >= SQLITE_ROWS; left -= SQLITE_ROWS) out.push(SQLITE_ROWS);
  for (let size = SQLITE_ROWS / 2; size >= 1; size /= 2)
    if (left >= size) {
      out.push(size);
      left -= size;
    }
  return out;
}

/**
 * Rows per INSERT on PostgreSQL: statements of exactly this many rows run as named prepared statements
 * (preparedOnPostgres), the remainder of a write as one unnamed statement. A fixed size keeps the set of
 * prepared texts to one per table; 100 rows measured as good as 250 or 500 (docs/decisions.md).
 */
export const PG_PREPARED_ROWS = 100;
/** Hashes per existence check. */
const LOOKUP_CHUNK = 500;

/**
 * Order in which seq grows: the reverse of the public sort (time descending, then hash ascending), so that
 * "seq descending" is the public order while the store stays `ordered`. Negative when a comes first.
 */
export function seqOrder(a: { time: number; hash: string }, b: { time: number; hash: string }): number {
  if (a.time !== b.time) return a.time - b.time;
  return a.hash < b.hash ? 1 : a.hash > b.hash ? -1 : 0;
}

/**
 * `insert into TABLE (columns) values (…), (…) on conflict (conflict) do nothing` for `n` rows, placeholders in
 * `dialect`'s style (`?` or `$1…`), built once per shape (./bulk-sql.ts): Kysely's builder made one node per value
 * and compiled them on every write.
 */
function insertText(dialect: DialectName, table: string, columns: readonly string[], conflict: readonly string[], n: number): string {
  const shape = {
    head: `insert into "${table}" (${columnList(columns)}) values `,
    row: marks(columns.length),
    sep: ', ',
    tail: ` on conflict (${columnList(conflict)}) do nothing`,
  };
  return bulkText(dialect, shape, n);
}

/**
 * Inserts `rows` (plain objects with the same members, the table's column names) into `table`, skipping rows
 * whose `conflict` columns already exist, in multi-row statements: PG_PREPARED_ROWS at a time on PostgreSQL,
 * sqliteChunks on SQLite (at most 128 rows × 27 columns, far under its 32,766 bound parameters). Nothing when empty.
 */
async function insertRows<R extends object>(
  trx: Transaction<Database>,
  dialect: DialectName,
  table: keyof Database & string,
  rows: readonly R[],
  conflict: readonly (keyof R & string)[],
): Promise<void> {
  if (!rows.length) return;
  const columns = Object.keys(rows[0]) as (keyof R & string)[];
  const n = rows.length;
  const sizes =
    dialect === 'postgres'
      ? Array.from({ length: Math.ceil(n / PG_PREPARED_ROWS) }, (_, k) => Math.min(PG_PREPARED_ROWS, n - k * PG_PREPARED_ROWS))
      : sqliteChunks(n);
  let i = 0;
  for (const size of sizes) {
    const part = rows.slice(i, i + size);
    i += size;
    const params: unknown[] = new Array(part.length * columns.length);
    let k = 0;
    for (const row of part) for (const c of columns) params[k++] = row[c] ?? null;
    const text = insertText(dialect, table, columns, conflict, part.length);
    await trx.executeQuery(
      CompiledQuery.raw(part.length === PG_PREPARED_ROWS && dialect === 'postgres' ? preparedOnPostgres(text) : text, params),
    );
  }
}

export interface InsertResult {
  inserted: number;
}

/**
 * Inserts the observations not yet stored (first occurrence of a hash wins), assigning seq = count, count+1, …
 * in seqOrder, and updates chain_stats (count, ordered flag, last key, newest block time, updated_at).
 * Takes chain_stats' row lock first on PostgreSQL so concurrent writers serialise (SQLite writers already do).
 * With `intel`, fresh rows are attributed to services before they are inserted (src/payments/attribute.ts) and
 * onAttributed hears of those attributed.
 * @param newestBlockTime the newest block timestamp among the written blocks (UTC seconds), or null
 * @param now ISO 8601 time of this write
 * @param intel the payment intel index, refreshed by the caller; none: the attribution columns stay null
 */
export async function insertObservations(
  trx: Transaction<Database>,
  dialect: DialectName,
  observations: SerializedObservation[],
  newestBlockTime: number | null,
  now: string,
  intel?: PaymentIntelIndex,
): Promise<InsertResult> {
  let statsQ = trx.selectFrom('chain_stats').selectAll().where('id', '=', 1);
  if (dialect === 'postgres') statsQ = statsQ.forUpdate();
  const stats = await statsQ.executeTakeFirstOrThrow();

  const byHash = new Map<string, SerializedObservation>();
  for (const o of observations) if (!byHash.has(o.hash)) byHash.set(o.hash, o);
  const hashes = [...byHash.keys()];
  for (let i = 0; i < hashes.length; i += LOOKUP_CHUNK) {
    const existing = await trx
      .selectFrom('observations')
      .select('hash')
      .where('hash', 'in', hashes.slice(i, i + LOOKUP_CHUNK))
      .execute();
    for (const e of existing) byHash.delete(e.hash);
  }
  // A serialized observation carries its own hash and time, the seqOrder key.
  const fresh = [...byHash.values()].sort(seqOrder);

  let count = Number(stats.observation_count);
  let ordered = stats.ordered === 1;
  let lastTime = stats.last_time == null ? null : Number(stats.last_time);
  let lastHash = stats.last_hash;
  const attributed: string[] = [];
  if (intel)
    for (const x of fresh) {
      if (
        !worthAttributing(
          x.row,
          x.legRecipients.map((l) => l.recipient),
          intel,
        )
      )
        continue;
      const { attribution, ...columns } = attributionColumns(x.row, legsOfDetailJson(x.detail), intel);
      if (columns.attribution_method === null && columns.protocol === x.row.protocol) continue;
      Object.assign(x.row, columns);
      attributed.push(x.hash);
    }
  if (fresh.length) {
    if (ordered && lastTime !== null && lastHash !== null && seqOrder({ time: lastTime, hash: lastHash }, fresh[0]) >= 0) ordered = false;
    await insertRows(
      trx,
      dialect,
      'observations',
      fresh.map((x, i) => ({ ...x.row, integrity: packIntegrity(x.row.integrity), seq: count + i })),
      ['hash'],
    );
    await insertRows(
      trx,
      dialect,
      'observation_details',
      packDetails(fresh.map((x) => ({ time: x.time, json: x.detail }))).map((packed, i) => ({ seq: count + i, detail: '', packed })),
      ['seq'],
    );
    await insertRows(
      trx,
      dialect,
      'leg_recipients',
      fresh.flatMap((x) => x.legRecipients),
      ['recipient', 'hash'],
    );
    // The rankings' per-day rollups move in the same transaction as the rows they sum (./rollups.ts).
    await adjustRollups(
      trx,
      fresh.map((x) => x.row),
      1,
    );
    // Each recipient's first inflow per token, which exclude=self_funded reads (./first-fundings.ts).
    await recordFirstFundings(
      trx,
      fresh.map((x) => x.row),
    );
    if (attributed.length) await onAttributed(trx, attributed);
    count += fresh.length;
    const last = fresh[fresh.length - 1];
    lastTime = last.time;
    lastHash = last.hash;
  }
  const prevNewest = stats.newest_block_time == null ? null : Number(stats.newest_block_time);
  const newest = newestBlockTime == null ? prevNewest : prevNewest == null ? newestBlockTime : Math.max(prevNewest, newestBlockTime);
  await trx
    .updateTable('chain_stats')
    .set({
      observation_count: count,
      ordered: ordered ? 1 : 0,
      last_time: lastTime,
      last_hash: lastHash,
      newest_block_time: newest,
      updated_at: now,
    })
    .where('id', '=', 1)
    .execute();
  return { inserted: fresh.length };
}
