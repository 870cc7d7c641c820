/**
 * The intel the payment matcher reads (src/payments/attribute.ts PaymentIntel), built from `intel_offers`: the
 * realm of every probed MPP challenge (the offer's `extra.realm`) by its fingerprint, and every payTo with the time
 * paywatch first saw each service advertise it (a snapshot's or a directory listing's observed_at). Offers are
 * only ever added, so the index is read once and then extended by the rows with a higher id (a cheap primary-key
 * range per write), at most REFRESH_BUDGET rows per refresh so no write waits on a large backlog.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { PaymentIntel, ServiceRef } from '../../payments/attribute.js';
import { mppFingerprint } from '../../domain/mpp-attribution.js';

/** Offer rows read per query. */
const PAGE = 2_000;
/** Offer rows read per refresh at most (the rest on the next one). */
export const REFRESH_BUDGET = 20_000;
/** The network of Tempo mainnet in offers (CAIP-2). */
export const TEMPO_NETWORK = 'eip155:4217';
/** Realms longer than this are not a realm a client would pass (mppx takes the host); not indexed. */
const REALM_MAX = 253;
const ADDRESS = /^0x[0-9a-f]{40}$/;

/** A payTo advertised by one service: when paywatch first saw it, and first saw it in an x402 offer on Tempo. */
interface Advertised {
  ref: ServiceRef;
  /** Unix seconds. */
  first: number;
}

/** The offers of a payTo and realm, what changed since a given point (for the attribution pass). */
export interface IntelDelta {
  /** Fingerprints of realms seen for a service for the first time. */
  fingerprints: Set<string>;
  /** payTos newly advertised by a service (or newly in an x402 offer on Tempo), with the earliest such time. */
  payTos: Map<string, number>;
}

/** An in-memory PaymentIntel over intel_offers, extended by refresh(). */
export class PaymentIntelIndex implements PaymentIntel {
  /** The highest intel_offers id read. */
  lastId = 0;
  private readonly realms = new Map<string, Map<string, ServiceRef>>();
  private readonly payTos = new Map<string, Map<string, Advertised>>();
  /** payTo → first time seen in an x402 offer on eip155:4217 (Unix seconds). */
  private readonly x402 = new Map<string, number>();

  servicesOfFingerprint(fingerprint: string): readonly ServiceRef[] {
    const m = this.realms.get(fingerprint);
    return m ? [...m.values()] : [];
  }

  servicesPaidAt(payTo: string, time: number): readonly ServiceRef[] {
    const m = this.payTos.get(payTo);
    if (!m) return [];
    const out: ServiceRef[] = [];
    for (const a of m.values()) if (a.first <= time) out.push(a.ref);
    return out;
  }

  x402PayToSeenAt(payTo: string, time: number): boolean {
    const t = this.x402.get(payTo);
    return t !== undefined && t <= time;
  }

  /** True when `address` is a payTo of any service (whatever the time): worth parsing a row's legs for. */
  knowsPayTo(address: string | null): boolean {
    return address !== null && this.payTos.has(address);
  }

  /** True when a realm with this fingerprint was seen. */
  knowsFingerprint(fingerprint: string | null): boolean {
    return fingerprint !== null && this.realms.has(fingerprint);
  }

  /** True when nothing was read yet (no offer with an address or a realm): no row can be attributed. */
  get empty(): boolean {
    return this.payTos.size === 0 && this.realms.size === 0;
  }

  /**
   * Reads the offers stored since the last refresh (at most `budget` rows) and adds them.
   * @param delta when given, what the new rows add (new fingerprints, new payTos) is recorded in it
   * @returns rows read
   * @throws the store's errors
   */
  async refresh(db: Kysely<Database>, budget = REFRESH_BUDGET, delta?: IntelDelta): Promise<number> {
    let read = 0;
    while (read < budget) {
      const rows = await db
        .selectFrom('intel_offers')
        .select(['id', 'service_id', 'domain', 'protocol', 'network', 'pay_to', 'extra', 'observed_at'])
        .where('id', '>', this.lastId)
        .orderBy('id')
        .limit(Math.min(PAGE, budget - read))
        .execute();
      for (const r of rows) this.add(r, delta);
      read += rows.length;
      if (rows.length) this.lastId = Number(rows[rows.length - 1].id);
      if (rows.length < PAGE) break;
    }
    return read;
  }

  /** Adds one offer row (hostile data: every member is checked; a bad one is skipped, never thrown). */
  add(
    r: {
      service_id: string;
      domain: string;
      protocol: string;
      network: string | null;
      pay_to: string | null;
      extra: string | null;
      observed_at: string;
    },
    delta?: IntelDelta,
  ): void {
    const ref = { service_id: r.service_id, provider: r.domain };
    const t = Math.floor(Date.parse(r.observed_at) / 1000);
    if (!Number.isFinite(t)) return;
    const payTo = typeof r.pay_to === 'string' ? r.pay_to.toLowerCase() : null;
    if (payTo !== null && ADDRESS.test(payTo)) {
      const m = this.payTos.get(payTo) ?? new Map<string, Advertised>();
      this.payTos.set(payTo, m);
      const had = m.get(r.service_id);
      if (!had || t < had.first) {
        m.set(r.service_id, { ref, first: t });
        if (delta) delta.payTos.set(payTo, Math.min(delta.payTos.get(payTo) ?? t, t));
      }
      if (r.protocol === 'x402' && r.network === TEMPO_NETWORK) {
        const x = this.x402.get(payTo);
        if (x === undefined || t < x) {
          this.x402.set(payTo, t);
          if (delta) delta.payTos.set(payTo, Math.min(delta.payTos.get(payTo) ?? t, t));
        }
      }
    }
    if (r.protocol === 'mpp' && r.extra) {
      const realm = realmOf(r.extra);
      if (realm !== null) {
        const fp = mppFingerprint(realm);
        const m = this.realms.get(fp) ?? new Map<string, ServiceRef>();
        this.realms.set(fp, m);
        if (!m.has(r.service_id)) {
          m.set(r.service_id, ref);
          delta?.fingerprints.add(fp);
        }
      }
    }
  }
}

/** The `realm` of an offer's stored `extra` JSON text, or null (hostile text: never throws). */
export function realmOf(extra: string): string | null {
  try {
    const e = JSON.parse(extra) as { realm?: unknown } | null;
    const realm = e && typeof e === 'object' ? e.realm : null;
    return typeof realm === 'string' && realm.length > 0 && realm.length <= REALM_MAX ? realm : null;
  } catch {
    return null;
  }
}

const indexes = new WeakMap<object, PaymentIntelIndex>();

/**
 * The index of one store handle (each process and writer thread keeps its own, extended from the shared table).
 * @param owner the Store (or any object owning one connection)
 */
export function paymentIntelOf(owner: object): PaymentIntelIndex {
  const i = indexes.get(owner) ?? new PaymentIntelIndex();
  indexes.set(owner, i);
  return i;
}
