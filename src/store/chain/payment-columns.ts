/**
 * The payment columns of an `observations` row that follow from its own detail (migration chain_0009_payments):
 * payer, self_payment and the attribution memo's fingerprints. The writer fills them at collection
 * (./rows.ts serializeObservation) and ./backfill-payments.ts for rows stored before the migration, with this one
 * function, so both agree. The service columns (service_id, provider, attribution_method, attribution_ambiguous)
 * depend on the intel seen and are the payment matcher's (src/payments/attribute.ts).
 */
import type { ObservationDetail } from '../../domain/observation.js';

/** The columns derived from a detail; null members are unknown (never "no one"). */
export interface PaymentColumns {
  /** Lower-case 0x address of who paid the primary leg; null when unknown (no legs, a mint, an older detail). */
  payer: string | null;
  /** 1 when payer = recipient, 0 when they differ, null when either is unknown. */
  self_payment: number | null;
  /** keccak256(clientId)[0..9] of the attribution memo, 0x + 20 hex; null when anonymous or no memo. */
  client_fingerprint: string | null;
  /** keccak256(serverId)[0..9] of the attribution memo, 0x + 20 hex; null when no memo. */
  server_fingerprint: string | null;
}

const ADDRESS = /^0x[0-9a-f]{40}$/;
const FINGERPRINT = /^0x[0-9a-f]{20}$/;

/**
 * The payment columns of a row from its detail (parsed JSON, possibly from an older paywatch or a seed, so every
 * member is checked, never trusted) and its stored `recipient`.
 * @param detail the observation's detail; `payer` and `attribution` are read (absent in details stored before them)
 * @param recipient the row's lower-case recipient, or null
 */
export function paymentColumnsOf(
  detail: Pick<ObservationDetail, 'payer' | 'attribution'> | null | undefined,
  recipient: string | null,
): PaymentColumns {
  const payer = typeof detail?.payer === 'string' ? detail.payer.toLowerCase() : null;
  const known = payer !== null && ADDRESS.test(payer) ? payer : null;
  const a = detail?.attribution;
  const fp = (v: unknown) => (typeof v === 'string' && FINGERPRINT.test(v.toLowerCase()) ? v.toLowerCase() : null);
  return {
    payer: known,
    self_payment: known === null || recipient === null ? null : known === recipient.toLowerCase() ? 1 : 0,
    client_fingerprint: a ? fp(a.client_fingerprint) : null,
    server_fingerprint: a ? fp(a.server_fingerprint) : null,
  };
}
