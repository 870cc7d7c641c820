/**
 * Store reads of the trust check's payer analysis (src/trust/payers.ts): who paid an address over a window of whole
 * UTC days, and where each payer's first listed-token inflow of the window came from. Both read the per-day payment
 * rollups' `recipient` rows (./../chain/rollups.ts, primary key: dim, subject, payer, day, …), so the work is
 * bounded by the payers and days of the window, never by the size of the observations table; the transaction
 * hashes the evidence cites are then read from observations for a bounded few. SQLite and PostgreSQL alike.
 */
import { sql } from 'kysely';
import type { Store } from '../store.js';
import { formatExact } from '../../domain/money.js';
import { amountOf } from '../chain/rollup-amounts.js';
import { DAY_SECONDS } from '../chain/rollups.js';

/** Most payers whose first inflow one analysis reads (the largest by listed nominal first); the evidence says when capped. */
export const PAYERS_EXAMINED_MAX = 1_000;
/** Recipients per IN list of the first-inflow read (far under both dialects' bound on parameters). */
const INFLOW_CHUNK = 500;

/** One rollup row of payments into an address: one payer, one UTC day, one protocol. */
export interface PaidRow {
  /** Lower-case payer address. */
  payer: string;
  /** 1 when payer = recipient (a self-payment). */
  self: number;
  payments: number;
  /** Summed NominalParts JSON text `[[contract, amount], …]`, or null. */
  nominal_parts: string | null;
  /** Earliest and latest payment of the row, UTC Unix seconds. */
  first_time: number;
  last_time: number;
}

/** One payer's payments into an address over a window, summed from its rollup rows. */
export interface PayerSum {
  /** Lower-case payer address. */
  payer: string;
  /** 1 when payer = recipient (a self-payment). */
  self: number;
  payments: number;
  /** Every NominalPart of its rows, `[contract, amount]`, not yet summed (any token: the caller keeps the listed). */
  parts: [string, string][];
  /** Earliest payment, UTC Unix seconds. */
  first_time: number;
}

/** A rollup row's summed amount of its one contract as NominalParts JSON text, or null for contract '' (no nominal). */
function partsText(
  contract: string,
  whole: number | string | null,
  hi: number | string | null,
  lo: number | string | null,
  big: string | null,
) {
  const v = contract === '' ? null : amountOf(whole, hi, lo, [big]);
  return v === null ? null : JSON.stringify([[contract, formatExact(v)]]);
}

/**
 * The payments received by `recipient` (lower-case) over [since, until) (UTC Unix seconds, multiples of a day), one
 * row per payer (and self flag): summed in SQL per token contract on the rollups' exact integer amount columns
 * (../chain/rollup-amounts.ts), so one row per payer and contract crosses to JavaScript. Rows without nominal are
 * left out.
 */
export async function paymentsInto(store: Store, recipient: string, since: number, until: number): Promise<PayerSum[]> {
  const bigs = store.dialect === 'postgres' ? sql<string | null>`string_agg(big, '|')` : sql<string | null>`group_concat(big, '|')`;
  const rows = await store.db
    .selectFrom('payment_rollups')
    .select((eb) => [
      'payer',
      'self',
      'contract',
      eb.fn.sum<number | string>('payments').as('payments'),
      eb.fn.min('first_time').as('first_time'),
      eb.fn.sum<number | string>('whole').as('w'),
      eb.fn.sum<number | string>('frac_hi').as('h'),
      eb.fn.sum<number | string>('frac_lo').as('l'),
      bigs.as('bigs'),
    ])
    .where('dim', '=', 'recipient')
    .where('subject', '=', recipient)
    .where('day', '>=', since / DAY_SECONDS)
    .where('day', '<', until / DAY_SECONDS)
    .where('contract', '<>', '')
    .groupBy(['payer', 'self', 'contract'])
    .execute();
  const byPayer = new Map<string, PayerSum>();
  for (const r of rows) {
    const key = `${r.payer}|${r.self}`;
    let sum = byPayer.get(key);
    if (sum === undefined) {
      sum = { payer: r.payer, self: Number(r.self), payments: 0, parts: [], first_time: Number(r.first_time) };
      byPayer.set(key, sum);
    }
    sum.payments += Number(r.payments);
    sum.first_time = Math.min(sum.first_time, Number(r.first_time));
    const amount = amountOf(r.w, r.h, r.l, r.bigs === null ? [] : r.bigs.split('|'));
    if (amount !== null) sum.parts.push([r.contract, formatExact(amount)]);
  }
  return [...byPayer.values()];
}

/**
 * The rollup rows of payments received by each of `recipients` over [since, until), by recipient (self-payments
 * left out). Reads INFLOW_CHUNK recipients per statement; the caller caps how many it passes.
 */
export async function paymentsIntoEach(
  store: Store,
  recipients: readonly string[],
  since: number,
  until: number,
): Promise<Map<string, PaidRow[]>> {
  const out = new Map<string, PaidRow[]>();
  for (let i = 0; i < recipients.length; i += INFLOW_CHUNK) {
    const rows = await store.db
      .selectFrom('payment_rollups')
      .select(['subject', 'payer', 'payments', 'contract', 'whole', 'frac_hi', 'frac_lo', 'big', 'first_time', 'last_time'])
      .where('dim', '=', 'recipient')
      .where('subject', 'in', recipients.slice(i, i + INFLOW_CHUNK))
      .where('day', '>=', since / DAY_SECONDS)
      .where('day', '<', until / DAY_SECONDS)
      .where('self', '=', 0)
      .execute();
    for (const r of rows) {
      const row = {
        payer: r.payer,
        self: 0,
        payments: Number(r.payments),
        nominal_parts: partsText(r.contract, r.whole, r.frac_hi, r.frac_lo, r.big),
        first_time: Number(r.first_time),
        last_time: Number(r.last_time),
      };
      const held = out.get(r.subject);
      if (held) held.push(row);
      else out.set(r.subject, [row]);
    }
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
