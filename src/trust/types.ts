/**
 * The evidence a trust check gathers and the answer it gives. Evidence is plain data collected by
 * src/trust/gather.ts (I/O); src/trust/assess.ts turns it into a verdict with no I/O.
 * Amounts are exact atomic integer strings or exact decimal strings; times are ISO 8601 unless named *_unix.
 */
import type { Change, Offer, ProbeOutcome } from '../domain/intel.js';
import type { CoveredWindow } from '../store/chain/covered-window.js';
import type { PayToService } from '../store/trust/pay-to.js';

export type Verdict = 'pay' | 'caution' | 'do_not_pay';
export type Severity = 'info' | 'warning' | 'critical';

/**
 * Every reason code the engine can emit, with the severities it may carry (one, except pay_to_changed_recently,
 * whose severity depends on the new payTo's observed payments). assess.ts can only emit a code with a severity
 * listed here (its `add` is typed by this table); docs/trust-check.md lists the same codes (a test compares them).
 */
export const REASON_SEVERITIES = {
  payment_required_live: ['info'],
  challenge_invalid: ['critical'],
  no_payment_required: ['critical'],
  not_found: ['critical'],
  http_error: ['critical'],
  unreachable: ['critical'],
  response_too_large: ['critical'],
  redirect_refused: ['critical'],
  https: ['info'],
  not_https: ['warning'],
  listed: ['info'],
  not_listed: ['warning'],
  listed_recently: ['warning'],
  checks_healthy: ['info'],
  checks_unhealthy: ['warning'],
  directory_listed: ['info'],
  directory_absent: ['info'],
  pay_to_changed: ['critical'],
  network_changed: ['warning'],
  asset_changed: ['warning'],
  price_anomaly: ['critical'],
  price_changed: ['warning'],
  history_consistent: ['info'],
  pay_to_changed_recently: ['critical', 'warning'],
  price_raised_recently: ['warning'],
  network_or_asset_changed_recently: ['warning'],
  amount_not_atomic: ['critical'],
  price_missing: ['warning'],
  price_zero: ['warning'],
  price_implausible: ['critical'],
  price_high: ['warning'],
  price_sane: ['info'],
  asset_known: ['info'],
  asset_unknown: ['warning'],
  pay_to_observed_payments: ['info'],
  pay_to_payers_concentrated: ['warning'],
  pay_to_self_funded: ['critical', 'warning'],
  pay_to_few_payers: ['info'],
  pay_to_diverse_payers: ['info'],
  pay_to_no_observed_payments: ['warning'],
  pay_to_activity_unknown: ['info'],
  ownership_proof_valid: ['info'],
  ownership_proof_invalid: ['critical'],
  ownership_proof_absent: ['info'],
  mainnet: ['info'],
  testnet: ['info'],
  network_unknown: ['warning'],
  pay_to_advertised: ['info'],
  pay_to_not_advertised: ['warning'],
  pay_to_first_paid_recently: ['warning'],
  price_above_policy: ['critical', 'info'],
  asset_not_allowed: ['critical', 'info'],
  network_not_allowed: ['critical', 'info'],
  protocol_not_allowed: ['critical', 'info'],
} as const satisfies Record<string, readonly Severity[]>;

export type ReasonCode = keyof typeof REASON_SEVERITIES;
/** The severities `code` may carry. */
export type SeverityOf<C extends ReasonCode> = (typeof REASON_SEVERITIES)[C][number];
/** Every reason code, in the table's order. */
export const REASON_CODES = Object.keys(REASON_SEVERITIES) as ReasonCode[];

/** Appends a reason; the severity must be one REASON_SEVERITIES allows for the code (checked by the compiler). */
export type Add = <C extends ReasonCode>(code: C, severity: SeverityOf<C>, message: string, evidence?: Record<string, unknown>) => void;

/** One machine-readable reason. `code` is stable (docs/trust-check.md lists every code and its rule). */
export interface Reason {
  code: ReasonCode;
  severity: Severity;
  message: string;
  /** The observed values the reason rests on. */
  evidence: Record<string, unknown>;
}

/** Outcome of the unpaid request to the URL. */
export interface LiveFetch {
  outcome: ProbeOutcome;
  http_status: number | null;
  /** Error detail for failures; null otherwise. */
  error: string | null;
  /** URL after redirects, or null when no response. */
  final_url: string | null;
  /** True when a redirect pointed at a refused (private, loopback…) address. */
  redirect_refused: boolean;
}

/** The service as our intelligence store lists it. */
export interface Listing {
  provider_domain: string;
  service_id: string;
  /** ISO 8601 of the first snapshot, or null when unknown. */
  first_seen: string | null;
  /** ISO 8601 of the latest snapshot before this check, or null. */
  last_checked: string | null;
  /** Dated endpoint checks counted and how many were healthy (a parseable 402); null when unknown. */
  checks_total: number | null;
  checks_healthy: number | null;
  /** Names of directory sources that list the service (empty when found only by probing). */
  directory_sources: string[];
}

/** The offers last seen for the service before this check (its history). */
export interface OfferHistory {
  snapshot_id: string | null;
  /** ISO 8601. */
  checked_at: string | null;
  offers: Offer[];
}

/** What we know about an offer's asset on its network. */
export interface AssetInfo {
  network: string | null;
  asset: string | null;
  /** True when the asset is a token we recognise on that network (Tempo: a TIP-20 whose currency() is known). */
  known: boolean;
  symbol: string | null;
  /** ISO 4217-like currency ("USD", "EUR") or null when unknown. */
  currency: string | null;
  decimals: number | null;
  /** Where the facts came from: 'static' list, 'chain' call, 'config', or null when unknown. */
  source: 'static' | 'chain' | 'config' | null;
}

/** Observed payments received by a payTo, from our own chain observations (Tempo only). */
export interface PayToActivity {
  pay_to: string;
  network: string | null;
  /** null = we do not observe that network, so activity is unknown (not zero). */
  count: number | null;
  first_time_unix: number | null;
  last_time_unix: number | null;
}

/** EIP-191 ownership proofs in /.well-known/x402. */
export interface OwnershipEvidence {
  status: 'valid' | 'invalid' | 'absent';
  /** The origin string that was signed. */
  origin: string;
  proofs: number;
  /** payTo addresses with a valid proof. */
  verified_pay_to: string[];
  /** Why the document could not be used, or null. */
  error: string | null;
}

/** The change kinds (src/intel/changes.ts) the trust check weighs. */
export const TRUST_CHANGE_KINDS = [
  'pay_to_changed',
  'price_changed',
  'network_changed',
  'asset_changed',
] as const satisfies readonly Change['kind'][];

/** A change record of the service as GET /api/intelligence/changes serves it (`id` is its public id). */
export interface RecentChange extends Change {
  id: number;
}

/** The service's recorded changes within the trust window before the check. */
export interface RecentChanges {
  /** Length of the window, days (PAYWATCH_TRUST_CHANGE_WINDOW_DAYS). */
  window_days: number;
  /** ISO 8601 start of the window (inclusive). */
  since: string;
  /** Change records of the kinds in TRUST_CHANGE_KINDS, oldest first (at, then id). */
  changes: RecentChange[];
  /** Observed payments received by each payTo a pay_to_changed record moved to (same shape as pay_to_activity). */
  new_pay_to_activity: PayToActivity[];
}

/**
 * The caller's policy (POST /v1/check `policy`): every member optional, each narrowing the acceptable offers.
 * `max_amount` is a decimal string of US dollars, compared with offers in listed USD tokens at 1 dollar per token;
 * an offer in another asset meets it only when that asset is in `assets`, compared in the asset's display units.
 */
export interface CheckPolicy {
  max_amount?: string;
  /** Token contracts (lower-case) or currency codes the caller accepts. */
  assets?: string[];
  /** CAIP-2 network ids the caller accepts. */
  networks?: string[];
  protocols?: ('x402' | 'mpp')[];
}

/** How the live offers meet the caller's policy. */
export interface PolicyOutcome {
  /** True when at least one live offer meets every member of the policy. */
  satisfied: boolean;
  /** Indexes into the answer's `offers` of the offers that meet it. */
  offers_within_policy: number[];
}

/** How a payer's first inflow of the window is linked to the payTo. */
export type FundingKind = 'pay_to' | 'pay_to_funder' | 'common_funder';

/** A payer whose first listed-token inflow of the window came from a linked address. */
export interface FundingLink {
  payer: string;
  /** Who sent that first inflow (the payer of it). */
  funder: string;
  kind: FundingKind;
  /** Block time of the inflow, UTC Unix seconds. */
  time: number;
  /** Its transaction hash, or null when not stored (retention) or beyond the cited links. */
  tx: string | null;
  /** The payer's nominal paid to the payTo in the window (listed USD, exact decimal). */
  nominal: string | null;
}

/** The payer figures of the service the payTo is attributed to (docs/payments.md `payments`). */
export interface ServicePayers {
  service_id: string;
  count: number;
  distinct_payers: number;
  top_payer_share: number | null;
  self_payments: number;
  nominal: string | null;
}

/** The payer analysis of one payTo (answer member `signals.payers[]`, evidence of the pay_to_* payer reasons). */
export interface PayerAnalysis extends CoveredWindow {
  pay_to: string;
  /** The window analysed, [since, until) in UTC Unix seconds (whole UTC days). */
  since: number;
  until: number;
  /** Payments in listed tokens received in the window (self-payments included). */
  payments: number;
  /** Their nominal, listed USD (exact decimal), or null when none. */
  nominal: string | null;
  /** Payers with a listed-token payment, the payTo itself excluded. */
  distinct_payers: number;
  top_payer: string | null;
  top_payer_payments: number;
  /** A transaction of the top payer paying the payTo (its first of the window), or null when not stored. */
  top_payer_tx: string | null;
  /** The largest payer's share of `nominal`, 0..1, or null when no nominal. */
  top_payer_share: number | null;
  /** Payments where payer = payTo. */
  self_payments: number;
  /** The payer of the payTo's own first listed-token inflow of the window (one address), or null. */
  funder: { address: string; time: number; tx: string | null } | null;
  /** Payers whose first inflow was read (the largest by nominal first, at most PAYERS_EXAMINED_MAX, src/store/trust/payers.ts). */
  payers_examined: number;
  /** True when more payers exist than were examined (the links then cover the largest ones only). */
  capped: boolean;
  /**
   * Share of the nominal (0..1) from the examined payers and self-payments: when capped, self_funded_share and the
   * links are lower bounds, and the true self-funded share is at most self_funded_share + (1 − examined_share).
   */
  examined_share: number | null;
  /** The first funder of more than half of the examined payers (and of at least 3), or null. */
  common_funder: { address: string; payers: number } | null;
  /** Funding links, the largest payers first, at most 20 (FUNDING_LINKS_CITED, src/trust/payers.ts); funding_links_total counts them all. */
  funding_links: FundingLink[];
  funding_links_total: number;
  /** Payers funded by the payTo or by its funder (kinds pay_to, pay_to_funder). */
  self_funded_payers: number;
  /** Share of `nominal` from self-payments and from self-funded payers, 0..1, or null when no nominal. */
  self_funded_share: number | null;
  /** The attributed service's payer figures (URL checks of a listed service), else null. */
  service: ServicePayers | null;
}

/** Everything assessTrust needs. */
export interface TrustEvidence {
  url: string;
  live: LiveFetch;
  /** Offers parsed from the live answer (empty when none). */
  offers: Offer[];
  /** Parser complaints about the live challenge. */
  challenge_errors: string[];
  listing: Listing | null;
  history: OfferHistory | null;
  assets: AssetInfo[];
  pay_to_activity: PayToActivity[];
  ownership: OwnershipEvidence;
  /** null when the service's changes were not read (not listed). */
  recent_changes: RecentChanges | null;
  /** Who pays each live payTo on a network we observe (src/trust/payers.ts); absent when not analysed. */
  payers?: PayerAnalysis[];
  /** The caller's policy; absent or null when none was given. */
  policy?: CheckPolicy | null;
}

/** The signals reported in the answer, one member per signal (docs/trust-check.md). */
export interface Signals {
  live_challenge: { outcome: ProbeOutcome; http_status: number | null; offers: number };
  https: boolean;
  listing: { listed: boolean; first_seen: string | null; checks_total: number | null; checks_healthy: number | null };
  history: {
    compared: boolean;
    pay_to_consistent: boolean | null;
    asset_consistent: boolean | null;
    network_consistent: boolean | null;
    price_ratio: string | null;
  };
  /** The change records weighed (ids as in GET /api/intelligence/changes); since null when none were read. */
  recent_changes: { window_days: number | null; since: string | null; change_ids: number[] };
  price: { network: string | null; asset: string | null; amount_atomic: string | null; amount: string | null; dollars: string | null }[];
  assets: AssetInfo[];
  pay_to_activity: PayToActivity[];
  ownership: OwnershipEvidence['status'];
  networks: { network: string | null; kind: 'mainnet' | 'testnet' | 'unknown' }[];
  directory: { listed: boolean; sources: string[] };
  /** Who pays each live payTo on a network we observe. */
  payers: PayerAnalysis[];
}

/** The output of assessTrust. */
export interface Assessment {
  verdict: Verdict;
  reasons: Reason[];
  signals: Signals;
  /** How the offers meet the caller's policy; null when none was given. */
  policy: PolicyOutcome | null;
}

/** A listed service whose offers name the checked payTo (payee-only check), with the dates they did (the store's read). */
export type PayToListedService = PayToService;

/** Everything assessPayTo needs: the payee-only check (POST /v1/check/pay-to) from chain and intel history alone. */
export interface PayToEvidence {
  /** Lower-case 0x address. */
  pay_to: string;
  /** CAIP-2 network checked. */
  network: string;
  /** Observed inbound payments in listed tokens (count null: a network we do not observe). */
  activity: PayToActivity;
  /** The listed services that advertise or advertised it (newest first, capped); services_total counts them all. */
  services: PayToListedService[];
  services_total: number;
  /** pay_to_changed records within the window that moved a service to this payTo (new_pay_to_activity: [activity]). */
  recent_changes: RecentChanges;
  /** Who pays it; null on a network we do not observe. */
  payers: PayerAnalysis | null;
}

/** The signals of a payee-only check. */
export interface PayToSignals {
  pay_to_activity: PayToActivity[];
  services: { total: number; listed: number };
  recent_changes: Signals['recent_changes'];
  networks: Signals['networks'];
  /** Who pays it (empty on a network we do not observe). */
  payers: PayerAnalysis[];
}

/** The output of assessPayTo. */
export interface PayToAssessment {
  verdict: Verdict;
  reasons: Reason[];
  signals: PayToSignals;
}
