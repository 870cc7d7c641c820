/** Tables of the trust area. Each table's row type: see the migrations in ../migrations/trust.ts. */
/** An API key of the trust-check service. The key itself is never stored: only its sha256 (hex). */
export interface TrustApiKeyRow {
  /** Public identifier ("key_" + 16 hex), shown in operator listings and invoices. */
  id: string;
  /** sha256 hex of the full key string; unique. */
  key_hash: string;
  /** First characters of the key ("pw_" + 6), so an operator can recognise a key without holding it. */
  prefix: string;
  plan: 'free' | 'paid';
  label: string | null;
  /** Who issued it: 'api' (POST /v1/keys) or 'operator' (CLI). */
  issued_via: 'api' | 'operator';
  /** ISO 8601. */
  created_at: string;
  /** ISO 8601, or null while the key is active. */
  revoked_at: string | null;
  /** ISO 8601 of the last check made with it (to the day), or null when never used; free keys idle too long expire. */
  last_used_at?: string | null;
}

/** Free keys issued to one client (sha256 hex of its address group, src/limits/client-key.ts) in one UTC month. */
export interface TrustKeyIssuanceRow {
  client_hash: string;
  /** "YYYY-MM" (UTC). */
  month: string;
  issued: number;
}

/**
 * Successful checks per key and UTC calendar month. `reserved` counts checks in flight: a request reserves a
 * slot with a conditional update (used + reserved < quota), then commits (used+1, reserved−1) or releases.
 */
export interface TrustUsageRow {
  key_id: string;
  /** "YYYY-MM" (UTC). */
  month: string;
  used: number;
  reserved: number;
}

/** One completed trust check: what was fetched (snapshot id, evidence hash), the verdict, and who it was for. */
export interface TrustCheckRow {
  snapshot_id: string;
  url: string;
  /** ISO 8601. */
  checked_at: string;
  verdict: 'pay' | 'caution' | 'do_not_pay';
  /** sha256 hex of the archived evidence bytes, or null when nothing was received. */
  evidence_hash: string | null;
  /** Key that paid for it by plan, or null for an x402 per-call payment. */
  key_id: string | null;
  /** x402 payer address (lower-case) and settlement transaction, for per-call payments; null otherwise. */
  payer: string | null;
  payment_tx: string | null;
  /** The full answer as JSON text. */
  answer: string;
  /** The archived raw response (src/intel/evidence.ts: gzip of the canonical form); its sha256 is evidence_hash. */
  evidence: Uint8Array | null;
}

export interface TrustTables {
  trust_api_keys: TrustApiKeyRow;
  trust_usage: TrustUsageRow;
  trust_checks: TrustCheckRow;
  trust_key_issuance: TrustKeyIssuanceRow;
}
