/**
 * Blocks whose processing failed, counted per height, and the quarantined ones: blocks the collector moved past
 * after `maxAttempts` failures (a gap in coverage, with its reason). The policy is in
 * src/chain/collector/quarantine.ts; this is its table (quarantined_blocks, migration chain_0005_quarantined_blocks).
 */
import type { Store } from '../store.js';

/** One failing or quarantined block. Times ISO 8601. */
export interface QuarantinedBlock {
  height: number;
  hash: string;
  /** The last failure, one line. */
  reason: string;
  attempts: number;
  first_failed_at: string;
  last_failed_at: string;
  /** When collection moved past it; null while it is still retried in order. */
  quarantined_at: string | null;
}

const toBlock = (r: {
  height: number | string;
  hash: string;
  reason: string;
  attempts: number | string;
  first_failed_at: string;
  last_failed_at: string;
  quarantined_at: string | null;
}): QuarantinedBlock => ({ ...r, height: Number(r.height), attempts: Number(r.attempts) });

/**
 * Counts one failed attempt at processing block `height` (one transaction): the row is created or its attempts
 * raised, and it is quarantined (quarantined_at = now) once attempts reach `maxAttempts`. Rows still counting
 * below `belowHeight` (blocks processed since) are dropped, so the count is of failures in a row.
 * @param reason one line; stored as given (the caller shortens it)
 * @returns the row as stored after this attempt
 */
export async function recordBlockFailure(
  store: Store,
  failure: { height: number; hash: string; reason: string },
  maxAttempts: number,
  belowHeight: number,
  now = new Date(),
): Promise<QuarantinedBlock> {
  const at = now.toISOString();
  return store.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('quarantined_blocks').where('quarantined_at', 'is', null).where('height', '<', belowHeight).execute();
    const old = await trx.selectFrom('quarantined_blocks').selectAll().where('height', '=', failure.height).executeTakeFirst();
    const attempts = (old ? Number(old.attempts) : 0) + 1;
    const quarantined_at = old?.quarantined_at ?? (attempts >= maxAttempts ? at : null);
    const row = {
      height: failure.height,
      hash: failure.hash.toLowerCase(),
      reason: failure.reason,
      attempts,
      first_failed_at: old?.first_failed_at ?? at,
      last_failed_at: at,
      quarantined_at,
    };
    if (old) await trx.updateTable('quarantined_blocks').set(row).where('height', '=', failure.height).execute();
    else await trx.insertInto('quarantined_blocks').values(row).execute();
    return toBlock(row);
  });
}

/**
 * The quarantined blocks (collection moved past them), lowest height first.
 * @param limit the most returned (default all)
 */
export async function readQuarantined(store: Store, limit?: number): Promise<QuarantinedBlock[]> {
  let q = store.db.selectFrom('quarantined_blocks').selectAll().where('quarantined_at', 'is not', null).orderBy('height');
  if (limit !== undefined) q = q.limit(limit);
  return (await q.execute()).map(toBlock);
}

/** How many blocks are quarantined. */
export async function countQuarantined(store: Store): Promise<number> {
  const r = await store.db
    .selectFrom('quarantined_blocks')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('quarantined_at', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Forgets block `height` (it was written after all). */
export async function releaseQuarantined(store: Store, height: number): Promise<void> {
  await store.db.deleteFrom('quarantined_blocks').where('height', '=', height).execute();
}
