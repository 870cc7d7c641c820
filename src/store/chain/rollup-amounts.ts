/**
 * Exact decimal amounts as integer columns the rollups can sum in SQL (both dialects, no floating point): an amount
 * of at most 18 fraction digits and under 10^15 whole units is `whole` + `frac_hi`/10^9 + `frac_lo`/10^18, each column
 * a non-negative integer under 10^15 / 10^9 / 10^9, so a SQL sum over any realistic number of rows stays exact in
 * 64 bits. Any other amount (a hostile token's, or more than 18 fraction digits) goes to `big`, an exact JSON
 * decimal string summed in JavaScript.
 */
import { sql, type RawBuilder } from 'kysely';
import { addExact, formatExact, parseDecimal, type ExactDecimal } from '../../domain/money.js';

/** The amount columns of a rollup row (sums of the rows' amounts). */
export interface AmountColumns {
  whole: number;
  frac_hi: number;
  frac_lo: number;
  /** Exact decimal string of what the integer columns cannot hold, or null. */
  big: string | null;
}

const E9 = 1_000_000_000n;
const E18 = E9 * E9;
/** Whole units an amount's integer column holds: sums of up to ~9,000 such rows stay under 2^63. */
const WHOLE_MAX = 1_000_000_000_000_000n;

export const zeroAmount = (): AmountColumns => ({ whole: 0, frac_hi: 0, frac_lo: 0, big: null });

/**
 * An amount split once into the integer columns' units (`big` null), or kept whole in `big` when the columns cannot
 * hold it: a payment adds to ~7 rollup rows, and the split (BigInt arithmetic) cost more than the rest of the upkeep.
 */
export interface SplitAmount {
  whole: number;
  frac_hi: number;
  frac_lo: number;
  /** The amount itself when it goes to `big` (more than 18 fraction digits, or 10^15 whole units or more). */
  big: ExactDecimal | null;
}

/** `x` split into the integer columns (signed like `x`), or kept in `big` (see SplitAmount). */
export function splitAmount(x: ExactDecimal): SplitAmount {
  if (x.scale <= 18) {
    const units = x.n * 10n ** BigInt(18 - x.scale);
    const abs = units < 0n ? -units : units;
    if (abs / E18 < WHOLE_MAX) {
      const s = units < 0n ? -1 : 1;
      return { whole: s * Number(abs / E18), frac_hi: s * Number((abs / E9) % E9), frac_lo: s * Number(abs % E9), big: null };
    }
  }
  return { whole: 0, frac_hi: 0, frac_lo: 0, big: x };
}

/** Adds a split amount (times `sign`) to `into`, in place: what addAmount does, without splitting again. */
export function addSplit(into: AmountColumns, x: SplitAmount, sign: 1 | -1): void {
  if (x.big === null) {
    into.whole += sign * x.whole;
    into.frac_hi += sign * x.frac_hi;
    into.frac_lo += sign * x.frac_lo;
    return;
  }
  const n = sign === 1 ? x.big.n : -x.big.n;
  into.big = formatExact(addExact(into.big === null ? { n: 0n, scale: 0 } : parseDecimal(into.big), { n, scale: x.big.scale }));
}

/** Adds decimal `x` (times `sign`) to `into`, in place. */
export function addAmount(into: AmountColumns, x: ExactDecimal, sign: 1 | -1): void {
  addSplit(into, splitAmount(x), sign);
}

/**
 * The exact decimal of summed columns (SQL sums arrive as numbers, bigint strings or null).
 * @returns null when every input is null (no row had a listed part)
 */
export function amountOf(
  whole: number | string | bigint | null,
  hi: number | string | bigint | null,
  lo: number | string | bigint | null,
  big: readonly (string | null)[] = [],
): ExactDecimal | null {
  let v: ExactDecimal | null =
    whole === null && hi === null && lo === null
      ? null
      : { n: BigInt(whole ?? 0) * E18 + BigInt(hi ?? 0) * E9 + BigInt(lo ?? 0), scale: 18 };
  for (const b of big) if (b !== null) v = v === null ? parseDecimal(b) : addExact(v, parseDecimal(b));
  return v;
}

/** The condition `contract in listed` (false when nothing is listed). */
export const listedContract = (listed: readonly string[]): RawBuilder<unknown> =>
  listed.length ? sql`contract in (${sql.join(listed)})` : sql`1 = 0`;

/** Longest token list tested as a chain of equalities in listedSums; a longer one is an IN list (a lookup, not a scan). */
const EQUALITY_CHAIN_MAX = 8;

/**
 * `contract` is one of `listed`, for expressions evaluated on every row (listedSums): a short list as a chain of
 * equalities, since SQLite looks an IN list up in an ephemeral table each time, which cost about a quarter of the
 * payer analysis's grouping (bench/README.md). WHERE clauses keep listedContract, which both planners can use for an index.
 */
const listedTest = (listed: readonly string[]): RawBuilder<unknown> =>
  listed.length === 0 || listed.length > EQUALITY_CHAIN_MAX
    ? listedContract(listed)
    : sql`(${sql.join(
        listed.map((c) => sql`contract = ${c}`),
        sql` or `,
      )})`;

/**
 * Select items summing a rollup table's amounts over the rows whose contract is in `listed` (the token list's
 * lower-case addresses): `w`, `h`, `l` (null when no such row) and `has_big` (1 when one of them has a `big` part).
 */
export function listedSums(listed: readonly string[]): RawBuilder<unknown>[] {
  const isListed = listedTest(listed);
  return [
    sql`sum(case when ${isListed} then whole end) as w`,
    sql`sum(case when ${isListed} then frac_hi end) as h`,
    sql`sum(case when ${isListed} then frac_lo end) as l`,
    sql`max(case when ${isListed} and big is not null then 1 else 0 end) as has_big`,
  ];
}
