/**
 * The chain area's repository: the only functions the collector, the routes, the MCP tools and the seeder
 * call to write and read observations, coverage, the checkpoint and the collector's state.
 * Queries live in the modules beside it (./query.ts, ./series.ts, ./coverage.ts, ./write.ts); this module composes them into the operations the callers need.
 */
import type { Store } from '../store.js';
import type { BlockObservations } from '../../domain/observation.js';
import { CHAIN_ID } from '../../domain/observation.js';
import { sql } from 'kysely';
import { DecimalSum } from '../../domain/money.js';
import type { ObservationFilters } from '../../domain/filters.js';
import { insertObservations } from './write.js';
import { VALUE_METHOD, type ExportRow, type Metrics, type MetricsSeries, type TransactionPage } from './answers.js';
import { emptySeriesSums, finishSeries, mergeSeriesSums, sumSeriesRange, type SeriesRange, type SeriesRequest } from './series.js';

export type { ExportRow, Metrics, MetricsSeries, SeriesBucket, TransactionPage } from './answers.js';
export { VALUE_METHOD } from './answers.js';
export { SERIES_BUCKET_SECONDS, SERIES_MAX_BUCKETS, seriesBucketCount, type SeriesRequest } from './series.js';
import { mergeCoverage, readCoverage, summarizeCoverage, type HeightInterval } from './coverage.js';
import {
  countMatches,
  countRows,
  currentStats,
  filterKey,
  keysetAt,
  keysetBatches,
  keysetStep,
  pageMatches,
  readStats,
  scanMatches,
  type KeysetPosition,
} from './query.js';
import type { ReaderTask } from './readers.js';
import { nominalExact } from '../../domain/listing.js';
import {
  LIST_COLUMNS,
  parseNominalParts,
  prepareBlock,
  rowToDetail,
  rowWithIntegrity,
  type PreparedBlock,
  type TransactionDetailRow,
} from './rows.js';

export type { HeightInterval } from './coverage.js';
export type { TransactionRow, TransactionDetailRow, PreparedBlock, SerializedObservation } from './rows.js';
export { prepareBlock } from './rows.js';

/** The collector's recorded state, shown in /api/status. Rates are per second of wall time; times ISO 8601. */
export type CollectorState = {
  /** `standby` is live only (a standing-by collector never records its state over the leader's). */
  state: 'running' | 'standby' | 'catching_up' | 'stalled' | 'error' | 'stopped';
  /** RPC URL without credentials. */
  source: string;
  last_block: number | null;
  finalized_head: number | null;
  rate_tx_per_s: number | null;
  rate_blocks_per_s: number | null;
  last_error: string | null;
  last_error_at: string | null;
  updated_at: string;
};

/** The last block written in order, and when. */
export type Checkpoint = {
  height: number;
  hash: string;
  /** ISO 8601. */
  updated_at: string;
};

/**
 * Writes blocks in ONE database transaction: every observation (idempotent: a stored hash is skipped), the
 * blocks' heights merged into coverage (blocks without transactions included; a gap stays a gap), and the
 * checkpoint. A crash at any moment leaves either all of it or none of it.
 * @param blocks finalized blocks, any order
 * @param checkpoint the block to resume after (normally the highest of `blocks`)
 * @throws the driver's error when the database cannot write (nothing is written then)
 */
export function writeBlocks(store: Store, blocks: BlockObservations[], checkpoint: { height: number; hash: string }): Promise<void> {
  return writePreparedBlocks(store, blocks.map(prepareBlock), checkpoint);
}

/**
 * writeBlocks for blocks already serialized (prepareBlock), as the collector's decode worker hands them over.
 * @throws the driver's error when the database cannot write (nothing is written then)
 */
export async function writePreparedBlocks(
  store: Store,
  blocks: PreparedBlock[],
  checkpoint: { height: number; hash: string },
): Promise<void> {
  const now = new Date().toISOString();
  const newest = blocks.length ? Math.max(...blocks.map((b) => b.time)) : null;
  await store.db.transaction().execute(async (trx) => {
    await insertObservations(
      trx,
      store.dialect,
      blocks.flatMap((b) => b.observations),
      newest,
      now,
    );
    await mergeCoverage(
      trx,
      blocks.map((b) => b.height),
    );
    await trx
      .insertInto('checkpoint')
      .values({ id: 1, height: checkpoint.height, hash: checkpoint.hash.toLowerCase(), updated_at: now })
      .onConflict((oc) => oc.column('id').doUpdateSet({ height: checkpoint.height, hash: checkpoint.hash.toLowerCase(), updated_at: now }))
      .execute();
  });
  store.cache.chainWritten();
}

/** The checkpoint, or null on a fresh store. */
export async function getCheckpoint(store: Store): Promise<Checkpoint | null> {
  const r = await store.db.selectFrom('checkpoint').selectAll().where('id', '=', 1).executeTakeFirst();
  return r ? { height: Number(r.height), hash: r.hash, updated_at: r.updated_at } : null;
}

/** Records the collector's state (one row, replaced). */
export async function saveCollectorState(store: Store, s: CollectorState): Promise<void> {
  const row = { ...s };
  await store.db
    .insertInto('collector_state')
    .values({ id: 1, ...row })
    .onConflict((oc) => oc.column('id').doUpdateSet(row))
    .execute();
}

/** The collector's last recorded state, or null when no collector ever ran on this store. */
export async function getCollectorState(store: Store): Promise<CollectorState | null> {
  const r = await store.db.selectFrom('collector_state').selectAll().where('id', '=', 1).executeTakeFirst();
  if (!r) return null;
  const num = (v: number | string | null) => (v == null ? null : Number(v));
  return {
    state: r.state as CollectorState['state'],
    source: r.source,
    last_block: num(r.last_block),
    finalized_head: num(r.finalized_head),
    rate_tx_per_s: num(r.rate_tx_per_s),
    rate_blocks_per_s: num(r.rate_blocks_per_s),
    last_error: r.last_error,
    last_error_at: r.last_error_at,
    updated_at: r.updated_at,
  };
}

/** Collected block-height intervals, lowest first: merged, non-overlapping, inclusive. */
export async function getCoverage(store: Store): Promise<HeightInterval[]> {
  return readCoverage(store.db);
}

/**
 * Transactions matching `filters`, sorted by time descending then hash ascending.
 * @param page limit 1..100 and offset 0..1,000,000 (validated by the caller's schema)
 */
export async function listTransactions(
  store: Store,
  filters: ObservationFilters,
  page: { limit: number; offset: number },
  now = new Date(),
): Promise<TransactionPage> {
  const stats = await currentStats(store);
  // Polling clients asking for the same page between two writes share one read (../cache.ts). The same page
  // object comes back on a hit, so callers may cache its rendering.
  const list = store.tokenList;
  return store.cache.pages.get(stats, JSON.stringify([filterKey(filters, list), page.limit, page.offset]), async () => {
    const offload = store.readers ? (f: ObservationFilters) => store.readers!.count(f) : undefined;
    const [total, rows] = await Promise.all([
      countMatches(store, filters, stats, offload),
      pageMatches(store.db, filters, list, page.limit, page.offset, stats),
    ]);
    return { total, as_of: stats.updatedAt ?? now.toISOString(), rows };
  });
}

/** One transaction with its detail, or null when this archive has not recorded it (not proof of absence on chain). */
export async function getTransaction(store: Store, hash: string): Promise<TransactionDetailRow | null> {
  const r = await store.db
    .selectFrom('observations')
    .innerJoin('observation_details', 'observation_details.seq', 'observations.seq')
    .select([...LIST_COLUMNS.map((c) => `observations.${c}` as const), 'observation_details.detail'])
    .where('observations.hash', '=', hash.toLowerCase())
    .executeTakeFirst();
  return r ? rowToDetail(r, store.tokenList) : null;
}

/** Metrics window (docs/api-chain.md). */
export const METRICS_WINDOW = 50_000;
/** Export cap (docs/api-chain.md). */
export const EXPORT_CAP = 10_000;

/**
 * Aggregates the latest 50,000 matches by streaming their rows and summing with DecimalSum (exact bigint
 * arithmetic; never floats, never SQL SUM over text). `total` counts all matches. The answer is remembered
 * at the store's version (`metrics` region, ../cache.ts: 50,000 rows cost about a second on a loaded 2-core machine).
 * @param window how many of the latest matches to aggregate (the contract's 50,000; smaller only in tests)
 */
export async function computeMetrics(store: Store, filters: ObservationFilters, window = METRICS_WINDOW): Promise<Metrics> {
  const stats = await currentStats(store);
  return store.cache.metrics.get(stats, `${window}|${filterKey(filters, store.tokenList)}`, () =>
    store.readers ? store.readers.metrics(filters, window) : aggregateMetrics(store, filters, window),
  );
}

/** computeMetrics without the cache, on the calling thread (a reader thread runs this too). */
export async function aggregateMetrics(store: Store, filters: ObservationFilters, window: number): Promise<Metrics> {
  const list = store.tokenList;
  const total = await countMatches(store, filters, await readStats(store.db));
  const nominal = new DecimalSum();
  const fees = new DecimalSum();
  let analyzed = 0;
  let success = 0;
  let known = 0;
  for await (const r of scanMatches(store.db, filters, list, window, ['nominal_parts', 'fee', 'execution'] as const)) {
    analyzed++;
    nominal.addExact(nominalExact(parseNominalParts(r.nominal_parts), list));
    fees.add(r.fee);
    if (r.execution === 'success' || r.execution === 'failed') {
      known++;
      if (r.execution === 'success') success++;
    }
  }
  return {
    total,
    analyzed,
    truncated: total > window,
    nominal: nominal.count ? nominal.value() : null,
    fees: fees.count ? fees.value() : null,
    nominal_known: nominal.count,
    fees_known: fees.count,
    value_method: VALUE_METHOD,
    rate: known ? success / known : null,
    task_outcomes: null,
  };
}

/**
 * Metrics per UTC-aligned time bucket over [since, until), exact and aggregated from the same latest 50,000
 * matches as computeMetrics, so a bucket equals /api/metrics over that bucket's [start, end) whenever the series is
 * not truncated. The window is summed in two ranges at once (two reader threads, or two PostgreSQL connections),
 * bounded by the keyset positions of its first match and of its middle (./series.ts). Remembered at the
 * store's version (`series` region, ../cache.ts). The caller validates the request (since < until, at most
 * SERIES_MAX_BUCKETS buckets); buckets without matches have count 0 and null sums (unknown, not 0).
 */
export async function computeSeries(store: Store, req: SeriesRequest, window = METRICS_WINDOW): Promise<MetricsSeries> {
  const stats = await currentStats(store);
  return store.cache.series.get(stats, `${window}|${req.bucket}|${filterKey(req.filters, store.tokenList)}`, async () => {
    const readers = store.readers;
    const total = countMatches(store, req.filters, stats, readers ? (f) => readers.count(f) : undefined);
    const half = Math.ceil(window / 2);
    const [first, middle] = await (readers
      ? readers.keysetAt(req.filters, [0, half - 1])
      : keysetAt(store.db, req.filters, store.tokenList, [0, half - 1]));
    const sum = (range: SeriesRange) => (readers ? readers.seriesSums(req, range) : sumSeriesRange(store, req, range));
    const [newer, older] = await Promise.all([
      first ? sum({ start: { ...first, inclusive: true }, cap: half }) : emptySeriesSums(req),
      middle ? sum({ start: middle, cap: window - half }) : emptySeriesSums(req),
    ]);
    return finishSeries(req, store.tokenList, await total, window, mergeSeriesSums(newer, older));
  });
}

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
  const rows = await keysetStep(store.db, filters, list, after, n, (qb) =>
    qb.select(EXPORT_READ).select([member('score').as('integrity_score'), member('maximum').as('integrity_maximum')]),
  );
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

/**
 * Runs a heavy read on the calling thread: what a reader thread does with each task (./readers.ts), and the
 * fallback while none has loaded.
 */
export function runReaderTask(store: Store, task: ReaderTask): Promise<unknown> {
  switch (task.op) {
    case 'metrics':
      return aggregateMetrics(store, task.filters, task.window);
    case 'keyset-at':
      return keysetAt(store.db, task.filters, store.tokenList, task.ranks);
    case 'series-sums':
      return sumSeriesRange(store, task.request, task.range);
    case 'count':
      return countRows(store.db, task.filters, store.tokenList);
    case 'export-step':
      return exportStep(store, task.filters, task.after, task.n);
  }
}

/** What the store knows for /api/status (the route adds live components and service sources). */
export type StoreStatus = {
  chain_id: typeof CHAIN_ID;
  /** The collector's source when one has run, else null. */
  source: string | null;
  /** now − newest collected block time, in whole seconds; null when nothing is collected. */
  lag_seconds: number | null;
  total_transactions: number;
  checkpoint: Checkpoint | null;
  collector: CollectorState | null;
  coverage: string;
  independent_consensus_verified: false;
};

/** Status of the chain data at `now`. */
export async function getStatus(store: Store, now: Date): Promise<StoreStatus> {
  const [stats, checkpoint, collector, coverage] = await Promise.all([
    readStats(store.db),
    getCheckpoint(store),
    getCollectorState(store),
    readCoverage(store.db),
  ]);
  return {
    chain_id: CHAIN_ID,
    source: collector?.source ?? null,
    lag_seconds: stats.newestBlockTime == null ? null : Math.max(0, Math.floor(now.getTime() / 1000) - stats.newestBlockTime),
    total_transactions: stats.count,
    checkpoint,
    collector,
    coverage: summarizeCoverage(coverage),
    independent_consensus_verified: false,
  };
}
