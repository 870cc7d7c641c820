/**
 * The attribution a transaction's detail serves (docs/payments.md, "Attribution in a detail"): each leg's and the
 * transaction's, re-derived when the detail is read by the same matcher as the row's columns
 * (src/payments/attribute.ts) over the intel seen, so the candidates it lists (which no column keeps) are current.
 */
import type { AttributionMemo, AttributionMethod, Leg } from '../../domain/observation.js';
import { attributeTransaction, type PaymentIntel } from '../../payments/attribute.js';

/** The attribution of one leg, or of a transaction (its attributed leg's), as a detail serves it. */
export interface ServedAttribution {
  /** The leg's log_index. */
  log_index: number;
  /** The leg's MPP attribution memo: keccak256(serverId)[0..9], 0x + 20 hex; null when the leg has no such memo. */
  server_fingerprint: string | null;
  /** keccak256(clientId)[0..9], 0x + 20 hex; null when anonymous or no memo. */
  client_fingerprint: string | null;
  /** keccak256(challengeId)[0..6], 0x + 14 hex; null when no memo. */
  nonce: string | null;
  /** Every service the evidence matches, sorted by id; empty when none. */
  candidates: string[];
  /** How the leg was tied to the candidates; null when it was not. */
  method: AttributionMethod | null;
  /** True when several services matched; null when not attributed. */
  ambiguous: boolean | null;
}

/** A detail's attribution: the transaction's and each leg's by log_index. */
export interface DetailAttribution {
  /**
   * The attributed leg with the largest amount; else, when no leg is attributed, the leg of the stored MPP memo
   * (method null, no candidate); else null.
   */
  attribution: ServedAttribution | null;
  /** Legs with a memo or a candidate, by log_index (any other leg's attribution is null). */
  legs: Map<number, ServedAttribution>;
}

/**
 * The attribution of a stored detail.
 * @param legs the stored legs (null: none)
 * @param memo the detail's stored `attribution` memo (the largest MPP-tagged leg's), null or absent when none
 * @param time the block time, UTC Unix seconds
 */
export function detailAttribution(
  legs: readonly Leg[] | null,
  memo: AttributionMemo | null | undefined,
  time: number,
  intel: PaymentIntel,
): DetailAttribution {
  const t = attributeTransaction(legs, time, intel);
  const byIndex = new Map<number, ServedAttribution>();
  for (const a of t.legs) {
    byIndex.set(a.log_index, { ...a, ambiguous: a.method === null ? null : a.candidates.length > 1 });
  }
  const index = t.log_index ?? memo?.log_index ?? null;
  return { attribution: index === null ? null : (byIndex.get(index) ?? null), legs: byIndex };
}
