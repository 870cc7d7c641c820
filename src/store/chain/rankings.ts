/**
 * Rankings of services, recipients and payers over a window of whole UTC days, summed in SQL from the per-(day,
 * subject) payment rollups (./rollups.ts) and remembered at the chain version like the other aggregates (../cache.ts).
 */
import { sql, type RawBuilder } from 'kysely';
import { InvalidInput } from '../../domain/errors.js';
import { exclusionRule, type Exclusion } from '../../domain/filters.js';
import { groupBy } from '../../domain/group-by.js';
import { selfFunded } from './first-fundings.js';
import { addExact, cmpExact, formatExact, parseDecimal, type ExactDecimal } from '../../domain/money.js';
import type { Store } from '../store.js';
import { coveredWindow, type CoveredWindow } from './covered-window.js';
import { currentStats, readStats } from './query.js';
import { amountOf, listedContract, listedSums } from './rollup-amounts.js';
import { DAY_SECONDS, type RollupProtocol, WEEK_DAYS } from './rollups.js';
import { largestPayerSums, pairList } from './payer-pairs.js';

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
  /** Payments left out (absent or empty: none); self_funded is refused for services (see rollupSources). */
  exclude?: Exclusion[];
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
  /** Which payments were left out, in words (only when `exclude` was given). */
  value_method?: string;
  rows: RankingRow[];
}

/** [since, until) widened outward to whole UTC days (the rollups' unit). */
export function dayWindow(since: number, until: number): { since: number; until: number } {
  return { since: Math.floor(since / DAY_SECONDS) * DAY_SECONDS, until: Math.ceil(until / DAY_SECONDS) * DAY_SECONDS };
}

/**
 * The ranking of `req` at the current chain version (remembered in the `payments` region).
 * @throws the store's errors (StoreUnavailable when it cannot answer)
 */
export async function computeRanking(store: Store, req: RankingRequest): Promise<RankingAnswer> {
  const stats = await currentStats(store);
  // Keyed on the whole-day window the answer is computed over: a default `until` of "now" moves every second.
  const { since, until } = dayWindow(req.since, req.until);
  const key = JSON.stringify([
    'ranking',
    req.kind,
    since,
    until,
    req.by,
    req.protocol ?? null,
    req.limit,
    req.offset,
    store.tokenList.id,
    req.exclude?.length ? req.exclude : null,
  ]);
  return store.cache.payments.get(stats, key, async () => ({
    ...(await rankRollups(store, { ...req, since, until })),
    as_of: stats.updatedAt ?? new Date().toISOString(),
  })) as Promise<RankingAnswer>;
}

interface Tally {
  id: string;
  provider: string | null;
  payments: number;
  self: number;
  nominal: ExactDecimal | null;
  /** Nominal of the payments to others (a payer row's top payer share: the payer itself). */
  others: ExactDecimal | null;
  /** Payments to others (payer rows), or distinct payers other than the subject. */
  distinct: number;
}

const add = (a: ExactDecimal | null, b: ExactDecimal | null) => (a === null ? b : b === null ? a : addExact(a, b));

/** a / b as a number in 0..1 (b > 0), from exact decimals: 9 significant digits are plenty for a share. */
export function share(a: ExactDecimal, b: ExactDecimal): number {
  const scale = Math.max(a.scale, b.scale);
  const an = a.n * 10n ** BigInt(scale - a.scale);
  const bn = b.n * 10n ** BigInt(scale - b.scale);
  return Number((an * 1_000_000_000n) / bn) / 1e9;
}

type Sums = { w: unknown; h: unknown; l: unknown; has_big: unknown };
const sumsOf = (r: Sums, big: (string | null)[] = []) => amountOf(r.w as string | null, r.h as string | null, r.l as string | null, big);

/** Milliseconds a ranking spent per part (bench/payments.ts): parts read at once overlap on PostgreSQL. */
export interface RankingSpent {
  window_sums: number;
  distinct_payers: number;
  covered_window: number;
  top_payer: number;
}

/** Resolves `p`, adding the milliseconds from now until it settles to `spent[part]` (when given). */
async function timedPart<T>(spent: RankingSpent | undefined, part: keyof RankingSpent, p: Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await p;
  } finally {
    if (spent) spent[part] += performance.now() - t0;
  }
}

/**
 * computeRanking without the cache (also what the benchmark times uncached).
 * @param spent when given, milliseconds per part are added to it
 */
export async function rankRollups(store: Store, req: RankingRequest, spent?: RankingSpent): Promise<Omit<RankingAnswer, 'as_of'>> {
  const { since, until } = dayWindow(req.since, req.until);
  const [from, to] = [since / DAY_SECONDS, until / DAY_SECONDS];
  const dim = req.kind === 'services' ? 'service' : req.kind === 'recipients' ? 'recipient' : 'payer';
  const src = rollupSources(req, [...store.tokenList.tokens.keys()]);
  const [ranked, covered] = await Promise.all([
    (async () => {
      const scope: RankingScope = { store, req, dim, from, to, pastNewest: await reachesPastNewest(store, to), src, spent };
      return (await pageByDistinctPayers(scope)) ?? rankAll(scope);
    })(),
    timedPart(spent, 'covered_window', coveredWindow(store.db, since, until)),
  ]);
  const tops =
    req.kind === 'payers'
      ? null
      : await timedPart(
          spent,
          'top_payer',
          topPayers(
            store,
            dim,
            ranked.slice.map((t) => t.id),
            from,
            to,
            req.protocol,
            src.fine,
          ),
        );
  const page = ranked.slice.map((t, i): RankingRow => {
    const top = tops ? (tops.get(t.id) ?? null) : t.others;
    const nominal = t.nominal;
    return {
      rank: req.offset + i + 1,
      ...(req.kind === 'services' ? { service_id: t.id, provider: t.provider } : { address: t.id }),
      payments: t.payments,
      distinct_payers: t.distinct,
      nominal: nominal && formatExact(nominal),
      top_payer_share: nominal && top && nominal.n > 0n ? share(top, nominal) : null,
      self_payments: t.self,
    };
  });
  const excluded = exclusionRule(req.exclude);
  return {
    since,
    until,
    ...covered,
    by: req.by,
    total: ranked.total,
    limit: req.limit,
    offset: req.offset,
    ...(excluded ? { value_method: `Sums of the per-day payment rollups.${excluded}` } : {}),
    rows: page,
  };
}

/** A ranking's page before its rows are shaped: the subjects ranked in all, and the page's tallies in order. */
interface RankedPage {
  total: number;
  slice: Tally[];
}

/** Ranking order: the metric descending, then nominal descending, then id ascending. */
function byRank(req: RankingRequest): (a: Tally, b: Tally) => number {
  const metric = (t: Tally) => (req.by === 'payments' ? t.payments : req.by === 'distinct_payers' ? t.distinct : 0);
  return (a, b) => metric(b) - metric(a) || cmpExact(b.nominal, a.nominal) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Per subject, the window's groups summed: payments, self-payments and nominal (listed contracts only), with its
 * distinct payers from `distinct` when given.
 */
function tallyGroups(
  groups: readonly GroupWindow[],
  listed: ReadonlyMap<string, unknown>,
  kind: RankingKind,
  distinct: ReadonlyMap<string, number> | null,
): Map<string, Tally> {
  const tallies = new Map<string, Tally>();
  for (const g of groups) {
    const n = g.payments;
    const v = g.contract === null || listed.has(g.contract) ? g.amount : null;
    if (n === 0 && (v === null || v.n === 0n)) continue;
    let t = tallies.get(g.subject);
    if (!t) {
      t = { id: g.subject, provider: null, payments: 0, self: 0, nominal: null, others: null, distinct: 0 };
      tallies.set(g.subject, t);
    }
    t.payments += n;
    t.nominal = add(t.nominal, v);
    if (g.self === 1) t.self += n;
    else {
      t.others = add(t.others, v);
      if (kind === 'payers' && n > 0) t.distinct = 1;
    }
    t.provider ??= g.provider;
  }
  if (distinct)
    for (const [id, n] of distinct) {
      const t = tallies.get(id);
      if (t) t.distinct = n;
    }
  return tallies;
}

/** What computing one ranking reads: the request, its rollup dimension, its days [from, to) and its row sources. */
interface RankingScope {
  store: Store;
  req: RankingRequest;
  dim: string;
  from: number;
  to: number;
  /** Whether day `to` is after the newest stored block's (reachesPastNewest), read once per ranking. */
  pastNewest: boolean;
  src: RollupSources;
  spent: RankingSpent | undefined;
}

/**
 * True when day `to` is after the newest stored block's day, so a window ending there holds every stored payment
 * from its start on. Read now, not the reused counters: a payment written since on day `to` or later would count.
 */
async function reachesPastNewest(store: Store, to: number): Promise<boolean> {
  const { newestBlockTime } = await readStats(store.db);
  return newestBlockTime === null || Math.floor(newestBlockTime / DAY_SECONDS) < to;
}

/** Every subject of the window summed and sorted: any ranking, exclusion or window (what pageByDistinctPayers declines). */
async function rankAll(scope: RankingScope): Promise<RankedPage> {
  const { store, req, dim, from, to, pastNewest, src, spent } = scope;
  const exclusion = req.exclude?.length ? exclusionGroups(store, req, dim, from, to, src) : null;
  const [groups, distinct] = await Promise.all([
    timedPart(spent, 'window_sums', exclusion ?? windowGroups(store, dim, req.protocol ?? '*', from, to, pastNewest)),
    req.kind === 'payers' ? null : timedPart(spent, 'distinct_payers', distinctPayers(scope)),
  ]);
  const tallies = tallyGroups(groups, store.tokenList.tokens, req.kind, distinct);
  const sorted = [...tallies.values()].filter((t) => t.payments > 0).sort(byRank(req));
  return { total: sorted.length, slice: sorted.slice(req.offset, req.offset + req.limit) };
}

/**
 * Subjects pageByDistinctPayers sums exactly at most: past it (a page deep in a long tail of ties) every subject
 * is summed, as rankAll does.
 */
const PAGE_SUBJECTS_MAX = 2_000;

/**
 * A services or recipients ranking by distinct payers, over a window reaching past the newest block with nothing
 * excluded, summing only the subjects its page can hold. The order's first key comes from the payers' latest days
 * (a range of payment_last_weeks and one of payment_last_days); the subjects of the page's first and last distinct
 * counts and all between them are summed exactly (their order by nominal and id), and so are the subjects whose
 * window holds only self-payments (distinct count 0: the running totals say which; summing says whether any payment
 * is left).
 * `total` counts the subjects with a distinct payer plus those with self-payments only, as rankAll's tally does.
 * @returns null when the ranking or window is not of that kind, or the subjects to sum exceed PAGE_SUBJECTS_MAX
 */
async function pageByDistinctPayers({ store, req, dim, from, to, pastNewest, spent }: RankingScope): Promise<RankedPage | null> {
  if (req.by !== 'distinct_payers' || req.kind === 'payers' || req.exclude?.length || !pastNewest) return null;
  const protocol = req.protocol ?? '*';
  const [distinct, selfOnly] = await Promise.all([
    timedPart(spent, 'distinct_payers', latestDayPayers(store, dim, protocol, from)),
    selfPaidSince(store, dim, protocol, from),
  ]);
  const active = [...distinct].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
  const zero = selfOnly.filter((id) => !((distinct.get(id) ?? 0) > 0));
  const metrics = [...active.map(([, n]) => n), ...zero.map(() => 0)];
  const last = Math.min(req.offset + req.limit, metrics.length) - 1;
  // The page's subjects can be ordered among themselves only with all those of equal distinct counts.
  const [high, low] = req.offset <= last ? [metrics[req.offset], metrics[last]] : [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
  const tied = active.filter(([, n]) => n >= low && n <= high).map(([id]) => id);
  const subjects = [...new Set([...tied, ...zero])];
  if (subjects.length > PAGE_SUBJECTS_MAX) return null;
  const groups = subjects.length ? await timedPart(spent, 'window_sums', windowGroups(store, dim, protocol, from, to, true, subjects)) : [];
  const tallies = tallyGroups(groups, store.tokenList.tokens, req.kind, distinct);
  const before = active.filter(([, n]) => n > high).length;
  const ranked = subjects.flatMap((id) => tallies.get(id) ?? []).filter((t) => t.payments > 0 && t.distinct >= low && t.distinct <= high);
  const zeroLeft = zero.filter((id) => (tallies.get(id)?.payments ?? 0) > 0).length;
  return {
    total: active.length + zeroLeft,
    slice: ranked.sort(byRank(req)).slice(req.offset - before, req.offset - before + req.limit),
  };
}

/**
 * Per subject, the payers other than it whose latest payment under `protocol` ('*': any) is on day `from` or later:
 * the whole weeks from `from` on in payment_last_weeks, and the days of the partial week before them in
 * payment_last_days (./rollups.ts).
 */
async function latestDayPayers(store: Store, dim: string, protocol: string, from: number): Promise<Map<string, number>> {
  const week = Math.ceil(from / WEEK_DAYS);
  const { rows } = await sql<{ subject: string; n: number | string }>`select subject, sum(payers) as n from (
      select subject, payers from payment_last_weeks where dim = ${dim} and protocol = ${protocol} and week >= ${week}
      union all
      select subject, payers from payment_last_days where dim = ${dim} and protocol = ${protocol}
        and day >= ${from} and day < ${week * WEEK_DAYS}
    ) latest group by subject`.execute(store.db);
  return new Map(rows.map((r) => [r.subject, Number(r.n)]));
}

/** The subjects with a self-payment under `protocol` ('*': any) on a day of the running totals from `from` on. */
async function selfPaidSince(store: Store, dim: string, protocol: string, from: number): Promise<string[]> {
  const { rows } = await sql<{ subject: string }>`select distinct subject from payment_totals
    where dim = ${dim} and protocol = ${protocol} and self = 1 and last_day >= ${from}`.execute(store.db);
  return rows.map((r) => r.subject);
}

/** Where a ranking reads its per-day and per-payer rollup rows (tables, or the rows left after an exclusion). */
interface RollupSources {
  /** Rows shaped as payment_days. */
  days: RawBuilder<unknown>;
  /** Rows shaped as payment_rollups. */
  fine: RawBuilder<unknown>;
  /** True when rows were left out (self_funded): payment_last_days no longer holds the distinct payers. */
  filtered: boolean;
}

/**
 * The rollup rows a ranking of `req` sums: the tables themselves, or with exclude=self_funded the per-payer rows of
 * dimension recipient that are not self-funded (./first-fundings.ts; their payer and recipient are both in the key),
 * read as payment_days rows of dimension recipient or payer. Self-payments are left out by the callers' `self = 0`.
 * @throws InvalidInput naming `exclude` for self_funded on services: a service's rollups do not keep each payment's recipient
 */
function rollupSources(req: RankingRequest, listed: readonly string[]): RollupSources {
  if (!req.exclude?.includes('self_funded'))
    return { days: sql.table('payment_days'), fine: sql.table('payment_rollups'), filtered: false };
  if (req.kind === 'services')
    throw new InvalidInput(
      "invalid query parameter 'exclude': self_funded applies to the recipients and payers rankings only (a service's rollups do not keep each payment's recipient)",
    );
  const kept = sql`from payment_rollups where dim = 'recipient' and not (${selfFunded(sql.ref('payer'), sql.ref('subject'), listed)})`;
  const subject = req.kind === 'payers' ? sql`'payer' as dim, payer as subject` : sql`dim, subject`;
  return {
    days: sql`(select ${subject}, day, protocol, self, contract, provider, payments, whole, frac_hi, frac_lo, big ${kept}) as kept_days`,
    fine: sql`(select * ${kept}) as kept_rollups`,
    filtered: true,
  };
}

/** One running group's sums over a window (./rollup-running.ts). */
interface GroupWindow {
  subject: string;
  self: number;
  /** null: `amount` is already the listed contracts' sum (exclusionGroups). */
  contract: string | null;
  provider: string | null;
  payments: number;
  /** Exact amount (integer columns and big part), or null when the group had no amount columns in the window. */
  amount: ExactDecimal | null;
}

/**
 * With `exclude`: per (subject, self) sums over days [from, to) of the rollup rows left after the exclusion (the
 * per-day sums, not the running totals, which hold every payment), as groups whose amount is the listed nominal.
 */
async function exclusionGroups(
  store: Store,
  req: RankingRequest,
  dim: string,
  from: number,
  to: number,
  src: RollupSources,
): Promise<GroupWindow[]> {
  const listed = [...store.tokenList.tokens.keys()];
  const protocol = req.protocol ? sql`and protocol = ${req.protocol}` : sql``;
  const noSelf = req.exclude?.includes('self_payment') ? sql`and self = 0` : sql``;
  const days = await sql<
    { subject: string; self: number | string; payments: number | string; provider: string | null } & Sums
  >`select subject, self,
      sum(payments) as payments, max(provider) as provider, ${sql.join(listedSums(listed))}
      from ${src.days} where dim = ${dim} and day >= ${from} and day < ${to} ${protocol} ${noSelf} group by subject, self`.execute(
    store.db,
  );
  const bigOf = await bigParts(store, 'payment_days', dim, from, to, req.protocol, days.rows, src.days);
  return days.rows.map((r) => ({
    subject: r.subject,
    self: Number(r.self),
    contract: null,
    provider: r.provider,
    payments: Number(r.payments),
    amount: sumsOf(r, bigOf.get(`${r.subject}|${Number(r.self)}`)),
  }));
}

const CUM_COLUMNS = ['cum_payments', 'cum_whole', 'cum_hi', 'cum_lo', 'cum_big'] as const;

/**
 * Every running group of `dim` and `protocol` ('*' for any) with its sums over days [from, to): the cum of its
 * latest row before `to` (its totals when its latest day is before `to`) less the cum of its latest row before
 * `from`, each row found by one index seek per group.
 * @param pastNewest reachesPastNewest(store, to): the totals then stand for the latest row before `to`
 * @param subjects when given, only these subjects' groups (non-empty)
 */
async function windowGroups(
  store: Store,
  dim: string,
  protocol: string,
  from: number,
  to: number,
  pastNewest: boolean,
  subjects?: readonly string[],
): Promise<GroupWindow[]> {
  const same = (a: string) =>
    sql.join(
      ['dim', 'protocol', 'subject', 'self', 'contract'].map((c) => sql`${sql.ref(`${a}.${c}`)} = t.${sql.ref(c)}`),
      sql` and `,
    );
  // One backward index seek per group: PostgreSQL as a lateral subquery (a join on max(day) it hashes whole),
  // SQLite (no lateral) as a join on the max(day) it finds by that seek.
  const latestBefore = (alias: string, day: number) =>
    store.dialect === 'postgres'
      ? sql`left join lateral (select ${sql.join(CUM_COLUMNS.map((c) => sql.ref(c)))} from payment_running r where ${same('r')}
          and r.day < ${day} order by r.day desc limit 1) ${sql.raw(alias)} on true`
      : sql`left join payment_running ${sql.raw(alias)} on ${same(alias)} and ${sql.ref(`${alias}.day`)} = (select max(r.day)
          from payment_running r where ${same('r')} and r.day < ${day})`;
  const cols = (alias: string, as: string) => CUM_COLUMNS.map((c) => sql`${sql.ref(`${alias}.${c}`)} as ${sql.ref(`${as}_${c}`)}`);
  const endCols = pastNewest
    ? [
        sql`t.payments as e_cum_payments`,
        sql`t.whole as e_cum_whole`,
        sql`t.frac_hi as e_cum_hi`,
        sql`t.frac_lo as e_cum_lo`,
        sql`t.big as e_cum_big`,
      ]
    : cols('e', 'e');
  const { rows } = await sql<Record<string, string | number | null>>`select t.subject, t.self, t.contract, t.provider,
      ${sql.join([...endCols, ...cols('s', 's')])}
    from payment_totals t ${pastNewest ? sql`` : latestBefore('e', to)} ${latestBefore('s', from)}
    where t.dim = ${dim} and t.protocol = ${protocol} ${subjects ? sql`and t.subject in (${sql.join(subjects)})` : sql``}`.execute(
    store.db,
  );
  const big = (x: unknown) => (x === null || x === undefined ? null : parseDecimal(String(x)));
  const num = (x: unknown) => BigInt((x as string | number | null) ?? 0);
  return rows.map((r) => {
    const part = (p: 'e' | 's') => ({
      n: num(r[`${p}_cum_whole`]) * E18 + num(r[`${p}_cum_hi`]) * E9 + num(r[`${p}_cum_lo`]),
      big: big(r[`${p}_cum_big`]),
    });
    const [e, s] = [part('e'), part('s')];
    let amount: ExactDecimal | null = { n: e.n - s.n, scale: 18 };
    if (e.big) amount = addExact(amount, e.big);
    if (s.big) amount = addExact(amount, { n: -s.big.n, scale: s.big.scale });
    const hasEnd = r.e_cum_payments !== null && r.e_cum_payments !== undefined;
    return {
      subject: String(r.subject),
      self: Number(r.self),
      contract: String(r.contract),
      provider: r.provider as string | null,
      payments: Number(num(r.e_cum_payments) - num(r.s_cum_payments)),
      amount: hasEnd ? amount : null,
    };
  });
}

const E9 = 1_000_000_000n;
const E18 = E9 * E9;

/**
 * Distinct payers other than the subject, per subject, over days [from, to). When no stored payment is on or after
 * day `to` (the window reaches past the newest block), these are the payers whose latest payment falls on or after
 * `from` (payment_last_weeks and payment_last_days); otherwise counted from the per-payer rollups (exact, slower).
 */
async function distinctPayers({ store, req, dim, from, to, pastNewest, src }: RankingScope): Promise<Map<string, number>> {
  const protocol = req.protocol;
  // After self_funded only the per-payer rows can say which payers are left.
  if (!src.filtered && pastNewest) return latestDayPayers(store, dim, protocol ?? '*', from);
  const { rows } = await sql<{ subject: string; n: number | string }>`select subject, count(distinct payer) as n from ${src.fine}
    where dim = ${dim} and day >= ${from} and day < ${to} and self = 0 and payments > 0
    ${protocol ? sql`and protocol = ${protocol}` : sql``} group by subject`.execute(store.db);
  return new Map(rows.map((r) => [r.subject, Number(r.n)]));
}

/**
 * The `big` amounts (./rollup-amounts.ts) of listed contracts in rows flagged `has_big`, by `subject|self` (or
 * `subject|payer` for the per-payer table): read only when a flagged row exists (amounts too large for the columns).
 */
async function bigParts(
  store: Store,
  table: 'payment_days' | 'payment_rollups',
  dim: string,
  from: number,
  to: number,
  protocol: RollupProtocol | undefined,
  flagged: readonly ({ subject: string } & Sums)[],
  from_: RawBuilder<unknown> = sql.table(table),
): Promise<Map<string, (string | null)[]>> {
  const subjects = [...new Set(flagged.filter((r) => Number(r.has_big) === 1).map((r) => r.subject))];
  if (!subjects.length) return new Map();
  const by = table === 'payment_days' ? sql`self` : sql`payer`;
  const { rows } = await sql<{ subject: string; k: string | number; big: string }>`select subject, ${by} as k, big from ${from_}
    where dim = ${dim} and subject in (${sql.join(subjects)}) and day >= ${from} and day < ${to} and big is not null
    and ${listedContract([...store.tokenList.tokens.keys()])} ${protocol ? sql`and protocol = ${protocol}` : sql``}
    ${table === 'payment_rollups' ? sql`and self = 0` : sql``}`.execute(store.db);
  const grouped = groupBy(rows, (r) => `${r.subject}|${table === 'payment_days' ? Number(r.k) : r.k}`);
  return new Map([...grouped].map(([k, rs]) => [k, rs.map((r) => r.big)]));
}

/**
 * The largest payer's nominal (listed USD, exact) over days [from, to) for each of `subjects` (a ranking page):
 * each subject's payers read largest all-time bound first (./payer-pairs.ts), each summed exactly over the window
 * from the per-payer rollups, until no later payer can be larger.
 */
async function topPayers(
  store: Store,
  dim: string,
  subjects: readonly string[],
  from: number,
  to: number,
  protocol: RollupProtocol | undefined,
  fine: RawBuilder<unknown>,
): Promise<Map<string, ExactDecimal | null>> {
  if (!subjects.length) return new Map();
  const listed = [...store.tokenList.tokens.keys()];
  return largestPayerSums(store.db, dim, subjects, async (pairs) => {
    // k's columns are named unlike the rollups' so the rollup columns stay unqualified (`fine` may be a subquery).
    const { rows } = await sql<{ subject: string; payer: string } & Sums>`${pairList(pairs)}
      select k_subject as subject, k_payer as payer, ${sql.join(listedSums(listed))}
      from k join ${fine} on dim = ${dim} and subject = k_subject and payer = k_payer
      where day >= ${from} and day < ${to} and self = 0 ${protocol ? sql`and protocol = ${protocol}` : sql``}
      group by k_subject, k_payer`.execute(store.db);
    const bigOf = await bigParts(
      store,
      'payment_rollups',
      dim,
      from,
      to,
      protocol,
      rows.filter((r) => Number(r.has_big) === 1),
      fine,
    );
    return new Map(rows.map((r) => [`${r.subject}|${r.payer}`, sumsOf(r, bigOf.get(`${r.subject}|${r.payer}`))]));
  });
}
