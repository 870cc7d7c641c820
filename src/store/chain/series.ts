import { addExact, addToSum, emptySum, formatExact, mergeSums, parseDecimal, type ExactDecimal } from '../../domain/money.js';
import type { TokenList } from '../../domain/token-list.js';
import type { Store } from '../store.js';
import { VALUE_METHOD } from './answers.js';
import { exclusionRule } from '../../domain/filters.js';
import type { BucketSums, MetricsSeries, PartSums, SeriesBucket, SeriesPart, SeriesRange, SeriesRequest, SeriesSums } from './answers.js';
import { keysetAt, scanMatches } from './query.js';
import { parseNominalParts } from './rows.js';

/** Seconds per series bucket. */
export const SERIES_BUCKET_SECONDS = { hour: 3600, day: 86_400 } as const;
/** Most buckets one series may have (31 days of hours). */
export const SERIES_MAX_BUCKETS = 744;

export type { SeriesRange, SeriesRequest, SeriesSums } from './answers.js';

/** Number of UTC-aligned buckets of `size` seconds that [since, until) touches. */
export function seriesBucketCount(since: number, until: number, size: number): number {
  return Math.floor((until - 1) / size) - Math.floor(since / size) + 1;
}

const emptyPart = (): PartSums => ({ count: 0, nominal: emptySum(), fees: emptySum() });
const emptyBucket = (): BucketSums => ({
  all: emptyPart(),
  execution: { success: emptyPart(), failed: emptyPart(), unknown: emptyPart() },
  protocol: { mpp: emptyPart(), x402: emptyPart(), unknown: emptyPart() },
  assets: {},
});

/** The sums of an empty range: every bucket of the request, with nothing in it. */
export function emptySeriesSums(req: SeriesRequest): SeriesSums {
  const size = SERIES_BUCKET_SECONDS[req.bucket];
  return {
    analyzed: 0,
    oldest: null,
    buckets: Array.from({ length: seriesBucketCount(req.filters.since, req.filters.until, size) }, emptyBucket),
  };
}

function addToPart(p: PartSums, nominal: ExactDecimal | null, fee: ExactDecimal | null): void {
  p.count++;
  addToSum(p.nominal, nominal);
  addToSum(p.fees, fee);
}

/**
 * Sums one range of a series' window (on the calling thread; a reader thread runs this too).
 * @returns plain data: counts and ExactSums per bucket (amounts parsed once, added to every sum they belong to)
 */
export async function sumSeriesRange(store: Store, req: SeriesRequest, range: SeriesRange): Promise<SeriesSums> {
  const list = store.tokenList;
  const size = SERIES_BUCKET_SECONDS[req.bucket];
  const first = Math.floor(req.filters.since / size);
  const { buckets } = emptySeriesSums(req);
  let analyzed = 0;
  let oldest: number | null = null;
  const columns = ['nominal_parts', 'fee', 'execution', 'protocol'] as const;
  for await (const r of scanMatches({ db: store.db, filters: req.filters, list, cap: range.cap, columns, start: range.start })) {
    analyzed++;
    const time = Number(r.time);
    oldest = time;
    const b = buckets[Math.floor(time / size) - first]!;
    const fee = r.fee === null ? null : parseDecimal(r.fee);
    let nominal: ExactDecimal | null = null;
    const counted: string[] = [];
    for (const p of parseNominalParts(r.nominal_parts) ?? []) {
      if (!list.tokens.has(p.asset_contract)) continue;
      const amount = parseDecimal(p.amount);
      nominal = nominal ? addExact(nominal, amount) : amount;
      b.assets[p.asset_contract] ??= { count: 0, nominal: emptySum() };
      const a = b.assets[p.asset_contract];
      // A row counts once per asset, however many parts name it.
      if (!counted.includes(p.asset_contract)) {
        a.count++;
        counted.push(p.asset_contract);
      }
      addToSum(a.nominal, amount);
    }
    addToPart(b.all, nominal, fee);
    const e = b.execution[r.execution as keyof BucketSums['execution']];
    if (e) addToPart(e, nominal, fee);
    // Null is "unknown", as the protocol filter reads it.
    const p = r.protocol === null ? b.protocol.unknown : b.protocol[r.protocol as 'mpp' | 'x402'];
    if (p) addToPart(p, nominal, fee);
  }
  return { analyzed, oldest, buckets };
}

const mergePart = (a: PartSums, b: PartSums): PartSums => ({
  count: a.count + b.count,
  nominal: mergeSums(a.nominal, b.nominal),
  fees: mergeSums(a.fees, b.fees),
});

/**
 * The sums of two consecutive ranges of one window.
 * @param newer the range nearer the newest match
 * @param older the range that follows it in the public order
 */
export function mergeSeriesSums(newer: SeriesSums, older: SeriesSums): SeriesSums {
  return {
    analyzed: newer.analyzed + older.analyzed,
    oldest: older.oldest ?? newer.oldest,
    buckets: newer.buckets.map((x, i) => {
      const y = older.buckets[i]!;
      const assets = { ...x.assets };
      for (const [c, a] of Object.entries(y.assets))
        assets[c] = assets[c] ? { count: assets[c].count + a.count, nominal: mergeSums(assets[c].nominal, a.nominal) } : a;
      return {
        all: mergePart(x.all, y.all),
        execution: {
          success: mergePart(x.execution.success, y.execution.success),
          failed: mergePart(x.execution.failed, y.execution.failed),
          unknown: mergePart(x.execution.unknown, y.execution.unknown),
        },
        protocol: {
          mpp: mergePart(x.protocol.mpp, y.protocol.mpp),
          x402: mergePart(x.protocol.x402, y.protocol.x402),
          unknown: mergePart(x.protocol.unknown, y.protocol.unknown),
        },
        assets,
      };
    }),
  };
}

const formatPart = (p: PartSums): SeriesPart => ({
  count: p.count,
  nominal: p.nominal.count ? formatExact(p.nominal) : null,
  fees: p.fees.count ? formatExact(p.fees) : null,
});

/**
 * The answer from a window's sums.
 * @param total all matches in [since, until)
 * @param window the most matches summed (truncated when total exceeds it)
 */
export function finishSeries(req: SeriesRequest, list: TokenList, total: number, window: number, sums: SeriesSums): MetricsSeries {
  const { since, until } = req.filters;
  const size = SERIES_BUCKET_SECONDS[req.bucket];
  const first = Math.floor(since / size);
  const contracts = new Set<string>();
  const buckets: SeriesBucket[] = sums.buckets.map((b, i) => {
    const assets = Object.entries(b.assets)
      .sort(([x], [y]) => (x < y ? -1 : 1))
      .map(([asset_contract, a]) => ({ asset_contract, count: a.count, nominal: formatExact(a.nominal) }));
    for (const a of assets) contracts.add(a.asset_contract);
    return {
      start: Math.max(since, (first + i) * size),
      end: Math.min(until, (first + i + 1) * size),
      ...formatPart(b.all),
      nominal_known: b.all.nominal.count,
      fees_known: b.all.fees.count,
      execution: {
        success: formatPart(b.execution.success),
        failed: formatPart(b.execution.failed),
        unknown: formatPart(b.execution.unknown),
      },
      ...(req.split === 'protocol'
        ? { protocol: { mpp: formatPart(b.protocol.mpp), x402: formatPart(b.protocol.x402), unknown: formatPart(b.protocol.unknown) } }
        : {}),
      assets,
    };
  });
  return {
    bucket: req.bucket,
    bucket_seconds: size,
    since,
    until,
    total,
    analyzed: sums.analyzed,
    truncated: total > window,
    analyzed_since: total > window ? sums.oldest : null,
    value_method: VALUE_METHOD + exclusionRule(req.filters.exclude),
    assets: [...contracts].sort().map((c) => ({ asset_contract: c, symbol: list.tokens.get(c)!.symbol })),
    buckets,
  };
}

/**
 * Sums the newest `rows` matches once and discards the answer: V8 optimizes a function only after many calls, so a
 * reader thread that has done this at start gives its first visitor's aggregate compiled code, not the
 * interpreter. Does nothing on an empty store.
 */
export async function warmUpSeries(store: Store, rows = 5_000): Promise<void> {
  const [newest, oldest] = await keysetAt(store.db, {}, store.tokenList, [0, rows - 1]);
  if (!newest) return;
  await sumSeriesRange(
    store,
    { bucket: 'day', filters: { since: (oldest ?? newest).time, until: newest.time + 1 } },
    { start: null, cap: rows },
  );
}
