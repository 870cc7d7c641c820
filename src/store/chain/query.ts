/**
 * Read queries over observations: filters, the public sort (time descending, then hash ascending), counting,
 * pages and keyset scans. Deep pages use rank arithmetic on `seq` when the store is `ordered` and only time
 * bounds apply; otherwise an index-only subquery picks the page's hashes before the rows are read.
 */
import { sql, type ExpressionBuilder, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../schema.js';
import { classifyQuery, isContractAddress, type ObservationFilters } from '../../domain/filters.js';
import { LIST_COLUMNS, rowToTransaction, type TransactionRow } from './rows.js';
import { finalityOfHeights, withFinality } from './finality-at-read.js';
import type { ChainStats, KeysetPosition } from './answers.js';
import type { Store } from '../store.js';
import { KNOWN_EXCHANGE, PAYER_APART, UNSUCCESSFUL, term } from './partial-indexes.js';
import type { TokenList } from '../../domain/token-list.js';
import { selfFunded } from './first-fundings.js';

type ObsQuery<O> = SelectQueryBuilder<Database, 'observations', O>;

/** The matches a read is over: observations on `db` matching `filters`, symbols following the token list `list`. */
export interface MatchQuery {
  db: Kysely<Database>;
  filters: ObservationFilters;
  list: TokenList;
}

type Eb = ExpressionBuilder<Database, 'observations'>;

/**
 * A token symbol as a filter: a listed symbol names only its listed contracts, so an imitation with the same
 * symbol never matches; an unlisted symbol matches unlisted tokens by symbol (docs/decisions.md, "Listed tokens").
 */
function symbolExpression(eb: Eb, symbol: string, list: TokenList) {
  const listed = list.contractsForSymbol(symbol);
  if (listed.length) return eb('asset_contract', 'in', listed);
  const all = list.contracts();
  return all.length ? eb.and([eb('asset', '=', symbol), eb('asset_contract', 'not in', all)]) : eb('asset', '=', symbol);
}

/** The filter as one WHERE expression (exact matches only, so each uses an index), following the token list. */
function filterExpression(f: ObservationFilters, list: TokenList) {
  return (eb: Eb) => {
    const parts = [];
    if (f.since !== undefined) parts.push(eb('time', '>=', f.since));
    if (f.until !== undefined) parts.push(eb('time', '<', f.until));
    if (f.q !== undefined) {
      const t = classifyQuery(f.q);
      if (t.kind === 'hash') parts.push(eb('hash', '=', t.value));
      else if (t.kind === 'wallet') parts.push(eb.or([eb('sender', '=', t.value), eb('recipient', '=', t.value)]));
      else parts.push(eb.or([symbolExpression(eb, t.value, list), eb('exchange', '=', t.value)]));
    }
    if (f.asset !== undefined)
      parts.push(isContractAddress(f.asset) ? eb('asset_contract', '=', f.asset.toLowerCase()) : symbolExpression(eb, f.asset, list));
    if (f.exchange !== undefined) parts.push(f.exchange === 'unknown' ? eb('exchange', 'is', null) : eb('exchange', '=', f.exchange));
    if (f.execution !== undefined) {
      parts.push(eb('execution', '=', f.execution));
      // Implied by the value; spelled out so SQLite's planner sees the partial execution indexes apply.
      if (f.execution !== 'success') parts.push(term(UNSUCCESSFUL));
    }
    if (f.protocol !== undefined) parts.push(f.protocol === 'unknown' ? eb('protocol', 'is', null) : eb('protocol', '=', f.protocol));
    if (f.category !== undefined) parts.push(eb('category', '=', f.category));
    // The payer index holds only payers other than the sender: the rest are the sender index's rows paid by their sender.
    if (f.payer !== undefined)
      parts.push(
        eb.or([eb.and([eb('payer', '=', f.payer), term(PAYER_APART)]), eb.and([eb('sender', '=', f.payer), eb('payer', '=', f.payer)])]),
      );
    if (f.recipient !== undefined) parts.push(eb('recipient', '=', f.recipient));
    if (f.service_id !== undefined) parts.push(eb('service_id', '=', f.service_id));
    if (f.provider !== undefined) parts.push(eb('provider', '=', f.provider));
    // An unknown self_payment (no payer) is kept: only a known self-payment is left out.
    if (f.exclude?.includes('self_payment')) parts.push(eb.or([eb('self_payment', 'is', null), eb('self_payment', '<>', 1)]));
    if (f.exclude?.includes('self_funded'))
      parts.push(eb.not(selfFunded(sql.ref('observations.payer'), sql.ref('observations.recipient'), [...list.tokens.keys()])));
    return eb.and(parts);
  };
}

/** Applies the filters to a query over observations, following the token list for symbols. */
export function applyFilters<O>(qb: ObsQuery<O>, f: ObservationFilters, list: TokenList): ObsQuery<O> {
  return qb.where(filterExpression(f, list));
}

/** True when only time bounds apply, so rank arithmetic on seq can answer (given an ordered store). */
function onlyTimeBounds(f: ObservationFilters): boolean {
  return (
    f.q === undefined &&
    f.asset === undefined &&
    f.exchange === undefined &&
    f.execution === undefined &&
    f.protocol === undefined &&
    f.category === undefined &&
    f.payer === undefined &&
    f.recipient === undefined &&
    f.service_id === undefined &&
    f.provider === undefined &&
    !f.exclude?.length
  );
}

/** The counters row (observation_count less the rows retention dropped, ordered, updated_at). */
export async function readStats(db: Kysely<Database>): Promise<ChainStats> {
  const s = await db.selectFrom('chain_stats').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
  const dropped = Number(s.dropped ?? 0);
  return {
    count: Number(s.observation_count) - dropped,
    ordered: s.ordered === 1,
    seqBase: dropped,
    retainedFrom: s.retained_from_time == null ? null : Number(s.retained_from_time),
    newestBlockTime: s.newest_block_time == null ? null : Number(s.newest_block_time),
    updatedAt: s.updated_at,
  };
}

/**
 * The counters row as of at most STATS_REUSE_MS ago (or since this store's last write): the store version that
 * the remembered answers (../cache.ts) are keyed on, without a database round trip on every request.
 */
export function currentStats(store: Store): Promise<ChainStats> {
  return store.cache.chainVersion(() => readStats(store.db));
}

/**
 * The seq range [lo, hi] holding exactly the matches of time-only filters in an ordered store
 * (hi < lo when nothing matches). Two index probes, independent of the table's size.
 */
async function seqRange(db: Kysely<Database>, f: ObservationFilters, stats: ChainStats): Promise<{ lo: number; hi: number }> {
  const base = stats.seqBase ?? 0;
  let hi = base + stats.count - 1;
  let lo = base;
  if (f.until !== undefined) {
    const r = await db
      .selectFrom('observations')
      .select('seq')
      .where('time', '<', f.until)
      .orderBy('time', 'desc')
      .orderBy('hash', 'asc')
      .limit(1)
      .executeTakeFirst();
    hi = r ? Number(r.seq) : -1;
  }
  if (f.since !== undefined) {
    const r = await db
      .selectFrom('observations')
      .select('seq')
      .where('time', '>=', f.since)
      .orderBy('time', 'asc')
      .orderBy('hash', 'desc')
      .limit(1)
      .executeTakeFirst();
    lo = r ? Number(r.seq) : base + stats.count;
  }
  return { lo, hi };
}

/**
 * Number of observations matching `f`: the maintained counter when unfiltered, rank arithmetic for time
 * bounds on an ordered store, else an indexed COUNT(*) remembered in the store's `counts` region (../cache.ts:
 * a filter matching a fifth of a million-row store is a 200,000-entry index range). Follows `store.tokenList`.
 * @param known counters already read for this request
 * @param offload runs the COUNT elsewhere (a reader thread, ./readers.ts); default: countRows on `store.db`
 */
export async function countMatches(
  store: Store,
  f: ObservationFilters,
  known?: ChainStats,
  offload?: (f: ObservationFilters) => Promise<number>,
): Promise<number> {
  const { db, tokenList: list } = store;
  const stats = known ?? (await readStats(db));
  if (onlyTimeBounds(f) && (stats.ordered || (f.since === undefined && f.until === undefined))) {
    if (f.since === undefined && f.until === undefined) return stats.count;
    const { lo, hi } = await seqRange(db, f, stats);
    return Math.max(0, hi - lo + 1);
  }
  return store.cache.counts.get(stats, filterKey(f, list), () => (offload ? offload(f) : countRows(db, f, list)));
}

/**
 * COUNT(*) of the matches of `f` over their index, never remembered (countMatches remembers). The common values
 * the partial indexes leave out (execution `success`, exchange `unknown`) are counted as the matches without that
 * filter less those the partial index holds, two index counts instead of a scan of the table.
 */
export async function countRows(db: Kysely<Database>, f: ObservationFilters, list: TokenList): Promise<number> {
  if (f.execution === 'success') {
    const rest = { ...f, execution: undefined };
    return (await countRows(db, rest, list)) - (await countWhere(db, rest, list, UNSUCCESSFUL));
  }
  if (f.exchange === 'unknown') {
    const rest = { ...f, exchange: undefined };
    return (await countRows(db, rest, list)) - (await countWhere(db, rest, list, KNOWN_EXCHANGE));
  }
  return countWhere(db, f, list);
}

/** COUNT(*) of the matches of `f` and, when given, of `predicate` too (a partial index's, ./partial-indexes.ts). */
async function countWhere(db: Kysely<Database>, f: ObservationFilters, list: TokenList, predicate?: string): Promise<number> {
  let qb = applyFilters(db.selectFrom('observations'), f, list);
  if (predicate) qb = qb.where(term(predicate));
  const r = await qb.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** A stable key for a filter set under a token list (members in a fixed order, undefined ones left out). */
export function filterKey(f: ObservationFilters, list: TokenList): string {
  return JSON.stringify([
    f.since,
    f.until,
    f.q,
    f.asset,
    f.exchange,
    f.execution,
    list.id,
    f.protocol,
    f.category,
    f.payer,
    f.recipient,
    f.service_id,
    f.provider,
    f.exclude?.length ? f.exclude : undefined,
  ]);
}

/**
 * One page of matches in the public order, following the token list.
 * @param q.limit rows at most; q.offset rows skipped; q.known counters already read for this request
 */
export async function pageMatches(q: MatchQuery & { limit: number; offset: number; known?: ChainStats }): Promise<TransactionRow[]> {
  const { db, filters: f, list, limit, offset, known } = q;
  const stats = known ?? (await readStats(db));
  if (stats.ordered && onlyTimeBounds(f)) {
    const { lo, hi } = await seqRange(db, f, stats);
    const top = hi - offset;
    const bottom = Math.max(lo, top - limit + 1);
    if (top < lo) return [];
    const rows = await db
      .selectFrom('observations')
      .select(LIST_COLUMNS)
      .where('seq', '>=', bottom)
      .where('seq', '<=', top)
      .orderBy('seq', 'desc')
      .execute();
    return servedRows(db, rows, list);
  }
  const page = applyFilters(db.selectFrom('observations'), f, list)
    .select('hash')
    .orderBy('time', 'desc')
    .orderBy('hash', 'asc')
    .limit(limit)
    .offset(offset);
  const rows = await db
    .selectFrom('observations')
    .select(LIST_COLUMNS)
    .where('hash', 'in', page)
    .orderBy('time', 'desc')
    .orderBy('hash', 'asc')
    .execute();
  return servedRows(db, rows, list);
}

/** A page's stored rows as served: each integrity with its block's finality read now (./finality-at-read.ts). */
async function servedRows(
  db: Kysely<Database>,
  rows: Parameters<typeof rowToTransaction>[0][],
  list: TokenList,
): Promise<TransactionRow[]> {
  const finality = await finalityOfHeights(
    db,
    rows.map((r) => Number(r.height)),
  );
  return rows.map((r) => {
    const t = rowToTransaction(r, list);
    withFinality(t.integrity, finality.get(t.height));
    return t;
  });
}

/** Rows per keyset step of scanBatches (and so of the export, which holds one step). */
export const SCAN_BATCH = 500;
/** Rows per keyset step of scanMatches: aggregates keep nothing of a row, so fewer, larger steps cost less. */
export const AGGREGATE_BATCH = 5_000;

export type { KeysetPosition };

/**
 * One keyset step: at most `q.n` matches after `q.after` in the public order (time descending, then hash ascending),
 * `time <= t AND (time < t OR hash > h)`, identical on both dialects and needing no driver cursor.
 * @param q.select adds the selected columns or expressions; the rows must carry `time` and `hash` (the keyset)
 */
export async function keysetStep<R extends { time: number | string; hash: string }>(
  q: MatchQuery & { after: KeysetPosition; n: number; select: (qb: ObsQuery<object>) => ObsQuery<R> },
): Promise<R[]> {
  const { db, filters: f, list, after, n, select } = q;
  // After a position, `time <= after.time` is the upper bound (after came from a match, so it implies `until`):
  // SQLite's planner keeps one upper bound per index, and with `until` it walked every earlier step's rows again.
  let qb = select(applyFilters(db.selectFrom('observations'), after ? { ...f, until: undefined } : f, list));
  if (after) {
    const k = after;
    qb = qb.where('time', '<=', k.time).where((eb) => eb.or([eb('time', '<', k.time), eb('hash', k.inclusive ? '>=' : '>', k.hash)]));
  }
  // splice(0) moves the rows into an array of our own and leaves the driver's result empty: node-postgres
  // keeps a finished query's result reachable from its per-query objects (promise API), which kept the rows
  // alive past young-generation collections and had them promoted to the old generation.
  return ((await qb.orderBy('time', 'desc').orderBy('hash', 'asc').limit(n).execute()) as R[]).splice(0);
}

/**
 * The positions of the matches at the given ranks of the public order (0 is the newest), read from the index
 * alone; null where fewer matches exist.
 * @example await keysetAt(db, { since, until }, list, [0, 24_999]) // [{ time, hash }, { time, hash } | null]
 */
export async function keysetAt(
  db: Kysely<Database>,
  f: ObservationFilters,
  list: TokenList,
  ranks: readonly number[],
): Promise<KeysetPosition[]> {
  return Promise.all(
    ranks.map(async (rank) => {
      const r = await applyFilters(db.selectFrom('observations'), f, list)
        .select(['time', 'hash'])
        .orderBy('time', 'desc')
        .orderBy('hash', 'asc')
        .limit(1)
        .offset(rank)
        .executeTakeFirst();
      return r ? { time: Number(r.time), hash: r.hash } : null;
    }),
  );
}

/**
 * Up to `cap` matches in the public order as arrays of at most `batch` rows, one step each (never an array of
 * everything). A step is read only when the consumer asks for it, and the iterator keeps nothing of a step once it
 * has handed it over (only the keyset position): a consumer that is done with an array before asking for the next
 * holds one step at a time. (An async generator would keep the last array alive until the consumer asks again.)
 * Call `next` only after the previous call has settled.
 * @param step reads one step after a position (keysetStep, or the same on a reader thread)
 * @param start where the first step starts (null: at the newest match)
 */
export function keysetBatches<R extends { time: number | string; hash: string }>(
  cap: number,
  step: (after: KeysetPosition, n: number) => Promise<R[]>,
  batch = SCAN_BATCH,
  start: KeysetPosition = null,
): AsyncIterableIterator<R[]> {
  let after = start;
  let left = cap;
  const end: IteratorReturnResult<undefined> = { done: true, value: undefined };
  return {
    async next(): Promise<IteratorResult<R[], undefined>> {
      if (left <= 0) return end;
      const n = Math.min(batch, left);
      const rows = await step(after, n);
      left = rows.length < n ? 0 : left - rows.length;
      if (!rows.length) return end;
      const last = rows[rows.length - 1];
      after = { time: Number(last.time), hash: last.hash };
      return { done: false, value: rows };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/**
 * Streams up to `q.cap` matches in the public order as arrays of at most `q.batch` rows (default SCAN_BATCH;
 * keysetBatches over keysetStep).
 * @param q.select adds the selected columns or expressions; the rows must carry `time` and `hash` (the keyset)
 * @param q.start where the first step starts (default null: at the newest match)
 */
export function scanBatches<R extends { time: number | string; hash: string }>(
  q: MatchQuery & { cap: number; select: (qb: ObsQuery<object>) => ObsQuery<R>; batch?: number; start?: KeysetPosition },
): AsyncIterableIterator<R[]> {
  return keysetBatches(q.cap, (after, n) => keysetStep({ ...q, after, n }), q.batch ?? SCAN_BATCH, q.start ?? null);
}

/**
 * Streams up to `q.cap` matches in the public order, row by row (keyset steps of AGGREGATE_BATCH rows, see scanBatches).
 * @param q.columns which columns each yielded row carries
 * @param q.start where the scan starts (default null: at the newest match)
 */
export async function* scanMatches<C extends keyof Database['observations'] & string>(
  q: MatchQuery & { cap: number; columns: readonly C[]; start?: KeysetPosition },
): AsyncGenerator<Pick<Database['observations'], C | 'time' | 'hash'>> {
  const cols = [...new Set([...q.columns, 'time', 'hash'])] as C[];
  type Row = Pick<Database['observations'], C | 'time' | 'hash'>;
  const select = (qb: ObsQuery<object>) => qb.select(cols as never[]) as unknown as ObsQuery<Row>;
  for await (const rows of scanBatches({
    db: q.db,
    filters: q.filters,
    list: q.list,
    cap: q.cap,
    select,
    batch: AGGREGATE_BATCH,
    start: q.start,
  }))
    yield* rows;
}
