/**
 * Pure diffing of endpoint checks into dated change records (docs/intelligence.md). No I/O.
 *
 * Rules (documented in docs/intelligence.md, "Changes"):
 * - The first snapshot of a service yields no change: a first sighting is not a change.
 * - Status: a different outcome or HTTP status gives `status_changed` ({outcome, http_status} before and after),
 *   except that a move into `invalid_challenge` gives `challenge_invalid` instead.
 * - Offers are compared only when both snapshots are `payment_required` (a timeout or a 404 says nothing about
 *   which offers exist; the status change records it). Offer identity is (protocol, x402_version, scheme,
 *   method, network, asset). Same identity: `price_changed` when amount_atomic differs, `pay_to_changed` when
 *   pay_to differs. Left-over offers that share (protocol, x402_version, scheme, method) pair up one-to-one and
 *   give `network_changed` / `asset_changed` (plus price and payTo changes of the pair); the rest are
 *   `offer_removed` / `offer_added`.
 */
import type { Change, ChangeKind, Offer, Snapshot } from '../domain/intel.js';
import { groupBy } from '../domain/group-by.js';
import { offerIdentity, offerIdentityKey, type OfferIdentity } from './offer-identity.js';

/** Where the changes belong: the provider's domain. */
export interface DiffContext {
  domain: string;
}

/** Offers that could be the same option with a new network or asset share this key. */
const familyKey = (o: Offer): string => JSON.stringify([o.protocol, o.x402_version, o.scheme, o.method]);

/**
 * Pairs offers of `before` with offers of `after` that share `key` (in order); returns the pairs and the left-overs.
 */
function pairBy(before: Offer[], after: Offer[], key: (o: Offer) => string): { pairs: [Offer, Offer][]; removed: Offer[]; added: Offer[] } {
  const pairs: [Offer, Offer][] = [];
  const removed: Offer[] = [];
  const afterGroups = groupBy(after, key);
  for (const o of before) {
    const g = afterGroups.get(key(o));
    if (g?.length) pairs.push([o, g.shift()!]);
    else removed.push(o);
  }
  const added = [...afterGroups.values()].flat();
  return { pairs, removed, added };
}

/**
 * Compares the snapshots `prev` and `next` of one service and returns the dated changes, oldest rule first:
 * status, then offers (removed, added, price, payTo, network, asset). Each change cites both snapshot ids and is
 * dated at `next.checked_at`.
 * @param prev the previous snapshot of the same service, or null for the first one (gives [])
 * @param next the new snapshot
 * @param ctx the provider domain of the service
 * @returns Change[] in a deterministic order; `before`/`after` shapes are listed in docs/intelligence.md
 */
export function diffSnapshots(prev: Snapshot | null, next: Snapshot, ctx: DiffContext): Change[] {
  if (!prev) return [];
  const changes: Change[] = [];
  const make = (kind: ChangeKind, before: unknown, after: unknown): Change => ({
    service_id: next.service_id,
    domain: ctx.domain,
    kind,
    at: next.checked_at,
    before_snapshot_id: prev.snapshot_id,
    after_snapshot_id: next.snapshot_id,
    before,
    after,
  });

  if (prev.outcome !== next.outcome || prev.http_status !== next.http_status) {
    const before = { outcome: prev.outcome, http_status: prev.http_status };
    if (next.outcome === 'invalid_challenge' && prev.outcome !== 'invalid_challenge') {
      changes.push(make('challenge_invalid', before, { outcome: next.outcome, http_status: next.http_status, error: next.error }));
    } else {
      changes.push(make('status_changed', before, { outcome: next.outcome, http_status: next.http_status }));
    }
  }
  if (prev.outcome !== 'payment_required' || next.outcome !== 'payment_required') return changes;

  const exact = pairBy(prev.offers, next.offers, offerIdentityKey);
  const moved = pairBy(exact.removed, exact.added, familyKey);
  for (const o of moved.removed) changes.push(make('offer_removed', o, null));
  for (const o of moved.added) changes.push(make('offer_added', null, o));
  for (const [a, b] of [...exact.pairs, ...moved.pairs]) changes.push(...pairChanges(a, b, make));
  return changes;
}

/** The price, payTo, network and asset changes between two offers taken to be the same option. */
function pairChanges(a: Offer, b: Offer, make: (k: ChangeKind, before: unknown, after: unknown) => Change): Change[] {
  const out: Change[] = [];
  const ia = offerIdentity(a);
  const ib = offerIdentity(b);
  if (a.network !== b.network) out.push(make('network_changed', ia, ib));
  if (a.asset !== b.asset) out.push(make('asset_changed', ia, ib));
  if (a.amount_atomic !== b.amount_atomic) {
    out.push(
      make(
        'price_changed',
        { ...ia, amount_atomic: a.amount_atomic, amount: a.amount },
        { ...ib, amount_atomic: b.amount_atomic, amount: b.amount },
      ),
    );
  }
  if (a.pay_to !== b.pay_to) out.push(make('pay_to_changed', { ...ia, pay_to: a.pay_to }, { ...ib, pay_to: b.pay_to }));
  return out;
}

/** One directory claim that the endpoint's answer does not bear out. */
export interface Drift {
  /** The offer as the directory lists it. */
  listed: Offer;
  /** The endpoint offer it was matched to (price or payTo differs), or null when none matches. */
  answered: Offer | null;
}

/** True when every member the directory states (non-null) of (protocol, x402_version, scheme, method, network, asset) equals the endpoint's. */
function sameOption(listed: Offer, answered: Offer): boolean {
  const l = offerIdentity(listed);
  const a = offerIdentity(answered);
  return (Object.keys(l) as (keyof OfferIdentity)[]).every((k) => l[k] === null || l[k] === a[k]);
}

/**
 * Compares what a directory lists for a service with what the endpoint answered. Only the directory's claims are
 * checked (a directory may list fewer options than the endpoint offers): a listed offer drifts when no endpoint
 * offer has the same option, or when the matching one has a different amount_atomic or pay_to (where the
 * directory states them).
 * @param directoryOffers offers read from a directory, well-known or openapi document
 * @param endpointOffers offers parsed from the endpoint's 402 challenge
 * @returns one Drift per drifting listed offer, in listing order
 */
export function directoryDrift(directoryOffers: Offer[], endpointOffers: Offer[]): Drift[] {
  const out: Drift[] = [];
  for (const listed of directoryOffers) {
    const candidates = endpointOffers.filter((o) => sameOption(listed, o));
    if (!candidates.length) {
      out.push({ listed, answered: null });
      continue;
    }
    const agrees = (o: Offer) =>
      (listed.amount_atomic === null || listed.amount_atomic === o.amount_atomic) && (listed.pay_to === null || listed.pay_to === o.pay_to);
    if (!candidates.some(agrees)) out.push({ listed, answered: candidates[0] });
  }
  return out;
}

const driftKey = (d: Drift): string => JSON.stringify([d.listed, d.answered]);

/**
 * The `directory_drift` changes that `next` introduces: drifts between `directoryOffers` and `next`'s offers that
 * were not already present against `prev` (so a lasting disagreement is recorded once, when it starts).
 * Only `payment_required` snapshots are compared. `before` = {listed}, `after` = {answered}.
 * @param prev the previous snapshot of the service, or null
 */
export function directoryDriftChanges(directoryOffers: Offer[], prev: Snapshot | null, next: Snapshot, ctx: DiffContext): Change[] {
  if (next.outcome !== 'payment_required' || !directoryOffers.length) return [];
  const already = new Set(prev && prev.outcome === 'payment_required' ? directoryDrift(directoryOffers, prev.offers).map(driftKey) : []);
  return directoryDrift(directoryOffers, next.offers)
    .filter((d) => !already.has(driftKey(d)))
    .map((d) => ({
      service_id: next.service_id,
      domain: ctx.domain,
      kind: 'directory_drift' as const,
      at: next.checked_at,
      before_snapshot_id: prev?.snapshot_id ?? null,
      after_snapshot_id: next.snapshot_id,
      before: { listed: d.listed },
      after: { answered: d.answered },
    }));
}
