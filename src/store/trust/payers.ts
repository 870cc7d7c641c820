/**
 * Store reads of the trust check's payer analysis (src/trust/payers.ts): who paid an address over a window of whole
 * UTC days, and where each payer's first listed-token inflow of the window came from. Both read the per-day payment
 * rollups' `recipient` rows (./../chain/rollups.ts, primary key: dim, subject, payer, day, …), so the work is
 * bounded by the payers and days of the window, never by the size of the observations table; the transaction
 * hashes the evidence cites are then read from observations for a bounded few. SQLite and PostgreSQL alike.
 */
import { sql } from 'kysely';
import type { Store } from '../store.js';
import type { ExactDecimal } from '../../domain/money.js';
import { amountOf, listedContract, listedSums } from '../chain/rollup-amounts.js';
import { DAY_SECONDS } from '../chain/rollups.js';
import { groupBy } from '../../domain/group-by.js';

/** Most payers whose first inflow one analysis reads (the largest by listed nominal first); the evidence says when capped. */
export const PAYERS_EXAMINED_MAX = 1_000;
/**
 * Addresses per IN list of the first-inflow and `big` reads: the examined payers in one statement (each statement is
 * a round trip to PostgreSQL), far under both dialects' bound on parameters (SQLite 32,766, PostgreSQL 65,535).
 */
const INFLOW_CHUNK = PAYERS_EXAMINED_MAX;

/** One payer's payments into an address over a window, summed in SQL from its rollup rows. */
export interface PayerSum {
  /** Lower-case payer address. */
  payer: string;
  /** 1 when payer = recipient (a self-payment). */
  self: number;
  /** Payments with a nominal in any token (a payment is counted once, on its first contract's row). */
  payments: number;
  /** Listed-USD nominal (the listed contracts' amounts at 1 dollar per token), exact; null when none is listed. */
  nominal: ExactDecimal | null;
  /** Earliest payment with a nominal in any token, UTC Unix seconds. */
  first_time: number;
}

/** One address's first listed-token inflow of a window: who paid it, and when. */
export interface FirstInflow {
  /** Lower-case payer of the inflow (ties at one second: the lowest address). */
  address: string;
  /** UTC Unix seconds. */
  time: number;
}

/**
 * The payments received by `recipient` (lower-case) over [since, until) (UTC Unix seconds, multiples of a day), one
 * row per payer: counts and the listed nominal summed in SQL on the rollups' exact integer amount columns
 * (../chain/rollup-amounts.ts), in the order of the rollups' key, so one row per payer crosses to JavaScript. Rows
 * without nominal (contract '') are left out; so is everything when `listed` is empty (nothing can be counted). The
 * `big` parts are read apart, for the payers flagged with one: a string aggregation in the grouping made PostgreSQL
 * sort the window's rows on disk (bench/README.md).
 * @param listed lower-case contracts of the listed tokens
 */
export async function paymentsInto(
  store: Store,
  recipient: string,
  since: number,
  until: number,
  listed: readonly string[],
): Promise<PayerSum[]> {
  if (listed.length === 0) return [];
  const window = sql`dim = 'recipient' and subject = ${recipient} and day >= ${since / DAY_SECONDS} and day < ${until / DAY_SECONDS}`;
  const { rows } = await sql<{
    payer: string;
    payments: number | string;
    first_time: number | string;
    w: number | string | null;
    h: number | string | null;
    l: number | string | null;
    has_big: number | string;
  }>`select payer,
      sum(payments) as payments, min(first_time) as first_time, ${sql.join(listedSums(listed))}
    from payment_rollups where ${window} and contract <> '' group by payer`.execute(store.db);
  const flagged = rows.filter((r) => Number(r.has_big) === 1).map((r) => r.payer);
  const bigRows: { payer: string; big: string }[] = [];
  for (let i = 0; i < flagged.length; i += INFLOW_CHUNK) {
    const b = await sql<{ payer: string; big: string }>`select payer, big from payment_rollups where ${window}
      and payer in (${sql.join(flagged.slice(i, i + INFLOW_CHUNK))}) and big is not null and ${listedContract(listed)}`.execute(store.db);
    bigRows.push(...b.rows);
  }
  const bigs = groupBy(bigRows, (x) => x.payer);
  return rows.map((r) => ({
    payer: r.payer,
    // In dimension recipient a row is a self-payment exactly when its payer is the subject (../chain/rollups.ts).
    self: r.payer === recipient ? 1 : 0,
    payments: Number(r.payments),
    nominal: amountOf(
      r.w,
      r.h,
      r.l,
      bigs.get(r.payer)?.map((x) => x.big),
    ),
    first_time: Number(r.first_time),
  }));
}

/**
 * The first inflow of the window of each of `recipients` (lower-case) with a non-zero listed amount, self-payments
 * left out: one statement per INFLOW_CHUNK recipients, which ranks each recipient's payers by their earliest such
 * rollup row in SQL, so one row per recipient crosses to JavaScript. Recipients with none are absent.
 * @param listed lower-case contracts of the listed tokens
 */
export async function firstInflows(
  store: Store,
  recipients: readonly string[],
  since: number,
  until: number,
  listed: readonly string[],
): Promise<Map<string, FirstInflow>> {
  const out = new Map<string, FirstInflow>();
  if (listed.length === 0) return out;
  for (let i = 0; i < recipients.length; i += INFLOW_CHUNK) {
    const r = await sql<{ subject: string; payer: string; t: number | string }>`
      select subject, payer, t from (
        select subject, payer, min(first_time) as t,
          row_number() over (partition by subject order by min(first_time), payer) as n
        from payment_rollups
        where dim = 'recipient' and subject in (${sql.join(recipients.slice(i, i + INFLOW_CHUNK))})
          and day >= ${since / DAY_SECONDS} and day < ${until / DAY_SECONDS} and self = 0
          and contract in (${sql.join(listed)})
          and (whole <> 0 or frac_hi <> 0 or frac_lo <> 0 or (big is not null and big <> '0'))
        group by subject, payer
      ) ranked where n = 1`.execute(store.db);
    for (const x of r.rows) out.set(x.subject, { address: x.payer, time: Number(x.t) });
  }
  return out;
}

/**
 * The hash of a successful observation at block time `time` (UTC Unix seconds) whose primary leg `payer` paid to
 * `recipient` in one of `contracts` (lower-case listed tokens), or null when none is stored (retention may have
 * dropped it). One index range (recipient, time).
 */
export async function paymentTx(
  store: Store,
  recipient: string,
  payer: string,
  time: number,
  contracts: readonly string[],
): Promise<string | null> {
  if (contracts.length === 0) return null;
  const r = await store.db
    .selectFrom('observations')
    .select('hash')
    .where('recipient', '=', recipient)
    .where('time', '=', time)
    .where('payer', '=', payer)
    .where('execution', '=', 'success')
    .where('asset_contract', 'in', contracts)
    .orderBy('hash')
    .limit(1)
    .executeTakeFirst();
  return r?.hash ?? null;
}
