/**
 * What identifies an offer across snapshots, and one side of a stored change record read back as offer members:
 * the change diff (./changes.ts) and the trust check's recent-change signals (src/trust/assess.ts) compare offers
 * by the same key.
 */
import type { Offer } from '../domain/intel.js';

/** The members that identify an offer across snapshots. */
export interface OfferIdentity {
  protocol: Offer['protocol'];
  x402_version: number | null;
  scheme: string | null;
  method: string | null;
  network: string | null;
  asset: string | null;
}

/** The identity members of `o`, in a fixed order. */
export function offerIdentity(o: Offer): OfferIdentity {
  return { protocol: o.protocol, x402_version: o.x402_version, scheme: o.scheme, method: o.method, network: o.network, asset: o.asset };
}

/**
 * The identity of an offer (or of one side of a change record) as one comparable string; a missing member
 * serialises as null, like a null one.
 * @example offerIdentityKey({ protocol: 'x402', network: 'eip155:4217' }) // '["x402",null,null,null,"eip155:4217",null]'
 */
export function offerIdentityKey(o: Partial<Offer>): string {
  return JSON.stringify(Object.values(offerIdentity(o as Offer)));
}

/**
 * One side (`before`/`after`) of a stored change record (docs/intelligence.md, "Changes") as offer members: its
 * scalar members (string, number, null); anything else is dropped, and a side that is not an object gives {}.
 */
export function changeSide(x: unknown): Partial<Offer> {
  if (!x || typeof x !== 'object') return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(x)) if (typeof v === 'string' || typeof v === 'number' || v === null) out[k] = v;
  return out as Partial<Offer>;
}
