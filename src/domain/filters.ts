/**
 * What every area's wire schemas share (docs/api-chain.md): bounds, page sizes, the polling interval, the integer
 * parameter, the window rule (since < until) and the chain filters' parsed shape, which the store reads. The
 * areas' own zod schemas are beside their query layers (src/chain/schemas.ts, src/intel/schemas.ts,
 * src/intake/schemas.ts, src/trust/schemas.ts).
 * Query-string values arrive as strings; integers must be plain base-10 digits (no sign, exponent or hex).
 */
import { z } from 'zod';
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

/**
 * A base-10 integer query parameter in [min, max]. Strings of digits become numbers; anything else
 * (empty, sign, exponent, hex, fraction, repeated parameter) fails with a message naming the rule.
 */
export function integerParam(min: number, max: number, what: string) {
  const unit = what ? ` ${what}` : '';
  return z.preprocess(
    (v) => (typeof v === 'string' && /^\d{1,16}$/.test(v) ? Number(v) : v),
    z
      .number({ error: `must be a base-10 integer${unit}` })
      .int({ error: `must be an integer${unit}` })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` }),
  );
}

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
}

/** Rejects since ≥ until, naming both parameters (the chain filters' window rule, as a schema refinement). */
export function sinceBeforeUntil(f: { since?: number; until?: number }, ctx: z.RefinementCtx) {
  if (f.since !== undefined && f.until !== undefined && f.since >= f.until) {
    ctx.addIssue({
      code: 'custom',
      path: ['since'],
      message: `must be less than until (since is inclusive, until exclusive; got since=${f.since}, until=${f.until})`,
    });
  }
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
