/**
 * The chain area's query layer: the answers of the public chain endpoints, from input already parsed by the
 * wire schemas (src/domain/filters.ts) to the body (pagination, status composition, coverage shape, the series
 * window, NotFound for an unrecorded hash). HTTP routes (src/api/routes/chain.ts) import only these; the SQL
 * and the remembered answers keyed on the store version are in src/store/chain/reads.ts.
 */
import type { AppContext } from '../context.js';
import { InvalidInput, NotFound } from '../domain/errors.js';
import type { ObservationFilters } from '../domain/filters.js';
import {
  computeMetrics,
  computeSeries,
  countQuarantined,
  currentStats,
  exportRows,
  getCoverage,
  getStatus,
  getTransaction,
  listTransactions,
  readQuarantined,
  readRetention,
  SERIES_BUCKET_SECONDS,
  SERIES_MAX_BUCKETS,
  seriesBucketCount,
  type ExportRow,
  type Metrics,
  type MetricsSeries,
  type SeriesRequest,
  type TransactionDetailRow,
  type TransactionPage,
} from '../store/chain/index.js';
import { getServiceSources } from '../store/intel/index.js';
import { replicaStatus } from '../store/read-replica.js';
import type { Store } from '../store/db.js';
import { sinceNotBeforeUntil } from '../domain/query-params.js';

/** The most buckets one /api/metrics/series answer holds (its route documents it). */
export { SERIES_MAX_BUCKETS };

/** The origin of a URL (scheme, host, port): no credentials, path or query (which may carry API keys). */
function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * GET /api/status without its manifest link (which follows the listener's base URL): checkpoint, lag, coverage
 * summary, the collector's state (the live one running in this process when there is one, else its last
 * recorded row; its source reduced to an origin), the intel sources' freshness and, when `ctx.store` is a read
 * replica of `ctx.primary`, its replay lag (null otherwise).
 * @param now the time lag is computed against
 */
export async function chainStatus(ctx: Pick<AppContext, 'store' | 'primary' | 'config' | 'components'>, now = new Date()) {
  const [s, serviceSources, replica, quarantine] = await Promise.all([
    getStatus(ctx.store, now),
    getServiceSources(ctx.store),
    ctx.primary ? replicaStatus(ctx.store, ctx.primary) : null,
    quarantineSummary(ctx.store),
  ]);
  // A collector running in this process is fresher than its last recorded row.
  const recorded = ctx.components.get('collector')?.() ?? s.collector;
  const { source, ...collector } = recorded ?? { source: null, state: null };
  return { ...s, source: originOf(source ?? ctx.config.rpcUrl), collector, quarantine, service_sources: serviceSources, replica };
}

/** Quarantined blocks /api/status and /api/coverage list at most (the count covers them all). */
export const QUARANTINE_SHOWN = 100;

/**
 * The quarantined blocks (gaps collection moved past, src/chain/collector/quarantine.ts): how many, and the
 * first QUARANTINE_SHOWN with their reasons, lowest height first.
 */
export async function quarantineSummary(store: Store) {
  const [blocks, count] = await Promise.all([readQuarantined(store, QUARANTINE_SHOWN), countQuarantined(store)]);
  return {
    count,
    blocks: blocks.map((b) => ({
      height: b.height,
      hash: b.hash,
      reason: b.reason,
      attempts: b.attempts,
      quarantined_at: b.quarantined_at as string,
    })),
  };
}

/** What /api/coverage's `historical` and /api/metrics' `covered` say of the range retention dropped. */
const DROPPED_NOTE =
  'Observations before retained_from were collected and then deleted by retention (--retain-days): that range is neither a gap nor zero activity.';

/**
 * GET /api/coverage: retained height intervals with their block counts, the quarantined blocks (gaps with their
 * reason), and `historical`: from where data is retained once retention dropped anything
 * (`{retained_from, retained_from_time, retained_from_height, dropped_observations, note}`), else null.
 */
export async function coverage(store: Store) {
  const [intervals, quarantine, retained] = await Promise.all([getCoverage(store), quarantineSummary(store), readRetention(store)]);
  const historical = retained && {
    retained_from: new Date(retained.retainedFromTime * 1000).toISOString(),
    retained_from_time: retained.retainedFromTime,
    retained_from_height: retained.retainedFromHeight,
    dropped_observations: retained.dropped,
    note: DROPPED_NOTE,
  };
  return { intervals: intervals.map((i) => ({ ...i, blocks: i.last - i.first + 1 })), quarantine, historical };
}

/**
 * The part of [since, until) the store still holds, when retention dropped some of it: `{since, until, retained_from,
 * note}` (UTC Unix seconds; until null: open), else undefined (the whole window is retained).
 */
export function coveredPart(retainedFrom: number | null | undefined, since: number | undefined, until: number | undefined) {
  if (retainedFrom == null || (since !== undefined && since >= retainedFrom)) return undefined;
  return {
    since: until === undefined ? retainedFrom : Math.min(retainedFrom, until),
    until: until ?? null,
    retained_from: new Date(retainedFrom * 1000).toISOString(),
    note: DROPPED_NOTE,
  };
}

/**
 * True when a list query needs more than rank arithmetic: any filter besides since/until (an indexed count and
 * page). Such a list is a heavy read (src/limits/heavy-budget.ts) on every face that serves it.
 */
export const isFilteredBeyondTime = (q: Record<string, unknown>) => ['q', 'asset', 'exchange', 'execution'].some((k) => q[k] !== undefined);

/**
 * GET /api/transactions: one page, newest first. The same store version and query give the same page object
 * (remembered in the store), so a face may render it once.
 */
export function transactionsPage(store: Store, query: ObservationFilters & { limit: number; offset: number }): Promise<TransactionPage> {
  const { limit, offset, ...filters } = query;
  return listTransactions(store, filters, { limit, offset });
}

/**
 * GET /api/transactions/{hash}: one recorded transaction with its detail.
 * @param hash 0x + 64 hex digits, any case
 * @param primary when `store` is a read replica: the primary, asked before a 404 (a replica that has not
 *   replayed it yet is no proof)
 * @returns the same object for every request of a recorded hash at one store version (the store's details region, src/store/cache.ts)
 * @throws NotFound when it is not recorded here (which is not proof that it does not exist on chain)
 */
export async function transactionDetail(store: Store, hash: string, primary?: Store): Promise<TransactionDetailRow> {
  const h = hash.toLowerCase();
  // Keyed at the chain version: a finality upgrade rewrites a recorded transaction's integrity and evidence.
  return store.cache.details.get(await currentStats(store), h, async () => {
    const t = (await getTransaction(store, h)) ?? (primary ? await getTransaction(primary, h) : null);
    if (!t) throw new NotFound(`transaction ${h} is not recorded in this archive; this is not proof that it does not exist on chain`);
    return t;
  });
}

/**
 * GET /api/metrics: aggregates over the latest matches (see computeMetrics), with `covered` (coveredPart) when the
 * window reaches before the data retention kept.
 */
export async function metrics(store: Store, filters: ObservationFilters): Promise<Metrics & { covered?: ReturnType<typeof coveredPart> }> {
  const [m, stats] = await Promise.all([computeMetrics(store, filters), currentStats(store)]);
  const covered = coveredPart(stats.retainedFrom, filters.since, filters.until);
  return covered ? { ...m, covered } : m;
}

/**
 * GET /api/metrics/series: buckets of `bucket` over [since, until). Defaults: until = the end of the current
 * bucket, since = until minus 24 hours (hour) or 30 days (day).
 * @param nowSeconds UTC Unix seconds the defaults are computed from
 * @throws InvalidInput naming `since` when since ≥ until or the window spans more than SERIES_MAX_BUCKETS buckets
 */
export async function metricsSeries(
  store: Store,
  query: ObservationFilters & { bucket: keyof typeof SERIES_BUCKET_SECONDS; split?: SeriesRequest['split'] },
  nowSeconds = Date.now() / 1000,
): Promise<MetricsSeries & { covered?: ReturnType<typeof coveredPart> }> {
  const { bucket, split, ...filters } = query;
  const size = SERIES_BUCKET_SECONDS[bucket];
  const until = filters.until ?? (Math.floor(nowSeconds / size) + 1) * size;
  const since = filters.since ?? until - (bucket === 'hour' ? 24 : 30) * size;
  if (since >= until) throw new InvalidInput(`invalid query parameter 'since': ${sinceNotBeforeUntil(since, until)}`);
  const n = seriesBucketCount(since, until, size);
  if (n > SERIES_MAX_BUCKETS)
    throw new InvalidInput(`invalid query parameter 'since': [since, until) spans ${n} ${bucket} buckets; at most ${SERIES_MAX_BUCKETS}`);
  const [series, stats] = await Promise.all([
    computeSeries(store, { filters: { ...filters, since, until }, bucket, ...(split ? { split } : {}) }),
    currentStats(store),
  ]);
  // Buckets before retained_from hold no rows because retention dropped them, not because nothing happened.
  const covered = coveredPart(stats.retainedFrom, since, until);
  return covered ? { ...series, covered } : series;
}

/** GET /api/export: batches of the newest matches, newest first (see exportRows). */
export function exportBatches(store: Store, filters: ObservationFilters): AsyncIterator<ExportRow[]> {
  return exportRows(store, filters);
}
