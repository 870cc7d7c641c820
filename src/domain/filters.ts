/**
 * The common filters of the chain observation endpoints (docs/api-chain.md), defined once as zod
 * schemas: the HTTP routes, the MCP tools and the CSV export all parse with these, so they cannot disagree.
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
    z.number({ error: `must be a base-10 integer${unit}` }).int({ error: `must be an integer${unit}` }).min(min, { error: `must be at least ${min}` }).max(max, { error: `must be at most ${max}` }),
  );
}

const textParam = (max: number, description: string) =>
  z
    .string({ error: 'must be given once, as text' })
    .max(max, { error: `must be at most ${max} characters` })
    .regex(Q_PATTERN, { error: 'may contain only ASCII letters, digits, spaces and : . _ -' })
    .describe(description);

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

/** The members of the common filters, reusable in other zod objects (MCP tool inputs). */
export const filterShape = {
  since: integerParam(0, MAX_UNIX_SECONDS, 'of UTC Unix seconds').optional().describe('Inclusive lower bound on block time, UTC Unix seconds.'),
  until: integerParam(0, MAX_UNIX_SECONDS, 'of UTC Unix seconds').optional().describe('Exclusive upper bound on block time, UTC Unix seconds; fix it while paginating.'),
  q: textParam(Q_MAX, 'Wallet (sender or recipient), transaction hash, token symbol or venue name, matched exactly; ASCII letters, digits, spaces and : . _ - only; at most 140 characters.').optional(),
  asset: textParam(66, 'Token contract (recommended) or symbol (symbols can be ambiguous).').optional(),
  exchange: textParam(Q_MAX, 'Exact venue name, or "unknown" for observations with no identified exchange.').optional(),
  execution: z.enum(['success', 'failed', 'unknown'], { error: 'must be one of success, failed, unknown' }).optional().describe('Execution result: success, failed or unknown (no receipt).'),
};

/** Rejects since ≥ until, naming both parameters. */
function sinceBeforeUntil(f: { since?: number; until?: number }, ctx: z.RefinementCtx) {
  if (f.since !== undefined && f.until !== undefined && f.since >= f.until) {
    ctx.addIssue({ code: 'custom', path: ['since'], message: `must be less than until (since is inclusive, until exclusive; got since=${f.since}, until=${f.until})` });
  }
}

/** Drops empty optional text filters (an empty `q=` from a form means "no filter"). */
function dropEmpty<T extends Record<string, unknown>>(f: T): T {
  const out = { ...f };
  for (const k of ['q', 'asset', 'exchange'] as const) if (typeof out[k] === 'string' && (out[k] as string).trim() === '') delete out[k];
  for (const k of ['q', 'asset', 'exchange'] as const) if (typeof out[k] === 'string') (out as Record<string, unknown>)[k] = (out[k] as string).trim();
  return out;
}

/** Query of /api/metrics and /api/export: the common filters only; unknown parameters are rejected. */
export const FiltersQuery = z.strictObject(filterShape).superRefine(sinceBeforeUntil).transform(dropEmpty);

/** Query of /api/metrics/series: the common filters and the bucket size (hour or day, default hour). */
export const SeriesQuery = z
  .strictObject({
    ...filterShape,
    bucket: z.enum(['hour', 'day'], { error: 'must be one of hour, day' }).default('hour').describe('Bucket size: hour or day (UTC-aligned; default hour).'),
  })
  .superRefine(sinceBeforeUntil)
  .transform(dropEmpty);

/** Query of /api/export: the common filters; `offset` and `limit` are accepted and ignored (docs/api-chain.md). */
export const ExportQuery = z
  .strictObject({
    ...filterShape,
    offset: integerParam(0, OFFSET_MAX, '').optional().describe('Ignored: the export always starts at the newest match.'),
  })
  .superRefine(sinceBeforeUntil)
  .transform(({ offset: _offset, ...f }) => dropEmpty(f));

/** Query of /api/transactions: the common filters plus limit and offset. */
export const TransactionsQuery = z
  .strictObject({
    ...filterShape,
    limit: integerParam(1, LIMIT_MAX, '').default(LIMIT_DEFAULT).describe('Page size, 1..100 (default 30).'),
    offset: integerParam(0, OFFSET_MAX, '').default(0).describe('Rows to skip, 0..1,000,000 (default 0).'),
  })
  .superRefine(sinceBeforeUntil)
  .transform(dropEmpty);

/** Path parameters of /api/transactions/{hash}. */
export const HashParams = z.strictObject({
  hash: z.string().regex(HASH_PATTERN, { error: 'must be 0x followed by 64 hexadecimal digits' }).describe('Transaction hash, 0x + 64 hex digits.'),
});

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
