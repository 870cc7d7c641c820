/**
 * The provider summary of a search listing (GET /api/providers): a listing is a listing, so per provider it
 * carries counts, networks, protocols, price ranges, the newest dated check and the first few services in short
 * form; the full services, offers and checks are in the profile (GET /api/providers/{domain}).
 */
import type { Offer } from '../domain/intel.js';

/** Services shown per provider in a listing (the rest: services_total, and the profile). */
export const SERVICES_IN_LISTING = 3;

/** What the summary reads of one service listing (the shape serviceListings in ./queries.ts builds). */
export interface ListedService {
  service_id: string;
  method: string;
  url: string;
  tool: string | null;
  description: string | null;
  stale: boolean;
  last_good_check_at: string | null;
  failing_since: string | null;
  latest_check: { checked_at: string; outcome: string; http_status: number | null } | null;
  offers: Offer[];
}

/** One price range: the advertised amounts of one asset on one network, lowest and highest. */
export interface PriceRange {
  network: string | null;
  asset: string | null;
  decimals: number | null;
  /** Exact atomic integer strings. */
  min_amount_atomic: string;
  max_amount_atomic: string;
  /** Exact decimal strings in token units; null when the decimals are unknown. */
  min_amount: string | null;
  max_amount: string | null;
}

/**
 * Summarises the matching services of one provider (in listing order). Price ranges group offers by network and
 * asset and compare atomic amounts as BigInt (offers without an integer atomic amount are left out: unknown is
 * not zero); a provider is stale only when every listed service is. ISO times compare as strings.
 */
export function summarizeProvider(services: ListedService[]) {
  const networks = new Set<string>();
  const protocols = new Set<string>();
  const ranges = new Map<string, PriceRange & { min: bigint; max: bigint }>();
  let latest: ListedService['latest_check'] = null;
  let lastGood: string | null = null;
  for (const s of services) {
    if (s.latest_check && (!latest || s.latest_check.checked_at > latest.checked_at)) latest = s.latest_check;
    if (s.last_good_check_at && (!lastGood || s.last_good_check_at > lastGood)) lastGood = s.last_good_check_at;
    for (const o of s.offers) {
      if (o.network) networks.add(o.network);
      protocols.add(o.protocol);
      if (!o.amount_atomic || !/^\d+$/.test(o.amount_atomic)) continue;
      const v = BigInt(o.amount_atomic);
      const key = JSON.stringify([o.network, o.asset]);
      const r = ranges.get(key);
      const decimal = o.amount;
      if (!r) {
        ranges.set(key, {
          network: o.network,
          asset: o.asset,
          decimals: o.decimals,
          min_amount_atomic: o.amount_atomic,
          max_amount_atomic: o.amount_atomic,
          min_amount: decimal,
          max_amount: decimal,
          min: v,
          max: v,
        });
        continue;
      }
      if (v < r.min) Object.assign(r, { min: v, min_amount_atomic: o.amount_atomic, min_amount: decimal });
      if (v > r.max) Object.assign(r, { max: v, max_amount_atomic: o.amount_atomic, max_amount: decimal });
    }
  }
  return {
    services_total: services.length,
    services_stale: services.filter((s) => s.stale).length,
    stale: services.length > 0 && services.every((s) => s.stale),
    networks: [...networks].sort(),
    protocols: [...protocols].sort(),
    prices: [...ranges.values()].map(({ min: _min, max: _max, ...r }) => r),
    latest_check: latest ? { checked_at: latest.checked_at, outcome: latest.outcome, http_status: latest.http_status } : null,
    last_good_check_at: lastGood,
    services: services.slice(0, SERVICES_IN_LISTING).map((s) => ({
      service_id: s.service_id,
      method: s.method,
      url: s.url,
      tool: s.tool,
      description: s.description,
      stale: s.stale,
      last_good_check_at: s.last_good_check_at,
      failing_since: s.failing_since,
      latest_check: s.latest_check
        ? { checked_at: s.latest_check.checked_at, outcome: s.latest_check.outcome, http_status: s.latest_check.http_status }
        : null,
      offers_count: s.offers.length,
    })),
  };
}
