/**
 * Store reads of the trust check's payer analysis (src/trust/payers.ts): who paid an address over a window of whole
 * UTC days, and where each payer's first listed-token inflow of the window came from. Both read the per-day payment
 * rollups' `recipient` rows (./../chain/rollups.ts, index payment_rollups_subject: dim, subject, day), so the work is
 * bounded by the payers and days of the window, never by the size of the observations table; the transaction
 * hashes the evidence cites are then read from observations for a bounded few. SQLite and PostgreSQL alike.
 */
import type { Store } from '../store.js';
import { DAY_SECONDS } from '../chain/rollups.js';

/** Most payers whose first inflow one analysis reads (the largest by listed nominal first); the evidence says when capped. */
export const PAYERS_EXAMINED_MAX = 5_000;
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

/**
 * The rollup rows of payments received by `recipient` (lower-case) over [since, until) (UTC Unix seconds, multiples
 * of a day), any token: the caller keeps the listed ones.
 */
export async function paymentsInto(store: Store, recipient: string, since: number, until: number): Promise<PaidRow[]> {
  const rows = await store.db
    .selectFrom('payment_rollups')
    .select(['payer', 'self', 'payments', 'nominal_parts', 'first_time', 'last_time'])
    .where('dim', '=', 'recipient')
    .where('subject', '=', recipient)
    .where('day', '>=', since / DAY_SECONDS)
    .where('day', '<', until / DAY_SECONDS)
    .execute();
  return rows.map((r) => ({
    payer: r.payer,
    self: Number(r.self),
    payments: Number(r.payments),
    nominal_parts: r.nominal_parts,
    first_time: Number(r.first_time),
    last_time: Number(r.last_time),
  }));
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
      .select(['subject', 'payer', 'self', 'payments', 'nominal_parts', 'first_time', 'last_time'])
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
        nominal_parts: r.nominal_parts,
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
