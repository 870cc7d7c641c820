/**
 * The payments analytics every face calls (docs/payments.md): rankings of services, recipients and payers, and a
 * service's or provider's payments. Defaults are applied here, once, for the HTTP routes and the MCP tools alike.
 */
import { computeRanking, type RankingAnswer, type RankingKind, type RankingOrder } from '../store/chain/rankings.js';
import type { RollupProtocol } from '../store/chain/rollups.js';
import type { Store } from '../store/store.js';
import { servicePayments, type Payments, type PaymentsOf } from '../store/chain/service-payments.js';
import { getProvider } from '../intel/queries.js';
import { PAYMENTS_DEFAULT_DAYS } from './payments-schemas.js';
import { InvalidInput } from '../domain/errors.js';
import { sinceNotBeforeUntil } from '../domain/query-params.js';
import type { Exclusion } from '../domain/filters.js';

/** The window of a payments query: until defaults to now, since to until minus 30 days (UTC Unix seconds). */
export function paymentsWindow(q: { since?: number; until?: number }, nowSeconds = Math.floor(Date.now() / 1000)) {
  const until = q.until ?? nowSeconds;
  const since = q.since ?? until - PAYMENTS_DEFAULT_DAYS * 86_400;
  if (since >= until) throw new InvalidInput(`invalid query parameter 'since': ${sinceNotBeforeUntil(since, until)}`);
  return { since, until };
}

/**
 * GET /api/rankings/{kind}: one page of a ranking over whole UTC days (store/chain/rankings.ts).
 * @throws InvalidInput naming `since` when the defaulted window is empty
 */
export function rankings(
  store: Store,
  kind: RankingKind,
  q: { since?: number; until?: number; by: RankingOrder; protocol?: RollupProtocol; limit: number; offset: number; exclude?: Exclusion[] },
  nowSeconds?: number,
): Promise<RankingAnswer> {
  const { since, until } = paymentsWindow(q, nowSeconds);
  return computeRanking(store, {
    kind,
    since,
    until,
    by: q.by,
    protocol: q.protocol,
    limit: q.limit,
    offset: q.offset,
    exclude: q.exclude,
  });
}

/**
 * GET /api/payments: the payments of one service or of every service of one provider over the window (default
 * the last 30 days), widened to whole UTC days.
 */
export async function payments(
  store: Store,
  q: { service_id?: string; provider?: string; since?: number; until?: number },
  nowSeconds?: number,
): Promise<{ service_id: string | null; provider: string | null; payments: Payments }> {
  const { since, until } = paymentsWindow(q, nowSeconds);
  const of: PaymentsOf = q.service_id !== undefined ? { service_id: q.service_id } : { provider: q.provider! };
  return { service_id: q.service_id ?? null, provider: q.provider ?? null, payments: await servicePayments(store, of, since, until) };
}

/**
 * GET /api/providers/{domain}: the provider profile (src/intel/queries.ts getProvider) with `payments` on the
 * provider and on each of its services over the window (default the last 30 days).
 * @throws NotFound when the provider is not listed; Unavailable before the first collection run
 */
export async function providerProfile(
  store: Store,
  domain: string,
  q: { since?: number; until?: number },
  o: Parameters<typeof getProvider>[2],
  nowSeconds?: number,
) {
  const { since, until } = paymentsWindow(q, nowSeconds);
  const profile = await getProvider(store, domain, o);
  const [own, services] = await Promise.all([
    servicePayments(store, { provider: profile.provider.domain }, since, until),
    Promise.all(
      profile.provider.services.map(async (s) => ({
        ...s,
        payments: await servicePayments(store, { service_id: s.service_id }, since, until),
      })),
    ),
  ]);
  return { ...profile, provider: { ...profile.provider, payments: own, services } };
}
