/**
 * The attribution a transaction's detail serves (docs/payments.md, "Attribution in a detail"): each leg's and the
 * transaction's, re-derived when the detail is read by the same matcher as the row's columns
 * (src/payments/attribute.ts) over the intel seen, so the candidates it lists (which no column keeps) are current.
 */
import type { AttributionMemo, Leg } from '../../domain/observation.js';
import { attributeTransaction, type LegAttribution, type PaymentIntel } from '../../payments/attribute.js';

/**
 * The attribution of one leg, or of a transaction (its attributed leg's), as a detail serves it: the matcher's
 * (fingerprints and nonce 0x + hex, null when the leg has no MPP memo; candidates sorted, empty when none; method
 * null when not attributed) and whether several services matched (null when not attributed).
 */
export interface ServedAttribution extends LegAttribution {
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
