/**
 * Rankings of services, recipients and payers over a window of whole UTC days, read from the per-day payment
 * rollups (./rollups.ts) and remembered at the chain version like the other aggregates (../cache.ts).
 */
import { addExact, formatExact, parseDecimal, type ExactDecimal } from '../../domain/money.js';
import type { TokenList } from '../../domain/token-list.js';
import type { Store } from '../store.js';
import { coveredWindow, type CoveredWindow } from './covered-window.js';
import { currentStats } from './query.js';
import { DAY_SECONDS, type RollupProtocol } from './rollups.js';

/** What a ranking ranks: services (by service_id), recipient addresses or payer addresses. */
export type RankingKind = 'services' | 'recipients' | 'payers';
/** What a ranking orders by (descending; ties by nominal, then id ascending). */
export type RankingOrder = 'nominal' | 'payments' | 'distinct_payers';

/** A ranking request; since/until are UTC Unix seconds, widened to whole UTC days. */
export interface RankingRequest {
  kind: RankingKind;
  since: number;
  until: number;
  by: RankingOrder;
  protocol?: RollupProtocol;
  limit: number;
  offset: number;
}

/** One ranked row (docs/payments.md). */
export interface RankingRow {
  rank: number;
  service_id?: string;
  provider?: string | null;
  address?: string;
  payments: number;
  /** Distinct payers other than the recipient itself (self-payments never count); for a payer row 1, or 0 when all its payments are to itself. */
  distinct_payers: number;
  /** Listed-USD nominal received (exact decimal string), or null when no payment had a listed-USD part. */
  nominal: string | null;
  /** The largest payer's share of `nominal` (0..1), or null when nominal is null or zero. */
  top_payer_share: number | null;
  self_payments: number;
}

/** A ranking answer (GET /api/rankings/{kind}). */
export interface RankingAnswer extends CoveredWindow {
  since: number;
  until: number;
  by: RankingOrder;
  total: number;
  limit: number;
  offset: number;
  /** Time of the store's last write reflected by this answer (ISO 8601). */
  as_of: string;
  rows: RankingRow[];
}

/** [since, until) widened outward to whole UTC days (the rollups' unit). */
export function dayWindow(since: number, until: number): { since: number; until: number } {
  return { since: Math.floor(since / DAY_SECONDS) * DAY_SECONDS, until: Math.ceil(until / DAY_SECONDS) * DAY_SECONDS };
}

interface Tally {
  id: string;
  provider: string | null;
  payments: number;
  self: number;
  nominal: ExactDecimal | null;
  /** Nominal per payer other than the subject itself (null: none of its payments had a listed-USD part). */
  payers: Map<string, ExactDecimal | null>;
}

const add = (a: ExactDecimal | null, b: ExactDecimal | null) => (a === null ? b : b === null ? a : addExact(a, b));

/** a / b as a number in 0..1 (b > 0), from exact decimals: 9 significant digits are plenty for a share. */
function share(a: ExactDecimal, b: ExactDecimal): number {
  const scale = Math.max(a.scale, b.scale);
  const an = a.n * 10n ** BigInt(scale - a.scale);
  const bn = b.n * 10n ** BigInt(scale - b.scale);
  return Number((an * 1_000_000_000n) / bn) / 1e9;
}

const cmpExact = (a: ExactDecimal | null, b: ExactDecimal | null): number => {
  if (a === null || b === null) return a === null ? (b === null ? 0 : -1) : 1;
  const d = addExact(a, { n: -b.n, scale: b.scale }).n;
  return d > 0n ? 1 : d < 0n ? -1 : 0;
};

/**
 * The listed-USD nominal of a stored parts text, memoised per text: rollup rows repeat few distinct sums.
 * @returns null when no part's token is listed
 */
function nominalReader(list: TokenList): (text: string | null) => ExactDecimal | null {
  const memo = new Map<string, ExactDecimal | null>();
  return (text) => {
    if (text === null) return null;
    let v = memo.get(text);
    if (v === undefined) {
      v = null;
      for (const [c, amount] of JSON.parse(text) as [string, string][]) if (list.tokens.has(c)) v = add(v, parseDecimal(amount));
      if (memo.size < 100_000) memo.set(text, v);
    }
    return v;
  };
}

/**
 * The ranking of `req` at the current chain version (remembered in the `payments` region).
 * @throws the store's errors (StoreUnavailable when it cannot answer)
 */
export async function computeRanking(store: Store, req: RankingRequest): Promise<RankingAnswer> {
  const stats = await currentStats(store);
  const key = JSON.stringify([
    'ranking',
    req.kind,
    req.since,
    req.until,
    req.by,
    req.protocol ?? null,
    req.limit,
    req.offset,
    store.tokenList.id,
  ]);
  return store.cache.payments.get(stats, key, async () => ({
    ...(await rankRollups(store, req)),
    as_of: stats.updatedAt ?? new Date().toISOString(),
  })) as Promise<RankingAnswer>;
}

/** computeRanking without the cache (also what the benchmark times uncached). */
export async function rankRollups(store: Store, req: RankingRequest): Promise<Omit<RankingAnswer, 'as_of'>> {
  const { since, until } = dayWindow(req.since, req.until);
  const dim = req.kind === 'services' ? 'service' : 'recipient';
  let q = store.db
    .selectFrom('payment_rollups')
    .select(['subject', 'payer', 'self', 'provider', 'payments', 'nominal_parts'])
    .where('dim', '=', dim)
    .where('day', '>=', since / DAY_SECONDS)
    .where('day', '<', until / DAY_SECONDS);
  if (req.protocol) q = q.where('protocol', '=', req.protocol);
  const [rows, covered] = await Promise.all([q.execute(), coveredWindow(store.db, since, until)]);
  const nominalOf = nominalReader(store.tokenList);
  const tallies = new Map<string, Tally>();
  for (const r of rows) {
    const id = req.kind === 'payers' ? r.payer : r.subject;
    let t = tallies.get(id);
    if (!t) {
      t = { id, provider: r.provider, payments: 0, self: 0, nominal: null, payers: new Map() };
      tallies.set(id, t);
    }
    const n = Number(r.payments);
    const v = nominalOf(r.nominal_parts);
    t.payments += n;
    t.nominal = add(t.nominal, v);
    if (Number(r.self) === 1) t.self += n;
    else {
      // For a payer row, its payees stand where a subject's payers do: one payer (itself) with its whole nominal.
      const p = req.kind === 'payers' ? id : r.payer;
      t.payers.set(p, t.payers.has(p) ? add(t.payers.get(p)!, v) : v);
    }
    t.provider ??= r.provider;
  }
  const metric = (t: Tally) => (req.by === 'payments' ? t.payments : req.by === 'distinct_payers' ? t.payers.size : 0);
  const sorted = [...tallies.values()].sort(
    (a, b) => metric(b) - metric(a) || cmpExact(b.nominal, a.nominal) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const page = sorted.slice(req.offset, req.offset + req.limit).map((t, i): RankingRow => {
    let top: ExactDecimal | null = null;
    for (const v of t.payers.values()) if (cmpExact(v, top) > 0) top = v;
    const nominal = t.nominal;
    const row: RankingRow = {
      rank: req.offset + i + 1,
      ...(req.kind === 'services' ? { service_id: t.id, provider: t.provider } : { address: t.id }),
      payments: t.payments,
      distinct_payers: t.payers.size,
      nominal: nominal && formatExact(nominal),
      top_payer_share: nominal && top && nominal.n > 0n ? share(top, nominal) : null,
      self_payments: t.self,
    };
    return row;
  });
  return { since, until, ...covered, by: req.by, total: sorted.length, limit: req.limit, offset: req.offset, rows: page };
}
