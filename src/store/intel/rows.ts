/**
 * Conversions between the intel domain types (src/domain/intel.ts) and their table rows: JSON members to and
 * from text, times normalised to Date.toISOString() so text order is time order.
 */
import type { Change, Offer, ProbeOutcome, Snapshot } from '../../domain/intel.js';
import type { IntelChangeRow, IntelOfferRow, IntelSnapshotRow } from '../tables/intel.js';

/**
 * Normalises a time to the stored ISO form (fixed-width UTC with milliseconds).
 * @param t an ISO 8601 string, a Date, or milliseconds since the epoch
 * @throws RangeError when `t` is not a valid time
 */
export function isoTime(t: string | Date | number): string {
  return new Date(t).toISOString();
}

/** Converts UTC Unix seconds (possibly fractional) to the stored ISO form. @throws RangeError out of range */
export function isoFromUnix(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

/** Parses stored JSON text; null stays null. */
export function parseJson<T = unknown>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

/** Outcomes that count as a good check (the endpoint answered); everything else is failing. */
export const GOOD_OUTCOMES: readonly ProbeOutcome[] = ['payment_required', 'ok_without_payment'];

/** The offer row for `o` (without id), tied to a snapshot or a directory listing. */
export function offerToRow(
  o: Offer,
  at: {
    service_id: string;
    domain: string;
    snapshot_id: string | null;
    source_name: string | null;
    observed_at: string;
    evidence_hash: string | null;
  },
): Omit<IntelOfferRow, 'id'> {
  return {
    ...at,
    protocol: o.protocol,
    x402_version: o.x402_version,
    scheme: o.scheme,
    method: o.method,
    network: o.network,
    asset: o.asset,
    amount_atomic: o.amount_atomic,
    amount: o.amount,
    decimals: o.decimals,
    pay_to: o.pay_to,
    max_timeout_seconds: o.max_timeout_seconds,
    expires: o.expires,
    description: o.description,
    resource: o.resource,
    extra: o.extra === null ? null : JSON.stringify(o.extra),
    source: o.source,
  };
}

/** The Offer members of a stored offer row. */
export function rowToOffer(r: Omit<IntelOfferRow, 'id'>): Offer {
  return {
    protocol: r.protocol,
    x402_version: r.x402_version,
    scheme: r.scheme,
    method: r.method,
    network: r.network,
    asset: r.asset,
    amount_atomic: r.amount_atomic,
    amount: r.amount,
    decimals: r.decimals,
    pay_to: r.pay_to,
    max_timeout_seconds: r.max_timeout_seconds,
    expires: r.expires,
    description: r.description,
    resource: r.resource,
    extra: parseJson<Record<string, unknown>>(r.extra),
    source: r.source,
  };
}

/** A stored offer as the API serves it: the Offer members plus where and when it was observed. */
export interface StoredOffer extends Offer {
  id: number;
  service_id: string;
  domain: string;
  snapshot_id: string | null;
  source_name: string | null;
  observed_at: string;
  evidence_hash: string | null;
}

/** The API form of an offer row. */
export function rowToStoredOffer(r: Omit<IntelOfferRow, 'id'> & { id: number }): StoredOffer {
  return {
    id: r.id,
    service_id: r.service_id,
    domain: r.domain,
    snapshot_id: r.snapshot_id,
    source_name: r.source_name,
    observed_at: r.observed_at,
    evidence_hash: r.evidence_hash,
    ...rowToOffer(r),
  };
}

/** The snapshot row for `s` (offers are stored separately). */
export function snapshotToRow(s: Snapshot, domain: string): IntelSnapshotRow {
  return {
    snapshot_id: s.snapshot_id,
    service_id: s.service_id,
    domain,
    checked_at: isoTime(s.checked_at),
    http_status: s.http_status,
    latency_ms: s.latency_ms === null ? null : Math.round(s.latency_ms),
    outcome: s.outcome,
    error: s.error,
    evidence_hash: s.evidence_hash,
  };
}

/** A snapshot from its row and its offers. */
export function rowToSnapshot(r: IntelSnapshotRow, offers: Offer[]): Snapshot {
  return {
    snapshot_id: r.snapshot_id,
    service_id: r.service_id,
    checked_at: r.checked_at,
    http_status: r.http_status,
    latency_ms: r.latency_ms,
    outcome: r.outcome as ProbeOutcome,
    error: r.error,
    evidence_hash: r.evidence_hash,
    offers,
  };
}

/** The change row for `c` (without id). */
export function changeToRow(c: Change): Omit<IntelChangeRow, 'id'> {
  return {
    service_id: c.service_id,
    domain: c.domain,
    kind: c.kind,
    at: isoTime(c.at),
    before_snapshot_id: c.before_snapshot_id,
    after_snapshot_id: c.after_snapshot_id,
    before: JSON.stringify(c.before ?? null),
    after: JSON.stringify(c.after ?? null),
  };
}

/** A stored change as the API serves it. */
export interface StoredChange extends Change {
  id: number;
}

/** The API form of a change row. */
export function rowToChange(r: Omit<IntelChangeRow, 'id'> & { id: number }): StoredChange {
  return {
    id: r.id,
    service_id: r.service_id,
    domain: r.domain,
    kind: r.kind as Change['kind'],
    at: r.at,
    before_snapshot_id: r.before_snapshot_id,
    after_snapshot_id: r.after_snapshot_id,
    before: parseJson(r.before),
    after: parseJson(r.after),
  };
}
