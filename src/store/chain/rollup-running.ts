/**
 * Running (cumulative) payment totals, kept with the other rollups (./rollups.ts) so a ranking reads two rows per
 * group instead of summing every day of its window:
 * - `payment_running`, per group (dimension, protocol or '*', subject, self, contract) and UTC day: the day's
 *   payments and amounts, and `cum_*` the sums of the group's rows up to and including that day (always from zero
 *   at the group's oldest row, so a rebuild writes the same rows);
 * - `payment_totals`, per group: the sums of all its rows (the latest row's `cum_*`), its latest day and provider.
 * A window [from, to) of a group is then cum(latest row before `to`) − cum(latest row before `from`), where the
 * first is the totals row when the group's latest day is before `to`.
 *
 * Writes that land on or after a group's latest day (the collector's) add to one row; any other (retention,
 * re-attribution, a block written out of order) rewrites the group's rows (a few dozen days at most).
 */
import { sql, type Kysely } from 'kysely';
import { addExact, formatExact, parseDecimal } from '../../domain/money.js';
import type { Database } from '../schema.js';
import { type BulkShape, columnList, dialectOf, marks, runBulk } from './bulk-sql.js';
import type { DialectName } from '../dialect.js';

/** The key of a running group. */
export interface RunningGroup {
  dim: string;
  /** 'mpp', 'x402', 'unknown' or '*' (any). */
  protocol: string;
  subject: string;
  self: number;
  contract: string;
}

/** One group's change on one day: payments and integer amount columns (./rollup-amounts.ts), signed. */
export interface RunningChange {
  group: RunningGroup;
  day: number;
  provider: string | null;
  payments: number;
  whole: number;
  frac_hi: number;
  frac_lo: number;
  /** Signed exact decimal string of the amount the integer columns cannot hold, or null. */
  big: string | null;
}

const GROUP = ['dim', 'protocol', 'subject', 'self', 'contract'] as const;
const groupId = (g: RunningGroup) => JSON.stringify(GROUP.map((c) => String(g[c])));
const groupWhere = (g: RunningGroup, alias?: string) =>
  sql.join(
    GROUP.map((c) => (alias ? sql`${sql.ref(`${alias}.${c}`)} = ${g[c]}` : sql`${sql.ref(c)} = ${g[c]}`)),
    sql` and `,
  );

/** Sums exact decimal strings (null is zero; null when both are). */
const addBig = (a: string | null, b: string | null): string | null =>
  a === null ? b : b === null ? a : formatExact(addExact(parseDecimal(a), parseDecimal(b)));

/** A group's totals as this write sees them (BigInt: cumulative sums may pass 2^53). */
interface Totals {
  payments: bigint;
  whole: bigint;
  frac_hi: bigint;
  frac_lo: bigint;
  big: string | null;
  last_day: number;
}

/** Groups per statement: 5 key columns × 100 rows, far under both dialects' bounds. */
const CHUNK = 100;

// Each dialect's fastest key lookup: PostgreSQL seeks a joined VALUES list, SQLite seeks an OR of keys one by one.
const READ_TOTALS: Record<DialectName, BulkShape> = {
  postgres: {
    head: `with k (${columnList(GROUP)}) as (values `,
    row: '(?, ?, ?, cast(? as integer), ?)',
    sep: ', ',
    tail: `) select t.* from k join payment_totals t on ${GROUP.map((c) => `t."${c}" = k."${c}"`).join(' and ')}`,
    unnamed: true,
  },
  sqlite: { head: 'select * from payment_totals where ', row: `(${GROUP.map((c) => `"${c}" = ?`).join(' and ')})`, sep: ' or ', tail: '' },
};

async function readTotals(db: Kysely<Database>, groups: readonly RunningGroup[]): Promise<Map<string, Totals>> {
  const out = new Map<string, Totals>();
  const rows = await runBulk<Record<string, string | number | null>>(
    db,
    READ_TOTALS[dialectOf(db)],
    groups.map((g) => GROUP.map((c) => g[c])),
  );
  for (const r of rows)
    out.set(
      groupId({
        dim: String(r.dim),
        protocol: String(r.protocol),
        subject: String(r.subject),
        self: Number(r.self),
        contract: String(r.contract),
      }),
      {
        payments: BigInt(r.payments!),
        whole: BigInt(r.whole!),
        frac_hi: BigInt(r.frac_hi!),
        frac_lo: BigInt(r.frac_lo!),
        big: r.big as string | null,
        last_day: Number(r.last_day),
      },
    );
  return out;
}

const RUN_COLUMNS = [
  ...GROUP,
  'day',
  'payments',
  'whole',
  'frac_hi',
  'frac_lo',
  'big',
  'cum_payments',
  'cum_whole',
  'cum_hi',
  'cum_lo',
  'cum_big',
];
const DELTAS = ['payments', 'whole', 'frac_hi', 'frac_lo'] as const;
const CUMS = ['cum_payments', 'cum_whole', 'cum_hi', 'cum_lo'] as const;

/** A row's cum_* cells (payments, whole, frac_hi, frac_lo as decimal text; big as stored), in RUN_COLUMNS order. */
const cumCells = (cum: Omit<Totals, 'last_day'>) => [
  String(cum.payments),
  String(cum.whole),
  String(cum.frac_hi),
  String(cum.frac_lo),
  cum.big,
];

// An existing row is the group's latest (its cum is the totals): it adds the change to both.
const APPEND: BulkShape = {
  head: `insert into payment_running (${columnList(RUN_COLUMNS)}) values `,
  row: marks(RUN_COLUMNS.length),
  sep: ', ',
  tail: ` on conflict (${columnList([...GROUP, 'day'])}) do update set ${[
    ...DELTAS.map((d) => `"${d}" = payment_running."${d}" + excluded."${d}"`),
    ...CUMS.map((d, k) => `"${d}" = payment_running."${d}" + excluded."${DELTAS[k]}"`),
  ].join(', ')}`,
};

/** Appends changes on or after their groups' latest days: one row each, its cum from the group's totals. */
async function appendRows(db: Kysely<Database>, rows: readonly { c: RunningChange; cum: Totals }[]): Promise<void> {
  await runBulk(
    db,
    APPEND,
    rows.map(({ c, cum }) => [...GROUP.map((k) => c.group[k]), c.day, c.payments, c.whole, c.frac_hi, c.frac_lo, null, ...cumCells(cum)]),
  );
}

/** Groups a rewrite reads and writes per statement (each a few dozen day rows at most). */
const REWRITE_CHUNK = 50;

/**
 * Applies changes that are not appends (a day before a group's latest, a removal, a `big` part): each group's rows
 * are read, the changes added to their days in JavaScript, rows left at zero dropped, the cum summed again from
 * zero at the oldest row, and the group's rows written back (one read, one delete, one insert per 50 groups).
 */
async function rewriteGroups(db: Kysely<Database>, list: readonly { group: RunningGroup; changes: RunningChange[] }[]): Promise<void> {
  type Day = { payments: bigint; whole: bigint; frac_hi: bigint; frac_lo: bigint; big: string | null };
  for (let i = 0; i < list.length; i += REWRITE_CHUNK) {
    const part = list.slice(i, i + REWRITE_CHUNK);
    const where = sql.join(
      part.map(({ group }) => sql`(${groupWhere(group)})`),
      sql` or `,
    );
    const { rows } = await sql<Record<string, string | number | null>>`select * from payment_running where ${where}`.execute(db);
    const held = new Map<string, Map<number, Day>>();
    for (const r of rows) {
      const id = groupId({
        dim: String(r.dim),
        protocol: String(r.protocol),
        subject: String(r.subject),
        self: Number(r.self),
        contract: String(r.contract),
      });
      const days = held.get(id) ?? new Map<number, Day>();
      held.set(id, days);
      days.set(Number(r.day), {
        payments: BigInt(r.payments!),
        whole: BigInt(r.whole!),
        frac_hi: BigInt(r.frac_hi!),
        frac_lo: BigInt(r.frac_lo!),
        big: r.big as string | null,
      });
    }
    const values = [];
    for (const { group, changes } of part) {
      const days = held.get(groupId(group)) ?? new Map<number, Day>();
      for (const c of changes) {
        const d = days.get(c.day) ?? { payments: 0n, whole: 0n, frac_hi: 0n, frac_lo: 0n, big: null };
        days.set(c.day, {
          payments: d.payments + BigInt(c.payments),
          whole: d.whole + BigInt(c.whole),
          frac_hi: d.frac_hi + BigInt(c.frac_hi),
          frac_lo: d.frac_lo + BigInt(c.frac_lo),
          big: nonZero(addBig(d.big, c.big)),
        });
      }
      const cum: Day = { payments: 0n, whole: 0n, frac_hi: 0n, frac_lo: 0n, big: null };
      for (const day of [...days.keys()].sort((x, y) => x - y)) {
        const d = days.get(day)!;
        if (d.payments === 0n && d.whole === 0n && d.frac_hi === 0n && d.frac_lo === 0n && d.big === null) continue;
        cum.payments += d.payments;
        cum.whole += d.whole;
        cum.frac_hi += d.frac_hi;
        cum.frac_lo += d.frac_lo;
        cum.big = nonZero(addBig(cum.big, d.big));
        values.push(
          sql`(${sql.join([
            ...GROUP.map((k) => group[k]),
            day,
            String(d.payments),
            String(d.whole),
            String(d.frac_hi),
            String(d.frac_lo),
            d.big,
            ...cumCells(cum),
          ])})`,
        );
      }
    }
    await sql`delete from payment_running where ${where}`.execute(db);
    for (let j = 0; j < values.length; j += CHUNK)
      await sql`insert into payment_running (${sql.join(RUN_COLUMNS.map((c) => sql.ref(c)))}) values ${sql.join(values.slice(j, j + CHUNK))}`.execute(
        db,
      );
  }
}

/** A big sum of zero is stored as null (no big part), as a rebuild leaves it. */
const nonZero = (b: string | null) => (b === null || parseDecimal(b).n === 0n ? null : b);

const TOTALS_COLUMNS = [...GROUP, 'provider', 'payments', 'whole', 'frac_hi', 'frac_lo', 'big', 'last_day'];
const WRITE_TOTALS: BulkShape = {
  head: `insert into payment_totals (${columnList(TOTALS_COLUMNS)}) values `,
  row: marks(TOTALS_COLUMNS.length),
  sep: ', ',
  tail: ` on conflict (${columnList(GROUP)}) do update set provider = coalesce(excluded.provider, payment_totals.provider),
    payments = excluded.payments, whole = excluded.whole, frac_hi = excluded.frac_hi, frac_lo = excluded.frac_lo, big = excluded.big,
    last_day = excluded.last_day`,
};

/**
 * Applies `changes` to payment_running and payment_totals, inside the caller's transaction.
 * @param changes at most one per (group, day); signs as the rollups' (./rollups.ts adjustRollups)
 */
export async function adjustRunning(db: Kysely<Database>, changes: readonly RunningChange[]): Promise<void> {
  if (!changes.length) return;
  // Each group's id computed once (a comparator computing it was most of a large write's CPU).
  const keyed = changes.map((c) => ({ c, id: groupId(c.group) }));
  keyed.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.c.day - b.c.day));
  const groups = new Map(keyed.map((k) => [k.id, k.c.group]));
  const totals = await readTotals(db, [...groups.values()]);
  const touched = new Map<string, { group: RunningGroup; provider: string | null; removed: boolean }>();
  const pending: { c: RunningChange; cum: Totals }[] = [];
  const rewrites = new Map<string, { group: RunningGroup; changes: RunningChange[] }>();
  // A group is appended to only when every change of it is an addition on or after its latest day.
  const appendable = new Map<string, boolean>();
  for (const { c, id } of keyed) {
    const last = totals.get(id)?.last_day ?? c.day;
    const ok = c.payments >= 0 && c.whole >= 0 && c.frac_hi >= 0 && c.frac_lo >= 0 && c.big === null && c.day >= last;
    appendable.set(id, (appendable.get(id) ?? true) && ok);
  }
  for (const { c, id } of keyed) {
    const t = totals.get(id) ?? { payments: 0n, whole: 0n, frac_hi: 0n, frac_lo: 0n, big: null, last_day: c.day };
    const removal = c.payments < 0 || c.whole < 0 || c.frac_hi < 0 || c.frac_lo < 0 || c.big?.startsWith('-') === true;
    const next: Totals = {
      payments: t.payments + BigInt(c.payments),
      whole: t.whole + BigInt(c.whole),
      frac_hi: t.frac_hi + BigInt(c.frac_hi),
      frac_lo: t.frac_lo + BigInt(c.frac_lo),
      big: nonZero(addBig(t.big, c.big)),
      last_day: Math.max(t.last_day, c.day),
    };
    if (appendable.get(id)) pending.push({ c, cum: next });
    else {
      const r = rewrites.get(id) ?? { group: c.group, changes: [] };
      rewrites.set(id, r);
      r.changes.push(c);
    }
    totals.set(id, next);
    const seen = touched.get(id);
    touched.set(id, { group: c.group, provider: seen?.provider ?? c.provider, removed: (seen?.removed ?? false) || removal });
  }
  await appendRows(db, pending);
  await rewriteGroups(db, [...rewrites.values()]);
  const list = [...touched.entries()];
  // The totals were read in this transaction and carried through every change: written whole.
  await runBulk(
    db,
    WRITE_TOTALS,
    list.map(([id, { group, provider }]) => {
      const t = totals.get(id)!;
      return [
        ...GROUP.map((k) => group[k]),
        provider,
        String(t.payments),
        String(t.whole),
        String(t.frac_hi),
        String(t.frac_lo),
        t.big,
        t.last_day,
      ];
    }),
  );
  for (let i = 0; i < list.length; i += CHUNK) {
    const part = list.slice(i, i + CHUNK);
    const removed = part.filter(([, v]) => v.removed).map(([, v]) => v.group);
    if (removed.length) {
      const where = sql.join(
        removed.map((g) => sql`(${groupWhere(g)})`),
        sql` or `,
      );
      // A removal may have emptied the latest day (or every day) of a group.
      await sql`update payment_totals set last_day = coalesce((select max(r.day) from payment_running r where ${sql.join(
        GROUP.map((c) => sql`r.${sql.ref(c)} = payment_totals.${sql.ref(c)}`),
        sql` and `,
      )}), last_day) where ${where}`.execute(db);
      await sql`delete from payment_totals where (${where}) and not exists (select 1 from payment_running r where ${sql.join(
        GROUP.map((c) => sql`r.${sql.ref(c)} = payment_totals.${sql.ref(c)}`),
        sql` and `,
      )})`.execute(db);
    }
  }
}

/**
 * Fills payment_running and payment_totals from payment_days (migration chain_0016 on an existing store): running
 * sums in SQL (window functions, both dialects); when any day holds a `big` part, day by day through adjustRunning.
 */
export async function buildRunning(db: Kysely<Database>): Promise<void> {
  await sql`delete from payment_running`.execute(db);
  await sql`delete from payment_totals`.execute(db);
  const days = sql`(select dim, protocol, subject, self, contract, day, provider, payments, whole, frac_hi, frac_lo from payment_days
    union all select dim, '*', subject, self, contract, day, max(provider), sum(payments), sum(whole), sum(frac_hi), sum(frac_lo)
    from payment_days group by dim, subject, self, contract, day) d`;
  const big = await sql`select 1 from payment_days where big is not null limit 1`.execute(db);
  if (!big.rows.length) {
    await sql`insert into payment_running (dim, protocol, subject, self, contract, day, payments, whole, frac_hi, frac_lo, big,
      cum_payments, cum_whole, cum_hi, cum_lo, cum_big)
      select dim, protocol, subject, self, contract, day, payments, whole, frac_hi, frac_lo, null,
        sum(payments) over w, sum(whole) over w, sum(frac_hi) over w, sum(frac_lo) over w, null from ${days}
      window w as (partition by dim, protocol, subject, self, contract order by day rows between unbounded preceding and current row)`.execute(
      db,
    );
    await sql`insert into payment_totals (dim, protocol, subject, self, contract, provider, payments, whole, frac_hi, frac_lo, big, last_day)
      select dim, protocol, subject, self, contract, max(provider), sum(payments), sum(whole), sum(frac_hi), sum(frac_lo), null, max(day)
      from ${days} group by dim, protocol, subject, self, contract`.execute(db);
    return;
  }
  for (let after = -1; ; ) {
    const { rows } = await sql<Record<string, string | number | null>>`select * from payment_days where day = (select min(day)
      from payment_days where day > ${after})`.execute(db);
    if (!rows.length) break;
    const changes = new Map<string, RunningChange>();
    for (const r of rows)
      for (const protocol of [String(r.protocol), '*']) {
        const group: RunningGroup = {
          dim: String(r.dim),
          protocol,
          subject: String(r.subject),
          self: Number(r.self),
          contract: String(r.contract),
        };
        const id = groupId(group);
        const c = changes.get(id) ?? {
          group,
          day: Number(r.day),
          provider: null,
          payments: 0,
          whole: 0,
          frac_hi: 0,
          frac_lo: 0,
          big: null,
        };
        changes.set(id, c);
        c.provider ??= r.provider as string | null;
        c.payments += Number(r.payments);
        c.whole += Number(r.whole);
        c.frac_hi += Number(r.frac_hi);
        c.frac_lo += Number(r.frac_lo);
        c.big = addBig(c.big, r.big as string | null);
      }
    await adjustRunning(db, [...changes.values()]);
    after = Number(rows[0].day);
  }
}
