/**
 * What every area's wire schemas share (docs/api-chain.md): bounds, page sizes, the polling interval and the chain
 * filters' parsed shape, which the store reads. The query parameters themselves (integers, numbers, text, the
 * window rule since < until) are parsed by ./query-params.ts; the areas' own zod schemas are beside their query
 * layers (src/chain/schemas.ts, src/intel/schemas.ts, src/intake/schemas.ts, src/trust/schemas.ts).
 */
import type { Execution } from './observation.js';

/** Largest accepted Unix time in seconds (year 9999); keeps values exact and far from 2^53. */
export const MAX_UNIX_SECONDS = 253_402_300_799;
/** Maximum `q` length (docs/api-chain.md). */
export const Q_MAX = 140;
/** Maximum offset on /api/transactions (docs/api-chain.md). */
export const OFFSET_MAX = 1_000_000;
/** Default and maximum page size (docs/api-chain.md). */
export const LIMIT_DEFAULT = 30;
export const LIMIT_MAX = 100;
/** Poll any public URL at most once every this many seconds (docs/api-chain.md); answers may be reused as long. */
export const POLL_INTERVAL_SECONDS = 5;

/** Transaction hash: 0x and 64 hex digits (docs/api-chain.md). */
export const HASH_PATTERN = /^0x[0-9a-fA-F]{64}$/;
/** Characters allowed in q (docs/api-chain.md): ASCII letters and digits, `:` `.` `_` `-` and spaces. */
export const Q_PATTERN = /^[A-Za-z0-9:._\- ]*$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** An account address filter (payer, recipient): 0x and 40 hex digits, any case. */
export const ADDRESS_PATTERN = ADDRESS;
/** A service id: sha256 hex of the canonical method and URL (src/intel/service-id.ts). */
export const SERVICE_ID_PATTERN = /^[a-f0-9]{64}$/;
/** A provider domain: host name (or [IPv6]) with an optional :port (src/intel/schemas.ts DomainSchema). */
export const DOMAIN_PATTERN = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;
/** Values of the `protocol` filter: an identified protocol, or `unknown` for none. */
export const PROTOCOL_FILTERS = ['mpp', 'x402', 'unknown'] as const;
/**
 * Values of `exclude` (docs/api-chain.md, "Excluding self-payments and self-funded payments"): payments whose payer is
 * their recipient, and payments whose payer's first observed listed-token inflow came from the recipient or from the
 * recipient's own first funder.
 */
export const EXCLUDE_VALUES = ['self_payment', 'self_funded'] as const;
/** One value of `exclude`. */
export type Exclusion = (typeof EXCLUDE_VALUES)[number];
/** Values of /api/metrics/series' `split`: what each bucket is also split by. */
export const SERIES_SPLITS = ['protocol'] as const;

/** Shape of the common filters after parsing (all optional; absent = no constraint). */
export interface ObservationFilters {
  /** Inclusive lower bound on block time, UTC Unix seconds. */
  since?: number;
  /** Exclusive upper bound on block time, UTC Unix seconds. */
  until?: number;
  /** Wallet (sender or recipient), transaction hash, token symbol or venue name; exact match. */
  q?: string;
  /** Token contract (0x + 40 hex) or symbol. */
  asset?: string;
  /** Exact venue name, or "unknown" for observations with no identified exchange. */
  exchange?: string;
  execution?: Execution;
  /** mpp, x402, or "unknown" for observations with no identified protocol. */
  protocol?: (typeof PROTOCOL_FILTERS)[number];
  /** Exact category (src/chain/decode/constants.ts CATEGORIES). */
  category?: string;
  /** Lower-case address of who paid (the `payer` column), exact. */
  payer?: string;
  /** Lower-case address of the primary leg's recipient, exact. */
  recipient?: string;
  /** The attributed service id, exact. */
  service_id?: string;
  /** The attributed service's provider domain (lower-case), exact. */
  provider?: string;
  /** Payments left out (EXCLUDE_VALUES order, no repeats; empty or absent: none). */
  exclude?: Exclusion[];
}

/** How `q` is matched, decided from its form (docs/decisions.md): hash, wallet address, or symbol/venue text. */
export type QueryTarget = { kind: 'hash'; value: string } | { kind: 'wallet'; value: string } | { kind: 'text'; value: string };

/** Classifies a `q` value: 0x+64 hex = transaction hash; 0x+40 hex = wallet (lower-cased); else symbol or venue. */
export function classifyQuery(q: string): QueryTarget {
  if (HASH_PATTERN.test(q)) return { kind: 'hash', value: q.toLowerCase() };
  if (ADDRESS.test(q)) return { kind: 'wallet', value: q.toLowerCase() };
  return { kind: 'text', value: q };
}

/** True when an `asset` value is a token contract address rather than a symbol. */
export function isContractAddress(s: string): boolean {
  return ADDRESS.test(s);
}

/** The rule of each exclusion, in the words `value_method` names it with. */
const EXCLUSION_RULES: Record<Exclusion, string> = {
  self_payment: 'self-payments (payer = recipient)',
  self_funded:
    "self-funded payments (the payer's first observed listed-token inflow came from the recipient or from the recipient's own first funder; one hop, docs/api-chain.md)",
};

/**
 * The sentence a `value_method` gains for `exclude` ('' for none): which payments the figures leave out. A payment
 * whose payer, or whose payer's first inflow, is unknown is never left out.
 * @example exclusionRule(['self_payment']) // " Excluding self-payments (payer = recipient)."
 */
export function exclusionRule(exclude: readonly Exclusion[] | undefined): string {
  if (!exclude?.length) return '';
  return ` Excluding ${exclude.map((e) => EXCLUSION_RULES[e]).join(' and ')}; a payment whose payer or funder is unknown is kept.`;
}
