/**
 * Per-day payment rollups (table `payment_rollups`, migration chain_0010): one row per (dimension, UTC day,
 * subject, payer, protocol, self, attribution method, client fingerprint) with the number of payments and the summed nominal parts, kept by the collector
 * in the same transaction as the observations it writes, and adjusted when attribution is re-derived. Rankings
 * (./rankings.ts) read these instead of observations: a window's distinct payers are exact because the payer is
 * part of the key.
 *
 * A payment here is a successful observation with a `payer` (the `from` of the transfer to the recipient, the
 * decoder's member); dimension `service` holds those attributed to a service (`service_id`), `recipient` those
 * with a recipient. Payer rankings group the `recipient` rows by payer.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { addExact, formatExact, parseDecimal, type ExactDecimal } from '../../domain/money.js';
import type { Database } from '../schema.js';
import { parseNominalParts } from './rows.js';

/** Seconds in a UTC day: rollup rows are keyed by floor(time / DAY_SECONDS). */
export const DAY_SECONDS = 86_400;

/** The rollup dimensions: by service (service_id) and by recipient address. */
export type RollupDimension = 'service' | 'recipient';

/** A protocol as the rollups key it: an observation's protocol, or `unknown` for null. */
export type RollupProtocol = 'mpp' | 'x402' | 'unknown';

/** What one observation contributes to the rollups: its stored members (observations row columns). */
export interface RollupSource {
  /** Block time, UTC Unix seconds. */
  time: number | string;
  execution: string;
  recipient: string | null;
  payer: string | null;
  service_id: string | null;
  provider: string | null;
  protocol: string | null;
  /** Stored NominalParts JSON text ([[contract, amount], …]) or null. */
  nominal_parts: string | null;
  attribution_method: string | null;
  client_fingerprint: string | null;
}

/** One stored rollup row. */
export interface RollupRow {
  dim: RollupDimension;
  day: number;
  subject: string;
  /** Lower-case payer address. */
  payer: string;
  protocol: RollupProtocol;
  /** 1 when payer = recipient (a self-payment, never a distinct payer), else 0. */
  self: number;
  /** Attribution method (dimension service; '' in dimension recipient, which does not depend on attribution). */
  method: string;
  /** MPP client fingerprint (dimension service); '' when anonymous or none, and in dimension recipient. */
  client: string;
  provider: string | null;
  payments: number;
  /** Summed NominalParts JSON text, or null when no payment in the row had any. */
  nominal_parts: string | null;
  /** Earliest and latest payment time in the row, UTC Unix seconds. */
  first_time: number;
  last_time: number;
}

/** The protocol key of a stored protocol value (anything but mpp or x402 is unknown). */
export function rollupProtocol(p: string | null): RollupProtocol {
  return p === 'mpp' || p === 'x402' ? p : 'unknown';
}

/** The rollup rows `o` adds to (none when it is not a successful payment with a payer). */
export function rollupKeysOf(o: RollupSource): Omit<RollupRow, 'payments' | 'nominal_parts' | 'first_time' | 'last_time'>[] {
  if (o.execution !== 'success' || !o.payer) return [];
  const day = Math.floor(Number(o.time) / DAY_SECONDS);
  const payer = o.payer.toLowerCase();
  const protocol = rollupProtocol(o.protocol);
  const recipient = o.recipient?.toLowerCase() ?? null;
  const self = recipient !== null && recipient === payer ? 1 : 0;
  const out: Omit<RollupRow, 'payments' | 'nominal_parts' | 'first_time' | 'last_time'>[] = [];
  if (o.service_id)
    out.push({
      dim: 'service',
      day,
      subject: o.service_id,
      payer,
      protocol,
      self,
      method: o.attribution_method ?? '',
      client: o.client_fingerprint ?? '',
      provider: o.provider,
    });
  if (recipient) out.push({ dim: 'recipient', day, subject: recipient, payer, protocol, self, method: '', client: '', provider: null });
  return out;
}

/** The key columns, in primary-key order. */
const KEY = ['dim', 'day', 'subject', 'payer', 'protocol', 'self', 'method', 'client'] as const;

const keyOf = (r: Pick<RollupRow, (typeof KEY)[number]>) =>
  `${r.dim}|${r.day}|${r.subject}|${r.payer}|${r.protocol}|${r.self}|${r.method}|${r.client}`;

/** Per-contract sums of NominalParts, exact. */
type PartSums = Map<string, ExactDecimal>;

function addParts(into: PartSums, text: string | null, sign: 1 | -1): void {
  for (const p of parseNominalParts(text) ?? []) {
    const x = parseDecimal(p.amount);
    const v = sign === 1 ? x : { n: -x.n, scale: x.scale };
    const held = into.get(p.asset_contract);
    into.set(p.asset_contract, held ? addExact(held, v) : v);
  }
}

/** PartSums as stored (contracts with a zero sum dropped), or null when none is left. */
function partsText(sums: PartSums): string | null {
  const parts = [...sums].filter(([, x]) => x.n !== 0n).map(([c, x]) => [c, formatExact(x)]);
  return parts.length ? JSON.stringify(parts) : null;
}

interface Delta {
  key: Omit<RollupRow, 'payments' | 'nominal_parts' | 'first_time' | 'last_time'>;
  payments: number;
  parts: PartSums;
  first: number;
  last: number;
}

/** Rows of one existence check / upsert statement (13 columns × 100 rows, far under both dialects' bounds). */
const CHUNK = 100;

/**
 * Adds (`sign` 1) or removes (`sign` -1) the payments of `sources` to or from the rollups, inside the caller's
 * transaction (the observations' own write, or the attribution re-derivation's). Read-modify-write of the touched
 * rows only: sums are exact decimals added in JavaScript (never SQL SUM over text); a row left with no payments is
 * deleted. Removal is exact only for sources that were added with the same members (callers pass the stored row
 * before it changes).
 */
export async function adjustRollups(
  trx: Transaction<Database> | Kysely<Database>,
  sources: readonly RollupSource[],
  sign: 1 | -1,
): Promise<void> {
  const deltas = new Map<string, Delta>();
  for (const o of sources) {
    for (const key of rollupKeysOf(o)) {
      const k = keyOf(key);
      let d = deltas.get(k);
      const t = Number(o.time);
      if (!d) {
        d = { key, payments: 0, parts: new Map(), first: t, last: t };
        deltas.set(k, d);
      }
      d.payments += sign;
      addParts(d.parts, o.nominal_parts, sign);
      d.first = Math.min(d.first, t);
      d.last = Math.max(d.last, t);
    }
  }
  if (!deltas.size) return;
  const db: Kysely<Database> = trx;
  const all = [...deltas.values()];
  for (let i = 0; i < all.length; i += CHUNK) {
    const part = all.slice(i, i + CHUNK);
    const existing = await db
      .selectFrom('payment_rollups')
      .selectAll()
      .where((eb) => eb.or(part.map((d) => eb.and(KEY.map((c) => eb(c, '=', d.key[c]))))))
      .execute();
    const held = new Map(existing.map((r) => [keyOf({ ...r, day: Number(r.day), self: Number(r.self) } as RollupRow), r]));
    const upserts: RollupRow[] = [];
    const deletes: Delta[] = [];
    for (const d of part) {
      const h = held.get(keyOf(d.key));
      const payments = (h ? Number(h.payments) : 0) + d.payments;
      if (payments <= 0) {
        if (h) deletes.push(d);
        continue;
      }
      const parts: PartSums = new Map();
      addParts(parts, h?.nominal_parts ?? null, 1);
      for (const [c, x] of d.parts) parts.set(c, parts.has(c) ? addExact(parts.get(c)!, x) : x);
      // On removal the row's time bounds stay as they were: they bound the remaining payments still.
      const first = h ? (sign === 1 ? Math.min(Number(h.first_time), d.first) : Number(h.first_time)) : d.first;
      const last = h ? (sign === 1 ? Math.max(Number(h.last_time), d.last) : Number(h.last_time)) : d.last;
      upserts.push({
        ...d.key,
        provider: d.key.provider ?? h?.provider ?? null,
        payments,
        nominal_parts: partsText(parts),
        first_time: first,
        last_time: last,
      });
    }
    for (const d of deletes)
      await db
        .deleteFrom('payment_rollups')
        .where((eb) => eb.and(KEY.map((c) => eb(c, '=', d.key[c]))))
        .execute();
    if (upserts.length)
      await db
        .insertInto('payment_rollups')
        .values(upserts)
        .onConflict((oc) =>
          oc.columns([...KEY]).doUpdateSet((eb) => ({
            provider: eb.ref('excluded.provider'),
            payments: eb.ref('excluded.payments'),
            nominal_parts: eb.ref('excluded.nominal_parts'),
            first_time: eb.ref('excluded.first_time'),
            last_time: eb.ref('excluded.last_time'),
          })),
        )
        .execute();
  }
}

/**
 * Moves stored payments from their old attribution to their new one (the matcher's re-derivation of service_id,
 * provider and attribution_method), inside the transaction that rewrites the rows.
 * @param before the rows' ROLLUP_COLUMNS as stored before the change; `after` the same rows after it
 */
export async function reattributeRollups(
  trx: Transaction<Database> | Kysely<Database>,
  before: readonly RollupSource[],
  after: readonly RollupSource[],
): Promise<void> {
  await adjustRollups(trx, before, -1);
  await adjustRollups(trx, after, 1);
}

/** Columns of observations the rollups read (RollupSource). */
export const ROLLUP_COLUMNS = [
  'time',
  'execution',
  'recipient',
  'payer',
  'service_id',
  'provider',
  'protocol',
  'nominal_parts',
  'attribution_method',
  'client_fingerprint',
] as const;

/**
 * Rebuilds every rollup row from the stored observations (migration chain_0010 on an existing store, and
 * `rebuildRollups` after a bulk import), in seq order, 2,000 observations per step.
 */
export async function rebuildRollups(db: Kysely<Database>): Promise<void> {
  await sql`delete from payment_rollups`.execute(db);
  for (let after = -1; ; ) {
    const rows = await db
      .selectFrom('observations')
      .select(['seq', ...ROLLUP_COLUMNS])
      .where('seq', '>', after)
      .where('payer', 'is not', null)
      .orderBy('seq')
      .limit(2000)
      .execute();
    if (!rows.length) break;
    await adjustRollups(db, rows, 1);
    after = Number(rows[rows.length - 1].seq);
  }
}
