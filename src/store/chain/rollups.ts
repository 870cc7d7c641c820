/**
 * Payment rollups, kept by the collector in the same transaction as the observations it writes and adjusted when
 * attribution is re-derived (migration chain_0013 rebuilt them in this layout):
 * - `payment_rollups`, per (dimension, subject, payer, UTC day, protocol, self, attribution method, client, contract):
 *   what a service's payments and a ranking page's top payer read (the payer is part of the key, so windows stay exact);
 * - `payment_days`, per (dimension, subject, UTC day, protocol, self, contract): payments and amounts a ranking sums in
 *   SQL over its window, in dimensions service, recipient and payer;
 * - `payment_last_days`, per (dimension, subject, protocol or '*', day): how many payers other than the subject made
 *   their latest payment to it that day. Distinct payers cannot be summed from days, but a window reaching past the
 *   newest stored payment holds exactly the payers whose latest payment falls on or after its first day;
 * - `payment_last_weeks`, the same counts per week of WEEK_DAYS days (day / WEEK_DAYS): a window reads its whole
 *   weeks there and only its first partial week by day, about a third of the rows (migration chain_0023);
 * - `payment_running` and `payment_totals` (./rollup-running.ts): the per-day rows as running sums, protocol '*'
 *   included, so a ranking's window is two rows per group.
 *
 * A payment here is a successful observation with a `payer` (the `from` of the transfer to the recipient, the
 * decoder's member); dimension `service` holds those attributed to a service (`service_id`), `recipient` those
 * with a recipient, `payer` those with a recipient keyed by payer. Amounts are integer columns (./rollup-amounts.ts)
 * per token contract; a payment counts once, on the row of its first contract (or contract '' when it has none).
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { type ExactDecimal, parseDecimal } from '../../domain/money.js';
import type { Database } from '../schema.js';
import { addAmount, addSplit, type AmountColumns, type SplitAmount, splitAmount, zeroAmount } from './rollup-amounts.js';
import { adjustRunning } from './rollup-running.js';
import { parseNominalParts } from './rows.js';
import { adjustPairTotals, type PairDelta, partBound } from './payer-pairs.js';
import { BULK_ROWS, type BulkShape, columnList, marks, runBulk } from './bulk-sql.js';

/** Seconds in a UTC day: rollup rows are keyed by floor(time / DAY_SECONDS). */
export const DAY_SECONDS = 86_400;

/** The rollup dimensions: by service (service_id), by recipient address, by payer address. */
export type RollupDimension = 'service' | 'recipient' | 'payer';

/** A protocol as the rollups key it: an observation's protocol, or `unknown` for null. */
export type RollupProtocol = 'mpp' | 'x402' | 'unknown';

/** Days in a bucket of payment_last_weeks: week w holds days [w·WEEK_DAYS, (w+1)·WEEK_DAYS) since the Unix epoch. */
export const WEEK_DAYS = 7;

/** The protocols and '*' (any), as payment_last_days keys them. */
const LAST_PROTOCOLS = ['mpp', 'x402', 'unknown', '*'] as const;

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

/** The protocol key of a stored protocol value (anything but mpp or x402 is unknown). */
export function rollupProtocol(p: string | null): RollupProtocol {
  return p === 'mpp' || p === 'x402' ? p : 'unknown';
}

/** The key of a payment_rollups row, less its contract. */
export interface RollupKey {
  dim: 'service' | 'recipient';
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
}

/** The payment_rollups keys `o` adds to (none when it is not a successful payment with a payer). */
export function rollupKeysOf(o: RollupSource): RollupKey[] {
  if (o.execution !== 'success' || !o.payer) return [];
  const day = Math.floor(Number(o.time) / DAY_SECONDS);
  const payer = o.payer.toLowerCase();
  const protocol = rollupProtocol(o.protocol);
  const recipient = o.recipient?.toLowerCase() ?? null;
  const self = recipient !== null && recipient === payer ? 1 : 0;
  const out: RollupKey[] = [];
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

/** One table's additive row: key columns, then payments and amounts (and time bounds where the table keeps them). */
interface AddRow extends AmountColumns {
  key: Record<string, string | number>;
  provider: string | null;
  payments: number;
  first_time?: number;
  last_time?: number;
}

/** A rollup table: its name and key columns (its primary key). */
interface Spec {
  table: 'payment_rollups' | 'payment_days';
  key: readonly string[];
  times: boolean;
}

const FINE: Spec = {
  table: 'payment_rollups',
  key: ['dim', 'subject', 'payer', 'day', 'protocol', 'self', 'method', 'client', 'contract'],
  times: true,
};
const DAYS: Spec = { table: 'payment_days', key: ['dim', 'subject', 'day', 'protocol', 'self', 'contract'], times: false };

/** Rows of one statement: at most 17 columns × 100 rows, far under both dialects' bounds. */
const CHUNK = 100;

/**
 * An observation's amounts per contract as accumulate reads them: its nominal parts, or one empty part; each amount
 * also split into the integer columns once (`split`), since one payment adds to several rows.
 */
type Parts = readonly { asset_contract: string; amount: ExactDecimal | null; split: SplitAmount | null }[];

function partsOf(o: RollupSource): Parts {
  const parts = parseNominalParts(o.nominal_parts) ?? [];
  if (!parts.length) return [{ asset_contract: '', amount: null, split: null }];
  return parts.map((p) => {
    const amount = p.asset_contract ? parseDecimal(p.amount) : null;
    return { asset_contract: p.asset_contract, amount, split: amount && splitAmount(amount) };
  });
}

/** Adds the payments at `t` (times `sign`) under `key` to `into`: the count on its first contract's row. */
function accumulate(
  into: Map<string, AddRow>,
  key: Record<string, string | number>,
  provider: string | null,
  parts: Parts,
  t: number,
  sign: 1 | -1,
  times: boolean,
) {
  const base = Object.values(key).join('\u0001');
  parts.forEach((p, i) => {
    const id = `${base}\u0001${p.asset_contract}`;
    let r = into.get(id);
    if (!r) {
      r = {
        key: { ...key, contract: p.asset_contract },
        provider,
        payments: 0,
        ...zeroAmount(),
        ...(times ? { first_time: t, last_time: t } : {}),
      };
      into.set(id, r);
    }
    if (i === 0) r.payments += sign;
    if (p.split) addSplit(r, p.split, sign);
    r.provider ??= provider;
    if (times && sign === 1) {
      r.first_time = Math.min(r.first_time!, t);
      r.last_time = Math.max(r.last_time!, t);
    }
  });
}

const keyWhere = (key: readonly string[], rows: readonly AddRow[]) =>
  sql.join(
    rows.map(
      (r) =>
        sql`(${sql.join(
          key.map((c) => sql`${sql.ref(c)} = ${r.key[c]}`),
          sql` and `,
        )})`,
    ),
    sql` or `,
  );

/** The columns a rollup upsert writes: the key, then provider, payments, amounts (and time bounds). */
const upsertColumns = (spec: Spec) => [
  ...spec.key,
  'provider',
  'payments',
  'whole',
  'frac_hi',
  'frac_lo',
  'big',
  ...(spec.times ? ['first_time', 'last_time'] : []),
];

/** The multi-row upsert of `spec`'s table (./bulk-sql.ts): counts and integer amounts added, big replaced when given. */
function upsertShape(spec: Spec): BulkShape {
  const t = spec.table;
  const add = (c: string) => `"${c}" = ${t}."${c}" + excluded."${c}"`;
  const sets = [
    `provider = coalesce(excluded.provider, ${t}.provider)`,
    add('payments'),
    add('whole'),
    add('frac_hi'),
    add('frac_lo'),
    // Rows without a big part leave it as stored; rows with one carry the new total (read above).
    `big = coalesce(excluded.big, ${t}.big)`,
    ...(spec.times
      ? [
          `first_time = case when excluded.first_time < ${t}.first_time then excluded.first_time else ${t}.first_time end`,
          `last_time = case when excluded.last_time > ${t}.last_time then excluded.last_time else ${t}.last_time end`,
        ]
      : []),
  ];
  const columns = upsertColumns(spec);
  return {
    head: `insert into ${t} (${columnList(columns)}) values `,
    row: marks(columns.length),
    sep: ', ',
    tail: ` on conflict (${columnList(spec.key)}) do update set ${sets.join(', ')}`,
  };
}

/**
 * Adds `rows` to `spec`'s table: payments and integer amounts added in SQL, `big` read, added in JavaScript and
 * written back; with `sign` -1, rows left at zero are deleted. On removal the time bounds stay as they were (they
 * still bound the remaining payments).
 */
async function addRows(db: Kysely<Database>, spec: Spec, rows: readonly AddRow[], sign: 1 | -1): Promise<void> {
  const t = sql.table(spec.table);
  const [shape, columns] = [upsertShape(spec), upsertColumns(spec)];
  for (let i = 0; i < rows.length; i += BULK_ROWS) {
    const part = rows.slice(i, i + BULK_ROWS);
    const withBig = part.filter((r) => r.big !== null);
    if (withBig.length) {
      const held = await sql<
        Record<string, string | number | null>
      >`select ${sql.join(spec.key.map((c) => sql.ref(c)))}, big from ${t} where ${keyWhere(spec.key, withBig)}`.execute(db);
      const bigOf = new Map(held.rows.map((h) => [JSON.stringify(spec.key.map((c) => String(h[c]))), h.big as string | null]));
      for (const r of withBig) {
        const prior = bigOf.get(JSON.stringify(spec.key.map((c) => String(r.key[c]))));
        const sum: AmountColumns = zeroAmount();
        if (prior) addAmount(sum, parseDecimal(prior), 1);
        addAmount(sum, parseDecimal(r.big!), 1);
        r.big = sum.big ?? '0';
      }
    }
    const cells = part.map((r) => columns.map((c) => (c in r.key ? r.key[c] : ((r as unknown as Record<string, unknown>)[c] ?? null))));
    await runBulk(db, shape, cells);
    if (sign === -1)
      await sql`delete from ${t} where (${keyWhere(spec.key, part)}) and payments = 0 and whole = 0 and frac_hi = 0 and frac_lo = 0 and (big is null or big = '0')`.execute(
        db,
      );
  }
}

/** A (dimension, subject, payer) pair's latest day of a non-self payment, per protocol and '*' (any). */
type LastDays = Map<string, Map<string, number>>;

const pairId = (dim: string, subject: string, payer: string) => JSON.stringify([dim, subject, payer]);

// Keys joined as a VALUES list, which PostgreSQL seeks one by one (it planned an OR of keys as a scan).
const LAST_DAYS: BulkShape = {
  head: 'with k (dim, subject, payer) as (values ',
  row: '(?, ?, ?)',
  sep: ', ',
  tail: `) select r.dim, r.subject, r.payer, r.protocol, max(r.day) as day from k join payment_rollups r
    on r.dim = k.dim and r.subject = k.subject and r.payer = k.payer where r.self = 0 and r.payments > 0
    group by r.dim, r.subject, r.payer, r.protocol`,
  unnamed: true,
};

async function lastDaysOf(db: Kysely<Database>, pairs: readonly { dim: string; subject: string; payer: string }[]): Promise<LastDays> {
  const out: LastDays = new Map();
  const rows = await runBulk<{ dim: string; subject: string; payer: string; protocol: string; day: number | string }>(
    db,
    LAST_DAYS,
    pairs.map((p) => [p.dim, p.subject, p.payer]),
  );
  for (const r of rows) {
    const id = pairId(r.dim, r.subject, r.payer);
    const m = out.get(id) ?? new Map<string, number>();
    out.set(id, m);
    const d = Number(r.day);
    m.set(r.protocol, d);
    m.set('*', Math.max(m.get('*') ?? d, d));
  }
  return out;
}

/** `before` with each added non-self payment's day taken where it is later (the latest days after adding `rows`). */
function laterDays(before: LastDays, rows: Iterable<AddRow>): LastDays {
  const out: LastDays = new Map([...before].map(([id, m]) => [id, new Map(m)]));
  for (const r of rows) {
    const k = r.key;
    if (k.self || r.payments <= 0 || k.dim === 'payer') continue;
    const id = pairId(String(k.dim), String(k.subject), String(k.payer));
    const m = out.get(id) ?? new Map<string, number>();
    out.set(id, m);
    const day = Number(k.day);
    for (const p of [String(k.protocol), '*']) m.set(p, Math.max(m.get(p) ?? day, day));
  }
  return out;
}

/** A table of payers' latest payment days, bucketed by `days` days in column `column`. */
interface LatestBuckets {
  table: 'payment_last_days' | 'payment_last_weeks';
  column: 'day' | 'week';
  days: number;
  upsert: BulkShape;
}

const latestBuckets = (table: LatestBuckets['table'], column: LatestBuckets['column'], days: number): LatestBuckets => ({
  table,
  column,
  days,
  upsert: {
    head: `insert into ${table} (dim, subject, protocol, ${column}, payers) values `,
    row: marks(5),
    sep: ', ',
    tail: ` on conflict (dim, subject, protocol, ${column}) do update set payers = ${table}.payers + excluded.payers`,
  },
});

const LATEST_DAYS = latestBuckets('payment_last_days', 'day', 1);
const LATEST_WEEKS = latestBuckets('payment_last_weeks', 'week', WEEK_DAYS);

/** A move of payers' latest payment day: `payers` (signed) more payers of `subject` whose latest day is `day`. */
interface LatestMove {
  dim: string;
  subject: string;
  protocol: string;
  day: number;
  payers: number;
}

/** Applies `moves` to the buckets of `to` (summed per bucket), deleting the rows they bring to zero payers. */
async function moveLatest(db: Kysely<Database>, to: LatestBuckets, moves: Iterable<LatestMove>): Promise<void> {
  const sums = new Map<string, LatestMove>();
  for (const m of moves) {
    const bucket = Math.floor(m.day / to.days);
    const id = JSON.stringify([m.dim, m.subject, m.protocol, bucket]);
    const s = sums.get(id) ?? { ...m, day: bucket, payers: 0 };
    sums.set(id, s);
    s.payers += m.payers;
  }
  const changed = [...sums.values()].filter((m) => m.payers !== 0);
  await runBulk(
    db,
    to.upsert,
    changed.map((m) => [m.dim, m.subject, m.protocol, m.day, m.payers]),
  );
  for (let i = 0; i < changed.length; i += CHUNK) {
    const part = changed.slice(i, i + CHUNK);
    if (part.some((m) => m.payers < 0))
      await sql`delete from ${sql.table(to.table)} where (${sql.join(
        part.map((m) => sql`(dim = ${m.dim} and subject = ${m.subject} and protocol = ${m.protocol} and ${sql.ref(to.column)} = ${m.day})`),
        sql` or `,
      )}) and payers = 0`.execute(db);
  }
}

/**
 * Adds (`sign` 1) or removes (`sign` -1) the payments of `sources` to or from the rollups, inside the caller's
 * transaction (the observations' own write, or the attribution re-derivation's). Payments and amounts are added in
 * SQL (exact integers); a pair's latest day is read before and after, and payment_last_days moves by the
 * difference. Removal is exact only for sources that were added with the same members (callers pass the stored
 * row before it changes).
 */
export async function adjustRollups(
  trx: Transaction<Database> | Kysely<Database>,
  sources: readonly RollupSource[],
  sign: 1 | -1,
  opts: RollupOptions = {},
): Promise<void> {
  const fine = new Map<string, AddRow>();
  const days = new Map<string, AddRow>();
  const running = new Map<string, AddRow>();
  const pairs = new Map<string, { dim: string; subject: string; payer: string }>();
  const bounds = new Map<string, PairDelta>();
  for (const o of sources) {
    const keys = rollupKeysOf(o);
    if (!keys.length) continue;
    const [parts, t] = [partsOf(o), Number(o.time)];
    if (opts.pairs !== false) addPairDeltas(bounds, keys, parts, sign);
    for (const k of keys) {
      const { provider, ...key } = k;
      accumulate(fine, key, provider, parts, t, sign, true);
      const dayKey = { dim: k.dim, subject: k.subject, day: k.day, protocol: k.protocol, self: k.self };
      accumulate(days, dayKey, provider, parts, t, sign, false);
      if (k.dim === 'recipient') accumulate(days, { ...dayKey, dim: 'payer', subject: k.payer }, null, parts, t, sign, false);
      for (const protocol of [k.protocol, '*']) {
        accumulate(running, { ...dayKey, protocol }, provider, parts, t, sign, false);
        if (k.dim === 'recipient')
          accumulate(running, { ...dayKey, protocol, dim: 'payer', subject: k.payer }, null, parts, t, sign, false);
      }
      if (!k.self) pairs.set(pairId(k.dim, k.subject, k.payer), { dim: k.dim, subject: k.subject, payer: k.payer });
    }
  }
  if (!fine.size) return;
  const db: Kysely<Database> = trx;
  await adjustPairTotals(db, [...bounds.values()]);
  const pairList = [...pairs.values()];
  const before = await lastDaysOf(db, pairList);
  await addRows(db, FINE, [...fine.values()], sign);
  await addRows(db, DAYS, [...days.values()], sign);
  if (opts.running !== false)
    await adjustRunning(
      db,
      [...running.values()].map((r) => ({
        group: {
          dim: String(r.key.dim),
          protocol: String(r.key.protocol),
          subject: String(r.key.subject),
          self: Number(r.key.self),
          contract: String(r.key.contract),
        },
        day: Number(r.key.day),
        provider: r.provider,
        payments: r.payments,
        whole: r.whole,
        frac_hi: r.frac_hi,
        frac_lo: r.frac_lo,
        big: r.big,
      })),
    );
  // Adding only moves a pair's latest day forward to the added days; removal reads what is left.
  const after = sign === 1 ? laterDays(before, fine.values()) : await lastDaysOf(db, pairList);
  const moves: LatestMove[] = [];
  for (const p of pairList) {
    const id = pairId(p.dim, p.subject, p.payer);
    const [b, a] = [before.get(id), after.get(id)];
    for (const protocol of LAST_PROTOCOLS) {
      const [db0, da] = [b?.get(protocol), a?.get(protocol)];
      if (db0 === da) continue;
      if (db0 !== undefined) moves.push({ dim: p.dim, subject: p.subject, protocol, day: db0, payers: -1 });
      if (da !== undefined) moves.push({ dim: p.dim, subject: p.subject, protocol, day: da, payers: 1 });
    }
  }
  await moveLatest(db, LATEST_DAYS, moves);
  if (opts.weeks !== false) await moveLatest(db, LATEST_WEEKS, moves);
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
 * Which rollups to keep: `running: false` leaves out the running tables, `pairs: false` payment_payer_totals,
 * `weeks: false` payment_last_weeks (for chain_0013's rebuild, which runs before chain_0016, chain_0019 and chain_0023
 * create them).
 */
export interface RollupOptions {
  running?: boolean;
  pairs?: boolean;
  weeks?: boolean;
}

/** The tables of ./rollup-running.ts. */
const RUNNING_TABLES: readonly string[] = ['payment_running', 'payment_totals'];

/** The rollup tables, in the order a rebuild empties them. */
export const ROLLUP_TABLES = [
  'payment_rollups',
  'payment_days',
  'payment_last_days',
  'payment_last_weeks',
  'payment_running',
  'payment_totals',
  'payment_payer_totals',
] as const;

/**
 * Adds what one payment (its rollup keys and token parts, times `sign`) changes in payment_payer_totals
 * (./payer-pairs.ts) to `into`: each non-self (dimension, subject, payer) gains every part's bound.
 */
function addPairDeltas(into: Map<string, PairDelta>, keys: readonly RollupKey[], parts: Parts, sign: 1 | -1): void {
  let bound = 0n;
  let huge = 0;
  for (const p of parts)
    if (p.amount) {
      const b = partBound(p.amount);
      bound += b.bound;
      huge += b.huge;
    }
  for (const k of keys) {
    if (k.self) continue;
    const id = pairId(k.dim, k.subject, k.payer);
    const d = into.get(id) ?? { dim: k.dim, subject: k.subject, payer: k.payer, bound: 0n, huge: 0 };
    into.set(id, d);
    d.bound += BigInt(sign) * bound;
    d.huge += sign * huge;
  }
}

/** The changes `sources` (times `sign`) make to payment_payer_totals, one per (dimension, subject, payer). */
function pairDeltas(sources: readonly RollupSource[], sign: 1 | -1): PairDelta[] {
  const out = new Map<string, PairDelta>();
  for (const o of sources) {
    const keys = rollupKeysOf(o);
    if (keys.length) addPairDeltas(out, keys, partsOf(o), sign);
  }
  return [...out.values()];
}

/** Calls `step` with the stored observations that have a payer, 2,000 at a time in seq order. */
async function eachPaidStep(db: Kysely<Database>, step: (rows: RollupSource[]) => Promise<void>): Promise<void> {
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
    await step(rows);
    after = Number(rows[rows.length - 1].seq);
  }
}

/** Fills payment_payer_totals from the stored observations (migration chain_0019 on an existing store). */
export async function fillPairTotals(db: Kysely<Database>): Promise<void> {
  await sql`delete from payment_payer_totals`.execute(db);
  await eachPaidStep(db, (rows) => adjustPairTotals(db, pairDeltas(rows, 1)));
}

/**
 * Rebuilds every rollup row from the stored observations (migration chain_0013 on an existing store, and
 * `rebuildRollups` after a bulk import), in seq order, 2,000 observations per step.
 */
export async function rebuildRollups(db: Kysely<Database>, opts: RollupOptions = {}): Promise<void> {
  const left = (t: string) =>
    (opts.running === false && RUNNING_TABLES.includes(t)) ||
    (opts.pairs === false && t === 'payment_payer_totals') ||
    (opts.weeks === false && t === 'payment_last_weeks');
  for (const t of ROLLUP_TABLES) if (!left(t)) await sql`delete from ${sql.table(t)}`.execute(db);
  await eachPaidStep(db, (rows) => adjustRollups(db, rows, 1, opts));
}
