/**
 * Applying the payment matcher (src/payments/attribute.ts) to stored or about-to-be-stored rows: the attribution
 * columns of an `observations` row from its legs, its time and the intel index.
 */
import type { Leg } from '../../domain/observation.js';
import { attributeTransaction, type TransactionAttribution } from '../../payments/attribute.js';
import type { PaymentIntelIndex } from './intel-index.js';

/** The attribution columns of a row (and its protocol, which the x402 pay_to rule may set). */
export interface AttributionColumns {
  service_id: string | null;
  provider: string | null;
  attribution_method: string | null;
  attribution_ambiguous: number | null;
  protocol: string | null;
}

/** What the matcher needs of a row before its detail is read. */
export interface RowForAttribution {
  time: number | string;
  recipient: string | null;
  protocol: string | null;
  server_fingerprint: string | null;
}

/**
 * True when the row may be attributed at all: the intel knows its recipient, one of its leg recipients or its memo's
 * fingerprint, or it is an MPP payment (another leg's memo may name a realm). Saves parsing the detail of the
 * others, most rows.
 */
export function worthAttributing(row: RowForAttribution, legRecipients: readonly string[], intel: PaymentIntelIndex): boolean {
  if (intel.empty) return false;
  return (
    row.protocol === 'mpp' ||
    intel.knowsPayTo(row.recipient) ||
    intel.knowsFingerprint(row.server_fingerprint) ||
    legRecipients.some((r) => intel.knowsPayTo(r))
  );
}

/**
 * The attribution columns of a row from its legs. The decoder's protocol stays (mpp, or x402 through x402's own
 * proxy); a null one becomes "x402" when the pay_to rule recognises a settlement.
 * @param legs the legs of its stored detail (null: none kept)
 */
export function attributionColumns(
  row: RowForAttribution,
  legs: readonly Leg[] | null,
  intel: PaymentIntelIndex,
): AttributionColumns & { attribution: TransactionAttribution } {
  const a = attributeTransaction(Array.isArray(legs) ? legs : null, Number(row.time), intel);
  return {
    service_id: a.service_id,
    provider: a.provider,
    attribution_method: a.method,
    attribution_ambiguous: a.ambiguous === null ? null : a.ambiguous ? 1 : 0,
    protocol: row.protocol === null || row.protocol === 'x402' ? (a.x402 ?? row.protocol) : row.protocol,
    attribution: a,
  };
}

/** The legs of a detail's JSON text, or null when it has none or cannot be read (a bad row stays unattributed). */
export function legsOfDetailJson(json: string): Leg[] | null {
  try {
    const d = JSON.parse(json) as { legs?: unknown } | null;
    return d && Array.isArray(d.legs) ? (d.legs as Leg[]) : null;
  } catch {
    return null;
  }
}
