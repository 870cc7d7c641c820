/**
 * The collected part of a time window: which of [since, until) the coverage (block-height intervals) spans, in
 * block time, so an aggregate can say what its counts are over (a gap is unknown, never zero activity).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { readCoverage } from './coverage.js';

/** The collected part of a window. */
export interface CoveredWindow {
  /** Earliest collected time in the window, UTC Unix seconds; null when nothing of it is collected. */
  covered_since: number | null;
  /** Exclusive end of the collected part, UTC Unix seconds (at most the newest collected block + 1); null when none. */
  covered_until: number | null;
  /**
   * True when the window holds no gap: one collected interval spans it from `since` up to `until` or up to the
   * newest collected block (the time after that block is not collected yet, not a gap).
   */
  complete: boolean;
}

/**
 * Block time of the first (`edge` first) or last block of a collected height interval: from `blocks` (the
 * collector's own rows) or else from the observations at those heights (seeded stores keep no blocks rows).
 */
async function edgeTime(db: Kysely<Database>, first: number, last: number, edge: 'first' | 'last'): Promise<number | null> {
  const h = edge === 'first' ? first : last;
  const b = await db.selectFrom('blocks').select('time').where('height', '=', h).executeTakeFirst();
  if (b) return Number(b.time);
  // The time index read in order stops at the first row inside the interval (heights grow with time).
  const o = await db
    .selectFrom('observations')
    .select('time')
    .where('height', '>=', first)
    .where('height', '<=', last)
    .orderBy('time', edge === 'first' ? 'asc' : 'desc')
    .limit(1)
    .executeTakeFirst();
  return o ? Number(o.time) : null;
}

/**
 * The collected part of [since, until) (UTC Unix seconds, since < until).
 * @returns covered_since/covered_until null and complete false when no collected block falls in the window
 */
export async function coveredWindow(db: Kysely<Database>, since: number, until: number): Promise<CoveredWindow> {
  const intervals = await readCoverage(db);
  const spans: { from: number; to: number }[] = [];
  for (const i of intervals) {
    // Both edges at once: on PostgreSQL each read is a round trip, and this one is on the payer analysis's path.
    const [from, to] = await Promise.all([edgeTime(db, i.first, i.last, 'first'), edgeTime(db, i.first, i.last, 'last')]);
    if (from !== null && to !== null) spans.push({ from, to: to + 1 });
  }
  const inWindow = spans.filter((s) => s.from < until && s.to > since);
  if (!inWindow.length) return { covered_since: null, covered_until: null, complete: false };
  const covered_since = Math.max(since, Math.min(...inWindow.map((s) => s.from)));
  const covered_until = Math.min(until, Math.max(...inWindow.map((s) => s.to)));
  const newest = Math.max(...spans.map((s) => s.to));
  const complete = inWindow.length === 1 && inWindow[0].from <= since && inWindow[0].to >= Math.min(until, newest);
  return { covered_since, covered_until, complete };
}
