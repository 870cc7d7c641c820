/**
 * Coverage: merged, non-overlapping intervals of collected block heights. A gap stays a gap (never zeros).
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../schema.js';

/** A closed interval of block heights [first, last]. */
export interface HeightInterval {
  first: number;
  last: number;
}

/**
 * Collapses block heights (any order, duplicates allowed) into sorted runs of consecutive heights.
 * @example heightRuns([5, 3, 4, 9]) → [{first: 3, last: 5}, {first: 9, last: 9}]
 */
export function heightRuns(heights: Iterable<number>): HeightInterval[] {
  const sorted = [...new Set(heights)].sort((a, b) => a - b);
  const runs: HeightInterval[] = [];
  for (const h of sorted) {
    const last = runs[runs.length - 1];
    if (last && h === last.last + 1) last.last = h;
    else runs.push({ first: h, last: h });
  }
  return runs;
}

/**
 * Merges block heights into the coverage table inside the caller's transaction: every stored interval that
 * overlaps or touches a new run is replaced by their union.
 */
export async function mergeCoverage(trx: Transaction<Database>, heights: Iterable<number>): Promise<void> {
  for (const run of heightRuns(heights)) {
    const touching = await trx
      .selectFrom('coverage')
      .select(['first', 'last'])
      .where('first', '<=', run.last + 1)
      .where('last', '>=', run.first - 1)
      .execute();
    let { first, last } = run;
    for (const t of touching) {
      first = Math.min(first, Number(t.first));
      last = Math.max(last, Number(t.last));
    }
    if (touching.length)
      await trx
        .deleteFrom('coverage')
        .where(
          'first',
          'in',
          touching.map((t) => t.first),
        )
        .execute();
    await trx.insertInto('coverage').values({ first, last }).execute();
  }
}

/** The stored coverage intervals, lowest first. */
export async function readCoverage(db: Kysely<Database>): Promise<HeightInterval[]> {
  const rows = await db.selectFrom('coverage').select(['first', 'last']).orderBy('first').execute();
  return rows.map((r) => ({ first: Number(r.first), last: Number(r.last) }));
}

/**
 * One line describing coverage for /api/status, e.g. "blocks 100–250 and 300–400 (252 blocks in 2 intervals;
 * gaps are not zero activity)"; "nothing collected yet" when empty.
 */
export function summarizeCoverage(intervals: HeightInterval[]): string {
  if (!intervals.length) return 'nothing collected yet';
  const blocks = intervals.reduce((n, i) => n + i.last - i.first + 1, 0);
  const shown = intervals.slice(0, 5).map((i) => (i.first === i.last ? `${i.first}` : `${i.first}–${i.last}`));
  const more = intervals.length > 5 ? ` and ${intervals.length - 5} more` : '';
  const gaps = intervals.length > 1 ? '; gaps are not zero activity' : '';
  return `blocks ${shown.join(', ')}${more} (${blocks} blocks in ${intervals.length} interval${intervals.length > 1 ? 's' : ''}${gaps})`;
}
