/**
 * Store reads of the payee-only trust check (src/trust/pay-to.ts): the listed services whose offers name a payTo,
 * and the recorded payTo changes that moved a service to it. SQLite and PostgreSQL alike.
 */
import type { Store } from '../store.js';
import { isoTime, rowToChange, type StoredChange } from '../intel/rows.js';

/** Most services one payee-only check lists (newest advertisement first); more are counted, not listed. */
export const PAY_TO_SERVICES_MAX = 100;
/** Most pay_to_changed records one payee-only check reads (newest first). */
export const PAY_TO_CHANGES_MAX = 1000;

/** A listed service whose offers name the payTo, with the dates they did. */
export interface PayToService {
  service_id: string;
  domain: string;
  url: string;
  /** ISO 8601 of the first and latest observed offer naming the payTo. */
  first_advertised: string;
  last_advertised: string;
  /** ISO 8601 of the service's latest check, or null when never checked (compare with last_advertised). */
  last_checked: string | null;
}

/**
 * The listed services that advertise or advertised `payTo` (intel_offers.pay_to, lower-case), newest advertisement
 * first, at most PAY_TO_SERVICES_MAX. intel_offers has no pay_to index: this reads the offers table once (bounded
 * by its size, which the collector keeps to its retention).
 * @param network CAIP-2 network the offers must be on, or null for any
 * @returns the services, how many there are in all, and the domains of all of them
 */
export async function servicesPayingTo(
  store: Store,
  payTo: string,
  network: string | null,
): Promise<{ services: PayToService[]; total: number; domains: string[] }> {
  let q = store.db
    .selectFrom('intel_offers')
    .innerJoin('intel_services', 'intel_services.service_id', 'intel_offers.service_id')
    .select((eb) => [
      'intel_offers.service_id',
      'intel_services.domain',
      'intel_services.url',
      'intel_services.last_checked_at',
      eb.fn.min('intel_offers.observed_at').as('first'),
      eb.fn.max('intel_offers.observed_at').as('last'),
    ])
    .where('intel_offers.pay_to', '=', payTo.toLowerCase());
  if (network !== null) q = q.where('intel_offers.network', '=', network);
  const rows = await q
    .groupBy(['intel_offers.service_id', 'intel_services.domain', 'intel_services.url', 'intel_services.last_checked_at'])
    .execute();
  rows.sort((a, b) => String(b.last).localeCompare(String(a.last)) || a.service_id.localeCompare(b.service_id));
  return {
    total: rows.length,
    domains: [...new Set(rows.map((r) => r.domain))],
    services: rows.slice(0, PAY_TO_SERVICES_MAX).map((r) => ({
      service_id: r.service_id,
      domain: r.domain,
      url: r.url,
      first_advertised: isoTime(String(r.first)),
      last_advertised: isoTime(String(r.last)),
      last_checked: r.last_checked_at === null ? null : isoTime(r.last_checked_at),
    })),
  };
}

/**
 * The pay_to_changed records at or after `since` (ISO 8601) whose new payTo is `payTo`, oldest first (at, id), at
 * most PAY_TO_CHANGES_MAX of the newest. Reads the window by time (intel_changes_time) and matches the new payTo
 * in the record's JSON.
 */
export async function changesToPayTo(store: Store, payTo: string, since: string): Promise<StoredChange[]> {
  const a = payTo.toLowerCase();
  const rows = await store.db
    .selectFrom('intel_changes')
    .selectAll()
    .where('at', '>=', isoTime(since))
    .where('kind', '=', 'pay_to_changed')
    .where('after', 'like', `%${a}%`)
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(PAY_TO_CHANGES_MAX)
    .execute();
  return rows
    .reverse()
    .map((r) => rowToChange({ ...r, id: Number(r.id) }))
    .filter((c) => (c.after as { pay_to?: unknown } | null)?.pay_to === a);
}
