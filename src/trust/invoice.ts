/**
 * Invoice lines of the trust check: successful checks per key and month; paid keys are billed 0.01 dollars per
 * successful check (docs/trust-check.md), computed exactly with decimal strings (src/domain/money.ts).
 */
import { sumDecimals, toDecimal } from '../domain/money.js';
import type { Store } from '../store/db.js';
import { usageForMonth, type UsageLine } from '../store/trust/index.js';
import { CHECK_PRICE_DOLLARS } from './metering.js';

/** One invoice line. Money members are exact decimal strings; null for free keys (not billed). */
export interface InvoiceLine extends UsageLine {
  unit_price_usd: string | null;
  amount_usd: string | null;
}

/** Multiplies an exact decimal string by a non-negative integer. */
function times(decimal: string, n: number): string {
  const [int, frac = ''] = decimal.split('.');
  return toDecimal(BigInt(int + frac) * BigInt(n), frac.length);
}

/**
 * Prices usage lines.
 * @returns the lines (paid keys with unit price and amount) and the exact total of the paid lines in dollars
 */
export function invoiceLines(usage: UsageLine[]): { lines: InvoiceLine[]; total_usd: string } {
  const lines = usage.map((u) =>
    u.plan === 'paid'
      ? { ...u, unit_price_usd: CHECK_PRICE_DOLLARS, amount_usd: times(CHECK_PRICE_DOLLARS, u.checks) }
      : { ...u, unit_price_usd: null, amount_usd: null },
  );
  return { lines, total_usd: sumDecimals(lines.map((l) => l.amount_usd)) ?? '0' };
}

/**
 * The invoice of one UTC calendar month (`paywatch operator usage`): usage per key, priced by invoiceLines.
 * @param month `YYYY-MM`
 */
export async function monthlyInvoice(
  store: Store,
  month: string,
  filter: { keyId?: string; plan?: 'free' | 'paid' } = {},
): Promise<{ lines: InvoiceLine[]; total_usd: string }> {
  return invoiceLines(await usageForMonth(store, month, filter));
}
