/**
 * An observation's finality as served: `independent_consensus_verified` and the finality `evaluated_at` of its
 * integrity are read when it is answered, from its block's covering check (blocks.finality → finality_checks),
 * not stored in the observation (docs/integrity.md, "Where the flag comes from"). A check recording thus writes
 * one `finality_checks` row and the covered `blocks` rows, never the observations' integrity JSON.
 */
import type { Kysely } from 'kysely';
import type { Integrity } from '../../domain/observation.js';
import type { Database } from '../schema.js';

/** The check covering a block, as the integrity answer needs it. */
export interface BlockFinality {
  status: 'verified' | 'failed' | 'unknown';
  /**
   * ISO 8601: when the check was recorded (the finality `evaluated_at`); null for a check recorded before
   * chain_0015_finality_at_read, whose verdict was then written into its observations' stored integrity.
   */
  checkedAt: string | null;
}

/**
 * The covering check of each stored block among `heights` (a page's: ≤ 100 distinct heights, one lookup each on
 * blocks' primary key). Heights without a `blocks` row or not covered by any check are absent from the map.
 * @param heights block heights (duplicates are fine)
 */
export async function finalityOfHeights(db: Kysely<Database>, heights: readonly number[]): Promise<Map<number, BlockFinality>> {
  const out = new Map<number, BlockFinality>();
  const distinct = [...new Set(heights)];
  if (distinct.length === 0) return out;
  const rows = await db
    .selectFrom('blocks')
    .innerJoin('finality_checks', 'finality_checks.height', 'blocks.finality')
    .select(['blocks.height', 'finality_checks.status', 'finality_checks.checked_at'])
    .where('blocks.height', 'in', distinct)
    .execute();
  for (const r of rows) out.set(Number(r.height), { status: r.status as BlockFinality['status'], checkedAt: r.checked_at ?? null });
  return out;
}

/**
 * The integrity as served: a verified or failed covering check sets `independent_consensus_verified` (true only
 * when verified) and `evaluated_at` (the check's time), in place, keeping the members' order; an unknown check,
 * none, or a check recorded before chain_0015 (its verdict is already in the stored integrity) leaves it as stored.
 * @param integrity the stored integrity, parsed (changed in place and returned)
 */
export function withFinality<I extends Pick<Integrity, 'independent_consensus_verified' | 'evaluated_at'>>(
  integrity: I,
  finality: BlockFinality | undefined | null,
): I {
  if (!finality || finality.status === 'unknown' || finality.checkedAt === null) return integrity;
  integrity.independent_consensus_verified = finality.status === 'verified';
  integrity.evaluated_at = finality.checkedAt;
  return integrity;
}
