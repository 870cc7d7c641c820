/**
 * Who pays a payTo (the trust check's payer analysis, docs/trust-check.md "Who pays"): over a window of whole UTC
 * days, its distinct payers in listed tokens, the largest payer's share of the listed-USD nominal, its
 * self-payments, and the funding links of its payers (whose first listed-token inflow of the window came from the
 * payTo, from the payTo's own funder, or from one common funder of most payers; one hop). Figures are over the
 * collected part of the window (`covered_since`/`covered_until`): a gap is unknown, never zero activity.
 */
import { addExact, cmpExact, formatExact, type ExactDecimal } from '../domain/money.js';
import type { Store } from '../store/db.js';
import { coveredWindow } from '../store/chain/covered-window.js';
import { dayWindow, share } from '../store/chain/rankings.js';
import { servicePayments } from '../store/chain/service-payments.js';
import { firstInflows, PAYERS_EXAMINED_MAX, type PayerSum, paymentTx, paymentsInto } from '../store/trust/payers.js';
import type { FundingKind, FundingLink, PayerAnalysis, ServicePayers } from './types.js';

/** Length of the analysed window, days, ending at the check. */
export const PAYER_WINDOW_DAYS = 30;
/** Most funding links the evidence lists with their transaction (the largest payers first); all are counted. */
export const FUNDING_LINKS_CITED = 20;
/** A common funder must be the first funder of more than half of the examined payers, and of at least this many. */
export const COMMON_FUNDER_MIN_PAYERS = 3;

const addOrNull = (a: ExactDecimal | null, b: ExactDecimal | null) => (a === null ? b : b === null ? a : addExact(a, b));

/** One payer's listed-token payments into the payTo. */
interface Tally {
  payer: string;
  payments: number;
  nominal: ExactDecimal;
  first: number;
}

/** The payers with a listed nominal (the self-payments apart). */
function tallyRows(rows: PayerSum[]): { payers: Map<string, Tally>; self: Tally | null } {
  const payers = new Map<string, Tally>();
  let self: Tally | null = null;
  for (const r of rows) {
    if (r.nominal === null || r.nominal.n === 0n) continue;
    const t: Tally = { payer: r.payer, payments: r.payments, nominal: r.nominal, first: r.first_time };
    if (r.self === 1) self = t;
    else payers.set(r.payer, t);
  }
  return { payers, self };
}

/** The payer of the earliest listed inflow among `payers` (ties: the lowest address), or null. */
function firstFunder(payers: Iterable<Tally>): { address: string; time: number } | null {
  let best: { address: string; time: number } | null = null;
  for (const t of payers)
    if (!best || t.first < best.time || (t.first === best.time && t.payer < best.address)) best = { address: t.payer, time: t.first };
  return best;
}

/** What the analysis reads besides the store. */
export interface PayerAnalysisOptions {
  /** Check time; default now. */
  now?: Date;
  /** The listed service the payTo is attributed to (a URL check), whose payer figures are added. */
  serviceId?: string | null;
}

/**
 * Analyses who paid `payTo` over the PAYER_WINDOW_DAYS before the check (widened to whole UTC days) from the
 * per-day payment rollups (primary legs: a payment reaching the payTo only as a secondary leg of a transaction is
 * not counted here). Only listed tokens count. Reads one rollup range for the payTo, the first inflows of at most
 * PAYERS_EXAMINED_MAX payers (one ranked statement per 500 of them), and at most FUNDING_LINKS_CITED + 2 transaction hashes.
 * @param payTo 0x address, any case (lower-cased)
 * @throws the store's error when it cannot answer (→ 503, not metered)
 */
export async function analysePayers(store: Store, payTo: string, o: PayerAnalysisOptions = {}): Promise<PayerAnalysis> {
  const now = o.now ?? new Date();
  const address = payTo.toLowerCase();
  const nowUnix = Math.floor(now.getTime() / 1000);
  const { since, until } = dayWindow(nowUnix - PAYER_WINDOW_DAYS * 86_400, nowUnix);
  const listed = [...store.tokenList.tokens.keys()];
  const [rows, covered, service] = await Promise.all([
    paymentsInto(store, address, since, until, listed),
    coveredWindow(store.db, since, until),
    o.serviceId ? servicePayers(store, o.serviceId, since, until) : Promise.resolve(null),
  ]);
  const { payers, self } = tallyRows(rows);
  let nominal: ExactDecimal | null = self?.nominal ?? null;
  let top: Tally | null = null;
  for (const t of payers.values()) {
    nominal = addOrNull(nominal, t.nominal);
    if (!top) top = t;
    else {
      const c = cmpExact(t.nominal, top.nominal);
      if (c > 0 || (c === 0 && t.payer < top.payer)) top = t;
    }
  }
  // Which payers to examine is ranked by a float of the nominal (exact comparisons of thousands of BigInt decimals
  // cost more than the reads); the figures themselves stay exact.
  const ranked = [...payers.values()]
    .map((t) => ({ t, key: Number(t.nominal.n) / 10 ** t.nominal.scale }))
    .sort((a, b) => b.key - a.key || (a.t.payer < b.t.payer ? -1 : 1))
    .map((x) => x.t);
  const examined = ranked.slice(0, PAYERS_EXAMINED_MAX);
  const funder0 = firstFunder(payers.values());
  const firstOf = await firstInflows(
    store,
    examined.map((t) => t.payer),
    since,
    until,
    listed,
  );
  const funderCounts = new Map<string, number>();
  for (const f of firstOf.values()) funderCounts.set(f.address, (funderCounts.get(f.address) ?? 0) + 1);
  let common: { address: string; payers: number } | null = null;
  for (const [a, n] of funderCounts)
    if (n * 2 > examined.length && n >= COMMON_FUNDER_MIN_PAYERS && a !== address && a !== funder0?.address)
      common = { address: a, payers: n };
  const links: (Omit<FundingLink, 'tx' | 'nominal'> & { value: ExactDecimal })[] = [];
  let examinedNominal: ExactDecimal | null = self?.nominal ?? null;
  for (const t of examined) examinedNominal = addOrNull(examinedNominal, t.nominal);
  let selfFunded: ExactDecimal | null = self?.nominal ?? null;
  let selfFundedPayers = 0;
  for (const t of examined) {
    const f = firstOf.get(t.payer);
    if (!f) continue;
    const kind: FundingKind | null =
      f.address === address
        ? 'pay_to'
        : f.address === funder0?.address
          ? 'pay_to_funder'
          : f.address === common?.address
            ? 'common_funder'
            : null;
    if (!kind) continue;
    links.push({ payer: t.payer, funder: f.address, kind, time: f.time, value: t.nominal });
    if (kind !== 'common_funder') {
      selfFunded = addOrNull(selfFunded, t.nominal);
      selfFundedPayers++;
    }
  }
  const cited = links.slice(0, FUNDING_LINKS_CITED);
  const contracts = listed;
  const [funderTx, topTx, ...linkTx] = await Promise.all([
    funder0 ? paymentTx(store, address, funder0.address, funder0.time, contracts) : Promise.resolve(null),
    top ? paymentTx(store, address, top.payer, top.first, contracts) : Promise.resolve(null),
    ...cited.map((l) => paymentTx(store, l.payer, l.funder, l.time, contracts)),
  ]);
  const positive = nominal !== null && nominal.n > 0n;
  return {
    pay_to: address,
    since,
    until,
    ...covered,
    payments: (self?.payments ?? 0) + examinedPayments(payers),
    nominal: nominal && formatExact(nominal),
    distinct_payers: payers.size,
    top_payer: top?.payer ?? null,
    top_payer_payments: top?.payments ?? 0,
    top_payer_tx: topTx,
    top_payer_share: positive && top ? share(top.nominal, nominal!) : null,
    self_payments: self?.payments ?? 0,
    funder: funder0 && { ...funder0, tx: funderTx },
    payers_examined: examined.length,
    capped: ranked.length > examined.length,
    examined_share: positive ? share(examinedNominal ?? { n: 0n, scale: 0 }, nominal!) : null,
    common_funder: common,
    funding_links: cited.map(({ value, ...l }, i) => ({ ...l, tx: linkTx[i], nominal: formatExact(value) })),
    funding_links_total: links.length,
    self_funded_payers: selfFundedPayers,
    self_funded_share: positive ? share(selfFunded ?? { n: 0n, scale: 0 }, nominal!) : null,
    service,
  };
}

function examinedPayments(payers: Map<string, Tally>): number {
  let n = 0;
  for (const t of payers.values()) n += t.payments;
  return n;
}

/** The payer figures of a service over the same window (its `payments` member, remembered per chain version). */
async function servicePayers(store: Store, serviceId: string, since: number, until: number): Promise<ServicePayers> {
  const p = await servicePayments(store, { service_id: serviceId }, since, until);
  return {
    service_id: serviceId,
    count: p.count,
    distinct_payers: p.distinct_payers,
    top_payer_share: p.top_payer_share,
    self_payments: p.self_payments,
    nominal: p.nominal,
  };
}
