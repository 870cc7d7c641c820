/**
 * Exact money arithmetic on decimal strings. Never floats: amounts are bigint-scaled.
 * Canonical decimal form (docs/decoding.md): no exponent, no leading "+", no trailing zeros after
 * the point, no trailing point, "0" for zero, "-" only for negatives.
 */
// ox's Value module alone: viem's index would load hundreds of modules into every command's start-up.
import { format as formatUnits } from 'ox/Value';

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

/** Splits a decimal string into a bigint numerator and a number of fraction digits. Throws on a non-decimal. */
function parse(s: string): { n: bigint; scale: number } {
  if (!DECIMAL.test(s)) throw new TypeError(`not a decimal string: ${JSON.stringify(s)}`);
  const neg = s.startsWith('-');
  const body = neg ? s.slice(1) : s;
  const [int, frac = ''] = body.split('.');
  const n = BigInt(int + frac);
  return { n: neg ? -n : n, scale: frac.length };
}

/** Canonicalises a bigint numerator with `scale` fraction digits. */
function format(n: bigint, scale: number): string {
  const neg = n < 0n;
  const s = formatUnits(neg ? -n : n, scale);
  return neg && s !== '0' ? `-${s}` : s;
}

/**
 * Sums decimal strings exactly; nulls are skipped (unknown is not zero).
 * @returns the canonical decimal sum, or null when every input is null (or there are none)
 * @throws TypeError when an input is not a decimal string
 */
export function sumDecimals(values: Iterable<string | null | undefined>): string | null {
  let acc = 0n;
  let scale = 0;
  let seen = false;
  for (const v of values) {
    if (v == null) continue;
    seen = true;
    const p = parse(v);
    if (p.scale > scale) {
      acc *= 10n ** BigInt(p.scale - scale);
      scale = p.scale;
    }
    acc += p.n * 10n ** BigInt(scale - p.scale);
  }
  return seen ? format(acc, scale) : null;
}

/**
 * A running exact sum for streaming aggregation (metrics over 50,000 rows without arrays).
 */
export class DecimalSum {
  private acc = 0n;
  private scale = 0;
  /** Number of non-null values added. */
  count = 0;
  /** Adds one decimal string; null/undefined is skipped. @throws TypeError on a non-decimal */
  add(v: string | null | undefined): void {
    if (v == null) return;
    const p = parse(v);
    if (p.scale > this.scale) {
      this.acc *= 10n ** BigInt(p.scale - this.scale);
      this.scale = p.scale;
    }
    this.acc += p.n * 10n ** BigInt(this.scale - p.scale);
    this.count++;
  }
  /** The canonical decimal sum ("0" when nothing was added). */
  value(): string {
    return format(this.acc, this.scale);
  }
}
