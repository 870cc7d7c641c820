/**
 * Exact money arithmetic on decimal strings. Never floats: amounts are bigint-scaled.
 * Canonical decimal form (docs/decoding.md): no exponent, no leading "+", no trailing zeros after
 * the point, no trailing point, "0" for zero, "-" only for negatives.
 */
// ox's Value module alone: viem's index would load hundreds of modules into every command's start-up.
import { format as formatUnits } from 'ox/Value';
import { PaywatchError } from './errors.js';

/** A value that should be an exact decimal string is not (stored data, never the caller's input). */
export class InvalidDecimal extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'invalid_decimal' });
  }
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * Formats an atomic integer amount as a canonical decimal string in token units.
 * @param atomic amount in atomic units (bigint or base-10 integer string)
 * @param decimals the token's decimals (TIP-20: 6)
 * @example toDecimal(1500000n, 6) === '1.5'
 */
export function toDecimal(atomic: bigint | string, decimals: number): string {
  return formatUnits(BigInt(atomic), decimals);
}

/** True when `s` is a decimal string this module can add exactly. */
export function isDecimal(s: string): boolean {
  return DECIMAL.test(s);
}

/** An exact decimal as a bigint numerator over 10^scale (what parseDecimal gives and DecimalSum adds). */
export interface ExactDecimal {
  n: bigint;
  scale: number;
}

/** 10n ** BigInt(k) for the scales tokens use (0–36), computed once. */
const POW10 = Array.from({ length: 37 }, (_, k) => 10n ** BigInt(k));
const pow10 = (k: number): bigint => POW10[k] ?? 10n ** BigInt(k);

/**
 * Splits a decimal string into a bigint numerator and a number of fraction digits.
 * @example parseDecimal('-1.50') // { n: -150n, scale: 2 }
 * @throws InvalidDecimal when `s` is not a decimal string
 */
export function parseDecimal(s: string): ExactDecimal {
  if (!DECIMAL.test(s)) throw new InvalidDecimal(`not a decimal string: ${JSON.stringify(s)}`);
  const dot = s.indexOf('.');
  const n = BigInt(dot < 0 ? s : s.slice(0, dot) + s.slice(dot + 1));
  return { n, scale: dot < 0 ? 0 : s.length - dot - 1 };
}

/** `a + b`, exactly, at the larger scale of the two. */
export function addExact(a: ExactDecimal, b: ExactDecimal): ExactDecimal {
  if (a.scale === b.scale) return { n: a.n + b.n, scale: a.scale };
  return a.scale > b.scale
    ? { n: a.n + b.n * pow10(a.scale - b.scale), scale: a.scale }
    : { n: a.n * pow10(b.scale - a.scale) + b.n, scale: b.scale };
}

/** Canonicalises a bigint numerator with `scale` fraction digits. */
function format(n: bigint, scale: number): string {
  const neg = n < 0n;
  const s = formatUnits(neg ? -n : n, scale);
  return neg && s !== '0' ? `-${s}` : s;
}

/** Compares exact decimals, null lowest. */
export const cmpExact = (a: ExactDecimal | null, b: ExactDecimal | null): number => {
  if (a === null || b === null) return a === null ? (b === null ? 0 : -1) : 1;
  const d = addExact(a, { n: -b.n, scale: b.scale }).n;
  return d > 0n ? 1 : d < 0n ? -1 : 0;
};

/** An ExactDecimal as a canonical decimal string. @example formatExact({ n: 150n, scale: 2 }) // '1.5' */
export function formatExact(x: ExactDecimal): string {
  return format(x.n, x.scale);
}

/**
 * Sums decimal strings exactly; nulls are skipped (unknown is not zero).
 * @returns the canonical decimal sum, or null when every input is null (or there are none)
 * @throws TypeError when an input is not a decimal string
 */
export function sumDecimals(values: Iterable<string | null | undefined>): string | null {
  const sum = new DecimalSum();
  for (const v of values) sum.add(v);
  return sum.count ? sum.value() : null;
}

/** A running exact sum as plain data (a reader thread can send it: structured clone keeps bigint). */
export interface ExactSum extends ExactDecimal {
  /** Number of non-null values added. */
  count: number;
}

/** A sum of nothing: 0, with count 0. */
export function emptySum(): ExactSum {
  return { n: 0n, scale: 0, count: 0 };
}

/** Adds `x` to `sum` in place (null is skipped: unknown is not zero). */
export function addToSum(sum: ExactSum, x: ExactDecimal | null): void {
  if (x === null) return;
  if (x.scale > sum.scale) {
    sum.n *= pow10(x.scale - sum.scale);
    sum.scale = x.scale;
  }
  sum.n += x.scale === sum.scale ? x.n : x.n * pow10(sum.scale - x.scale);
  sum.count++;
}

/** `a + b` of two running sums (values and counts); neither is changed. */
export function mergeSums(a: ExactSum, b: ExactSum): ExactSum {
  return { ...addExact(a, b), count: a.count + b.count };
}

/**
 * A running exact sum for streaming aggregation (metrics over 50,000 rows without arrays).
 */
export class DecimalSum {
  private readonly sum = emptySum();
  /** Number of non-null values added. */
  get count(): number {
    return this.sum.count;
  }
  /** Adds one decimal string; null/undefined is skipped. @throws TypeError on a non-decimal */
  add(v: string | null | undefined): void {
    if (v != null) addToSum(this.sum, parseDecimal(v));
  }
  /** Adds one parsed value (parse once, add to several sums); null is skipped. */
  addExact(p: ExactDecimal | null): void {
    addToSum(this.sum, p);
  }
  /** The canonical decimal sum ("0" when nothing was added). */
  value(): string {
    return formatExact(this.sum);
  }
}
