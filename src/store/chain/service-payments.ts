/**
 * The payments a service or a provider received over a window of whole UTC days, from the per-day payment
 * rollups' service rows (./rollups.ts): counts per attribution method and protocol, distinct payers and MPP
 * clients, nominal received (listed USD) and the collected part of the window. Remembered at the chain version.
 */
import { addExact, cmpExact, formatExact, parseDecimal, type ExactDecimal } from '../../domain/money.js';
import type { TokenList } from '../../domain/token-list.js';
import type { Store } from '../store.js';
import { coveredWindow, type CoveredWindow } from './covered-window.js';
import { currentStats } from './query.js';
import { dayWindow, share } from './rankings.js';
import { amountOf } from './rollup-amounts.js';
import { DAY_SECONDS } from './rollups.js';

/** A protocol's payments: count and nominal (listed USD, exact decimal string, or null when none is known). */
export interface ProtocolTally {
  count: number;
  nominal: string | null;
}

/** The `payments` member of a provider and of each of its services (docs/payments.md). */
export interface Payments extends CoveredWindow {
  since: number;
  until: number;
  count: number;
  by_method: { memo_and_pay_to: number; memo: number; pay_to: number };
  by_protocol: { mpp: ProtocolTally; x402: ProtocolTally; unknown: ProtocolTally };
  distinct_payers: number;
  distinct_clients: number;
  nominal: string | null;
  first_time: number | null;
  last_time: number | null;
  top_payer_share: number | null;
  self_payments: number;
}

/** Whose payments: one service (by service_id) or every service of a provider (by domain). */
export type PaymentsOf = { service_id: string } | { provider: string };

const add = (a: ExactDecimal | null, b: ExactDecimal | null) => (a === null ? b : b === null ? a : addExact(a, b));

/** The listed-USD nominal of stored NominalParts JSON text (unlisted contracts left out), or null when none is listed. */
export function nominalOfParts(text: string | null, list: TokenList): ExactDecimal | null {
  if (text === null) return null;
  let v: ExactDecimal | null = null;
  for (const [c, amount] of JSON.parse(text) as [string, string][]) if (list.tokens.has(c)) v = add(v, parseDecimal(amount));
  return v;
}

/**
 * The payments of `of` over [since, until) (UTC Unix seconds, widened to whole UTC days), remembered per chain
 * version and token list.
 */
export async function servicePayments(store: Store, of: PaymentsOf, since: number, until: number): Promise<Payments> {
  const stats = await currentStats(store);
  // Keyed on the whole-day window the answer is computed over: a default `until` of "now" moves every second.
  const day = dayWindow(since, until);
  const key = JSON.stringify(['payments', of, day.since, day.until, store.tokenList.id]);
  return store.cache.payments.get(stats, key, () => sumServicePayments(store, of, day.since, day.until)) as Promise<Payments>;
}

/** servicePayments without the cache. */
export async function sumServicePayments(store: Store, of: PaymentsOf, since0: number, until0: number): Promise<Payments> {
  const { since, until } = dayWindow(since0, until0);
  let q = store.db
    .selectFrom('payment_rollups')
    .select([
      'payer',
      'self',
      'protocol',
      'method',
      'client',
      'contract',
      'payments',
      'whole',
      'frac_hi',
      'frac_lo',
      'big',
      'first_time',
      'last_time',
    ])
    .where('day', '>=', since / DAY_SECONDS)
    .where('day', '<', until / DAY_SECONDS);
  q =
    'service_id' in of
      ? q.where('dim', '=', 'service').where('subject', '=', of.service_id)
      : q.where('provider', '=', of.provider).where('dim', '=', 'service');
  const [rows, covered] = await Promise.all([q.execute(), coveredWindow(store.db, since, until)]);
  const list = store.tokenList;
  const byMethod = { memo_and_pay_to: 0, memo: 0, pay_to: 0 };
  const byProtocol = {
    mpp: { count: 0, nominal: null as ExactDecimal | null },
    x402: { count: 0, nominal: null as ExactDecimal | null },
    unknown: { count: 0, nominal: null as ExactDecimal | null },
  };
  const payers = new Map<string, ExactDecimal | null>();
  const clients = new Set<string>();
  let count = 0;
  let self = 0;
  let nominal: ExactDecimal | null = null;
  let first: number | null = null;
  let last: number | null = null;
  for (const r of rows) {
    const n = Number(r.payments);
    const v = list.tokens.has(r.contract) ? amountOf(r.whole, r.frac_hi, r.frac_lo, [r.big]) : null;
    count += n;
    nominal = add(nominal, v);
    if (r.method in byMethod) byMethod[r.method as keyof typeof byMethod] += n;
    const p = byProtocol[r.protocol as keyof typeof byProtocol] ?? byProtocol.unknown;
    p.count += n;
    p.nominal = add(p.nominal, v);
    if (Number(r.self) === 1) self += n;
    else payers.set(r.payer, payers.has(r.payer) ? add(payers.get(r.payer)!, v) : v);
    if (r.client) clients.add(r.client);
    first = first === null ? Number(r.first_time) : Math.min(first, Number(r.first_time));
    last = last === null ? Number(r.last_time) : Math.max(last, Number(r.last_time));
  }
  let top: ExactDecimal | null = null;
  for (const v of payers.values()) if (v && (!top || cmpExact(v, top) > 0)) top = v;
  const tally = (t: { count: number; nominal: ExactDecimal | null }): ProtocolTally => ({
    count: t.count,
    nominal: t.nominal && formatExact(t.nominal),
  });
  return {
    since,
    until,
    ...covered,
    count,
    by_method: byMethod,
    by_protocol: { mpp: tally(byProtocol.mpp), x402: tally(byProtocol.x402), unknown: tally(byProtocol.unknown) },
    distinct_payers: payers.size,
    distinct_clients: clients.size,
    nominal: nominal && formatExact(nominal),
    first_time: first,
    last_time: last,
    top_payer_share: nominal && top && nominal.n > 0n ? share(top, nominal) : null,
    self_payments: self,
  };
}
