/**
 * The seams of provider intelligence. Sources (src/intel/sources) discover services; the prober
 * (src/intel/probe) takes one unpaid snapshot of a service and parses its challenge into offers; the store
 * (src/store/intel) keeps services, snapshots, offers and the changes derived by diffing snapshots
 * (src/intel/changes.ts); the trust check (src/trust) reuses the prober, parsers and queries.
 * Amounts are exact atomic integer strings; a decimal amount is given only where the asset's decimals are known.
 * Networks are CAIP-2 ("eip155:4217"). Times are ISO 8601 strings unless named *_unix (UTC seconds).
 */

export type PaymentProtocol = 'x402' | 'mpp';

/** Where an offer was read. */
export type OfferSource = 'header' | 'body' | 'www-authenticate' | 'openapi' | 'well-known' | 'directory';

/** One advertised payment option. An offer is an advertisement, not a charge. */
export interface Offer {
  protocol: PaymentProtocol;
  /** x402Version (1 or 2) for x402; null for MPP. */
  x402_version: number | null;
  /** x402 scheme ("exact", "upto"…) or MPP intent ("charge", "session"). */
  scheme: string | null;
  /** MPP method ("tempo", "stripe"…); null for x402. */
  method: string | null;
  /** CAIP-2 network id, or null when not stated / not mappable. */
  network: string | null;
  /** Token contract or currency code as advertised (lower-case when an address). */
  asset: string | null;
  /** Exact atomic integer string; null when not advertised. */
  amount_atomic: string | null;
  /** Exact decimal string in token units where the decimals are known; else null. */
  amount: string | null;
  decimals: number | null;
  /** payTo (x402) or recipient (MPP), lower-case when an address. */
  pay_to: string | null;
  max_timeout_seconds: number | null;
  /** MPP `expires`, ISO 8601, or null. */
  expires: string | null;
  description: string | null;
  /** The resource URL the offer names, if any. */
  resource: string | null;
  extra: Record<string, unknown> | null;
  source: OfferSource;
}

/** Outcome of one unpaid request to a service. */
export type ProbeOutcome =
  | 'payment_required' // 402 with a parseable challenge
  | 'invalid_challenge' // 402 whose challenge could not be parsed
  | 'ok_without_payment' // 2xx without paying
  | 'not_found' // 404 / 410
  | 'error' // other HTTP status
  | 'timeout'
  | 'unreachable' // DNS, connection refused, TLS…
  | 'refused' // our safe fetcher refused the address (private, loopback…)
  | 'too_large'; // body over the cap

/** The raw response kept as evidence (body capped), hashed as archived. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** Body bytes, at most the cap. */
  body: Uint8Array;
  truncated: boolean;
  /** The final URL after redirects. */
  url: string;
}

/** One dated endpoint check of a service: a snapshot with its evidence and parsed offers. */
export interface Snapshot {
  /** Unique id (for example a UUID v7 or ULID; sortable by time). */
  snapshot_id: string;
  service_id: string;
  /** ISO 8601. */
  checked_at: string;
  /** HTTP status or null when no response. */
  http_status: number | null;
  latency_ms: number | null;
  outcome: ProbeOutcome;
  /** Error detail for non-2xx/402 outcomes; null otherwise. */
  error: string | null;
  /** sha256 hex of the archived evidence bytes; null when nothing was received. */
  evidence_hash: string | null;
  offers: Offer[];
}

/** A paid endpoint as a source describes it. */
export interface DiscoveredService {
  method: string;
  url: string;
  /** Tool name for an MCP resource. */
  tool: string | null;
  /** Name of the source (configuration) it came from. */
  source: string;
  description: string | null;
  /** Offers the directory itself advertises for it (source 'directory', 'openapi' or 'well-known'). */
  offers: Offer[];
}

export type ChangeKind =
  | 'offer_added'
  | 'offer_removed'
  | 'price_changed'
  | 'pay_to_changed'
  | 'asset_changed'
  | 'network_changed'
  | 'status_changed'
  | 'challenge_invalid'
  | 'directory_drift';

/** A dated change between two snapshots of one service. */
export interface Change {
  service_id: string;
  domain: string;
  kind: ChangeKind;
  /** ISO 8601: the time of the later snapshot. */
  at: string;
  before_snapshot_id: string | null;
  after_snapshot_id: string;
  /** The old and new values (offer, amount, payTo, status…), shaped per kind; documented in docs/intelligence.md. */
  before: unknown;
  after: unknown;
}
