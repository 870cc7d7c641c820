/**
 * Payments joined to services: which service a payment leg paid, by which evidence (docs/decoding.md,
 * "Attribution"). Pure: the intel seen (realms of probed MPP challenges, payTos of offers with the time paywatch
 * first saw each) comes in as a PaymentIntel, built by src/store/payments/intel-index.ts.
 *
 * A leg is attributed with one method:
 * | method | evidence |
 * |---|---|
 * | memo_and_pay_to | the memo's server fingerprint is keccak256(realm)[0..9] of a service AND the leg's recipient is a payTo that same service advertised at or before the payment's time |
 * | pay_to | the recipient is such a payTo (no memo, or a memo naming no service that advertised it): the money went there |
 * | memo | the fingerprint alone: anyone can write any memo, so this says which realm the payer's software named, never who was paid |
 *
 * Several services matching the same evidence → `ambiguous` with every candidate (sorted), the first being the one
 * the row names. A transaction carries the attribution of its attributed leg with the largest amount (the first of
 * equals). A recipient's payTo wins over a memo naming another service: the transfer shows where the money went,
 * the memo only what the payer's software wrote.
 */
import type { Leg } from '../domain/observation.js';
import { decodeMppAttribution } from '../domain/mpp-attribution.js';
import { x402ProtocolOf } from '../domain/x402-protocol.js';

import type { AttributionMethod } from '../domain/observation.js';

/** How a payment was tied to a service (declared with the transaction's members). */
export type { AttributionMethod };

/** A service a payment may have paid: its id and its provider's domain. */
export interface ServiceRef {
  service_id: string;
  provider: string;
}

/** What paywatch has seen of the services, as the matcher reads it. */
export interface PaymentIntel {
  /** Services whose probed MPP challenge named a realm with this fingerprint (0x + 20 hex, lower-case). */
  servicesOfFingerprint(fingerprint: string): readonly ServiceRef[];
  /** Services that advertised `payTo` (lower-case address) in an offer first seen at or before `time` (Unix s). */
  servicesPaidAt(payTo: string, time: number): readonly ServiceRef[];
  /** True when `payTo` (lower-case) was named by an x402 offer on eip155:4217 first seen at or before `time` (Unix s). */
  x402PayToSeenAt(payTo: string, time: number): boolean;
}

/** The attribution of one leg, as the detail lists it. */
export interface LegAttribution {
  log_index: number;
  /** The memo's fingerprints and nonce; null members when the leg carries no MPP attribution memo. */
  server_fingerprint: string | null;
  client_fingerprint: string | null;
  nonce: string | null;
  /** Candidate service ids, sorted; empty when none matched. */
  candidates: string[];
  method: AttributionMethod | null;
}

/** The attribution of a transaction: its attributed leg's service (the first candidate) and every leg's. */
export interface TransactionAttribution {
  service_id: string | null;
  provider: string | null;
  method: AttributionMethod | null;
  /** True when several services matched the chosen leg; null when no leg is attributed. */
  ambiguous: boolean | null;
  /** log_index of the chosen leg (the attributed leg with the largest amount); null when no leg is attributed. */
  log_index: number | null;
  /** "x402" when the x402 pay_to rule recognises a settlement (src/chain/decode/settlement.ts); else null. */
  x402: 'x402' | null;
  /** Legs with a memo or a candidate, in log order. */
  legs: LegAttribution[];
}

const byId = (a: ServiceRef, b: ServiceRef) => (a.service_id < b.service_id ? -1 : a.service_id > b.service_id ? 1 : 0);

/** Distinct services by id, sorted. */
function distinct(refs: readonly ServiceRef[]): ServiceRef[] {
  const m = new Map<string, ServiceRef>();
  for (const r of refs) if (!m.has(r.service_id)) m.set(r.service_id, r);
  return [...m.values()].sort(byId);
}

/**
 * The attribution of one leg and its candidate services (sorted by id).
 * @param leg a stored or served leg (`to`, `memo`, `log_index` are read)
 * @param time the payment's block time, UTC Unix seconds
 */
export function attributeLeg(
  leg: Pick<Leg, 'to' | 'memo' | 'log_index'>,
  time: number,
  intel: PaymentIntel,
): LegAttribution & { services: ServiceRef[] } {
  const memo = decodeMppAttribution(leg.memo);
  const byMemo = memo ? distinct(intel.servicesOfFingerprint(memo.server_fingerprint)) : [];
  const byPayTo = distinct(intel.servicesPaidAt(String(leg.to).toLowerCase(), time));
  const both = byMemo.filter((s) => byPayTo.some((p) => p.service_id === s.service_id));
  const [method, services]: [AttributionMethod | null, ServiceRef[]] = both.length
    ? ['memo_and_pay_to', both]
    : byPayTo.length
      ? ['pay_to', byPayTo]
      : byMemo.length
        ? ['memo', byMemo]
        : [null, []];
  return {
    log_index: leg.log_index,
    server_fingerprint: memo?.server_fingerprint ?? null,
    client_fingerprint: memo?.client_fingerprint ?? null,
    nonce: memo?.nonce ?? null,
    candidates: services.map((s) => s.service_id),
    method,
    services,
  };
}

/**
 * The attribution of a transaction from its legs.
 * @param legs the observation's legs (null or empty: nothing attributed)
 * @param time its block time, UTC Unix seconds
 */
export function attributeTransaction(
  legs: readonly Pick<Leg, 'to' | 'memo' | 'log_index' | 'amount_atomic' | 'settlement' | 'x402_proxy'>[] | null,
  time: number,
  intel: PaymentIntel,
): TransactionAttribution {
  const out: LegAttribution[] = [];
  let best: { a: ReturnType<typeof attributeLeg>; amount: bigint } | null = null;
  for (const g of legs ?? []) {
    const a = attributeLeg(g, time, intel);
    if (a.method === null && a.server_fingerprint === null) continue;
    const { services: _, ...listed } = a;
    out.push(listed);
    if (a.method === null) continue;
    const amount = atomic(g.amount_atomic);
    if (!best || amount > best.amount) best = { a, amount };
  }
  const chosen = best?.a ?? null;
  return {
    service_id: chosen?.services[0]?.service_id ?? null,
    provider: chosen?.services[0]?.provider ?? null,
    method: chosen?.method ?? null,
    ambiguous: chosen ? chosen.services.length > 1 : null,
    log_index: chosen?.log_index ?? null,
    x402: x402ProtocolOf(legs, x402PayTosOf(legs ?? [], time, intel)),
    legs: out,
  };
}

/** An atomic amount as a bigint (0 when it is not an integer string: a stored leg is data, not trusted). */
function atomic(s: unknown): bigint {
  return typeof s === 'string' && /^\d{1,78}$/.test(s) ? BigInt(s) : 0n;
}

/** The recipients of the settled legs that x402 offers on Tempo named at or before `time`. */
function x402PayTosOf(legs: readonly Pick<Leg, 'to' | 'settlement'>[], time: number, intel: PaymentIntel): Set<string> {
  const out = new Set<string>();
  for (const g of legs) {
    const to = String(g.to).toLowerCase();
    if (g.settlement && intel.x402PayToSeenAt(to, time)) out.add(to);
  }
  return out;
}
