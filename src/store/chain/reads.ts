/**
 * The chain's public reads: list pages, a transaction's detail, metrics and series, each remembered at the store's
 * version (../cache.ts) and run on a reader thread when the store has them (./readers.ts).
 */
import type { Store } from '../store.js';
import { readStoredDetails } from './stored-details.js';
import { DecimalSum } from '../../domain/money.js';
import { METRICS_WINDOW, successRate } from '../../domain/metrics.js';
import { exclusionRule, type ObservationFilters } from '../../domain/filters.js';
import { nominalExact } from '../../domain/listing.js';
import { VALUE_METHOD, type Metrics, type MetricsSeries, type TransactionPage } from './answers.js';
import { emptySeriesSums, finishSeries, mergeSeriesSums, sumSeriesRange, type SeriesRange, type SeriesRequest } from './series.js';
import { countMatches, currentStats, filterKey, keysetAt, pageMatches, readStats, scanMatches } from './query.js';
import { finalityOfBlock } from './finality.js';
import { withFinality } from './finality-at-read.js';
import { paymentIntelOf } from '../payments/intel-index.js';
import { LIST_COLUMNS, parseNominalParts, rowToDetail, type TransactionDetailRow } from './rows.js';

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
      pageMatches({ db: store.db, filters, list, limit: page.limit, offset: page.offset, known: stats }),
    ]);
    return { total, as_of: stats.updatedAt ?? now.toISOString(), rows };
  });
}

/** One transaction with its detail, or null when this archive has not recorded it (not proof of absence on chain). */
export async function getTransaction(store: Store, hash: string): Promise<TransactionDetailRow | null> {
  const r = await store.db
    .selectFrom('observations')
    .innerJoin('observation_details', 'observation_details.seq', 'observations.seq')
    .select([...LIST_COLUMNS.map((c) => `observations.${c}` as const), 'observation_details.detail', 'observation_details.packed'])
    .select('observation_details.seq as detail_seq')
    .where('observations.hash', '=', hash.toLowerCase())
    .executeTakeFirst();
  if (!r) return null;
  const [json] = await readStoredDetails(store.db, [{ seq: r.detail_seq, detail: r.detail, packed: r.packed }]);
  if (json instanceof Error) throw json;
  // Offers stored since the last read (a primary-key range, usually empty), so the candidates are current.
  const intel = paymentIntelOf(store);
  await intel.refresh(store.db);
  const detail = rowToDetail({ ...r, detail: json }, store.tokenList, intel);
  const block = await finalityOfBlock(store.db, Number(r.height));
  // Blocks collected since finality is kept have a row; older or seeded observations keep their evidence as stored.
  if (block !== null) {
    withFinality(detail.integrity, block.check);
    const finality = block.evidence ?? AWAITING_CERTIFICATE;
    detail.evidence = { ...((detail.evidence as object | null) ?? {}), finality } as typeof detail.evidence;
  }
  return detail;
}

/** `evidence.finality` of a block no certificate check covers yet (src/chain/consensus/evidence.ts's shape). */
const AWAITING_CERTIFICATE = Object.freeze({
  status: 'unknown',
  check: null,
  reason: 'awaiting certificate',
  certificate_height: null,
  epoch: null,
  view: null,
  key_from_epoch: null,
  anchored: false,
  witnesses: { configured: 0, quorum: 0, agreeing: 0, disagreeing: 0 },
  verified_at: null,
});

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
  let failed = 0;
  const payers = new Set<string>();
  const recipients = new Set<string>();
  let payersKnown = 0;
  const columns = ['nominal_parts', 'fee', 'execution', 'payer', 'self_payment', 'recipient'] as const;
  for await (const r of scanMatches({ db: store.db, filters, list, cap: window, columns })) {
    analyzed++;
    // A self-payment is visible as such and never a distinct payer (docs/api-chain.md, "Metrics").
    if (r.payer !== null) payersKnown++;
    if (r.payer !== null && Number(r.self_payment) !== 1) payers.add(r.payer);
    if (r.recipient !== null) recipients.add(r.recipient);
    nominal.addExact(nominalExact(parseNominalParts(r.nominal_parts), list));
    fees.add(r.fee);
    if (r.execution === 'success') success++;
    else if (r.execution === 'failed') failed++;
  }
  return {
    total,
    analyzed,
    truncated: total > window,
    nominal: nominal.count ? nominal.value() : null,
    fees: fees.count ? fees.value() : null,
    nominal_known: nominal.count,
    fees_known: fees.count,
    // Unknown is null, never zero: rows stored without a payer (older details) say nothing about payers.
    distinct_payers: payersKnown ? payers.size : null,
    distinct_recipients: recipients.size ? recipients.size : null,
    value_method: VALUE_METHOD + exclusionRule(filters.exclude),
    rate: successRate(success, failed),
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
  return store.cache.series.get(
    stats,
    `${window}|${req.bucket}|${req.split ?? ''}|${filterKey(req.filters, store.tokenList)}`,
    async () => {
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
    },
  );
}
