/**
 * Per-(dimension, subject, payer) upper bounds of what a payer ever paid a subject (table `payment_payer_totals`,
 * migration chain_0019_payer_pair_totals), kept with the other rollups (./rollups.ts), so a ranking page finds each
 * subject's largest payer over any window exactly without summing every payer of the subject:
 * - `bound`: the sum over the pair's non-self payments of ceil(amount × 10^6) of each token part, every contract
 *   (listed or not) counted, so it is at least the pair's listed-USD nominal × 10^6 in any window and protocol;
 *   integers, so adding and removing the same payments (collector, retention, re-attribution) gives what a rebuild
 *   gives;
 * - `huge`: parts of 10^6 units or more, left out of `bound` (hostile tokens may carry any amount, and bigint must
 *   not overflow): a pair with huge > 0 has no bound and is always read.
 * A pair's row exists while its bound or huge is above zero.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { cmpExact, type ExactDecimal } from '../../domain/money.js';
import type { Database } from '../schema.js';
import { type BulkShape, marks, runBulk } from './bulk-sql.js';

/** Part amounts from this many units on count in `huge`, not in `bound`. */
const HUGE_UNITS = 1_000_000n;
/** `bound` counts millionths of a unit. */
const SCALE = 6;

/** A pair's change: key, bound and huge (signed). */
export interface PairDelta {
  dim: string;
  subject: string;
  payer: string;
  bound: bigint;
  huge: number;
}

/** What one token part adds to a pair: ceil(amount × 10^6) to bound, or 1 to huge (negative amounts add nothing). */
export function partBound(amount: ExactDecimal): { bound: bigint; huge: number } {
  if (amount.n <= 0n) return { bound: 0n, huge: 0 };
  const unit = 10n ** BigInt(amount.scale);
  if (amount.n >= HUGE_UNITS * unit) return { bound: 0n, huge: 1 };
  const scaled = amount.n * 10n ** BigInt(SCALE);
  return { bound: (scaled + unit - 1n) / unit, huge: 0 };
}

const UPSERT: BulkShape = {
  head: 'insert into payment_payer_totals (dim, subject, payer, bound, huge) values ',
  row: marks(5),
  sep: ', ',
  tail: ` on conflict (dim, subject, payer) do update set bound = payment_payer_totals.bound + excluded.bound,
    huge = payment_payer_totals.huge + excluded.huge`,
};

const DROP_EMPTY: BulkShape = {
  head: 'with k (dim, subject, payer) as (values ',
  row: '(?, ?, ?)',
  sep: ', ',
  tail: `) delete from payment_payer_totals where bound = 0 and huge = 0
    and exists (select 1 from k where k.dim = payment_payer_totals.dim and k.subject = payment_payer_totals.subject
      and k.payer = payment_payer_totals.payer)`,
  unnamed: true,
};

/**
 * Adds `deltas` to payment_payer_totals inside the caller's transaction; rows left at zero are deleted (removals).
 * @param deltas at most one per pair
 */
export async function adjustPairTotals(db: Kysely<Database>, deltas: readonly PairDelta[]): Promise<void> {
  const moved = deltas.filter((d) => d.bound !== 0n || d.huge !== 0);
  await runBulk(
    db,
    UPSERT,
    moved.map((d) => [d.dim, d.subject, d.payer, String(d.bound), d.huge]),
  );
  const shrunk = moved.filter((d) => d.bound < 0n || d.huge < 0);
  await runBulk(
    db,
    DROP_EMPTY,
    shrunk.map((d) => [d.dim, d.subject, d.payer]),
  );
}

/** Candidate pairs read per subject in the first round (each later round reads four times as many). */
const FIRST_CANDIDATES = 4;

/**
 * Each of `subjects`' largest payer's sum over a window, exactly: a subject's pairs are read largest bound first
 * and summed over the window by `windowSums`, until the next pair's bound is at most the largest sum found (no pair
 * after it can be larger: a bound is at least any window's sum) or the subject has no more pairs.
 * @param windowSums the exact listed sums (null: none listed) of the given (subject, payer) pairs over the window,
 *   keyed `subject|payer`; pairs without payments in the window may be absent
 * @returns per subject, the largest sum, or null when no payer paid a listed amount in the window
 */
export async function largestPayerSums(
  db: Kysely<Database>,
  dim: string,
  subjects: readonly string[],
  windowSums: (pairs: readonly { subject: string; payer: string }[]) => Promise<Map<string, ExactDecimal | null>>,
): Promise<Map<string, ExactDecimal | null>> {
  const out = new Map<string, ExactDecimal | null>();
  let open = subjects.map((subject) => ({ subject, seen: 0 }));
  for (let k = FIRST_CANDIDATES; open.length; k *= 4) {
    // One branch per subject: an index seek on (dim, subject, huge, bound) each, read in order.
    const branches = open.map(
      (s, i) =>
        sql`select * from (select subject, payer, bound, huge from payment_payer_totals where dim = ${dim} and subject = ${s.subject}
          order by huge desc, bound desc, payer limit ${k} offset ${s.seen}) ${sql.raw(`c${i}`)}`,
    );
    const { rows } = await sql<{ subject: string; payer: string; bound: string | number; huge: string | number }>`${sql.join(
      branches,
      sql` union all `,
    )}`.execute(db);
    const sums = rows.length ? await windowSums(rows) : new Map<string, ExactDecimal | null>();
    const last = new Map<string, { n: number; bound: bigint; huge: number }>();
    for (const r of rows) {
      const v = sums.get(`${r.subject}|${r.payer}`) ?? null;
      const best = out.get(r.subject) ?? null;
      if (!out.has(r.subject) || (v !== null && cmpExact(v, best) > 0)) out.set(r.subject, v ?? best);
      const l = last.get(r.subject);
      last.set(r.subject, { n: (l?.n ?? 0) + 1, bound: BigInt(r.bound), huge: Number(r.huge) });
    }
    const next: typeof open = [];
    for (const s of open) {
      const l = last.get(s.subject);
      if (!l || l.n < k) continue;
      const best = out.get(s.subject) ?? null;
      const bounded = l.huge === 0 && best !== null && cmpExact({ n: l.bound, scale: SCALE }, best) <= 0;
      if (!bounded) next.push({ subject: s.subject, seen: s.seen + k });
    }
    open = next;
  }
  return out;
}

/** The `with k (k_subject, k_payer) as (values …)` list of `pairs`, for a join on them (names unlike any table's). */
export const pairList = (pairs: readonly { subject: string; payer: string }[]): RawBuilder<unknown> =>
  sql`with k (k_subject, k_payer) as (values ${sql.join(pairs.map((p) => sql`(${p.subject}, ${p.payer})`))})`;
