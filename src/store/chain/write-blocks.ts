/**
 * The collector's write of prepared blocks, in a module of its own so that the store writer thread
 * (./writer-thread.ts) loads only what writing needs: not the read side, migrations, PostgreSQL or settings.
 */
import type { Store } from '../store.js';
import { insertObservations } from './write.js';
import { paymentIntelOf } from '../payments/intel-index.js';
import { insertBlockRows } from './finality.js';
import { mergeCoverage } from './coverage.js';
import type { PreparedBlock } from './rows.js';

/** What a write needs of a store: its connection, dialect and the answer cache it clears (a Store has all three). */
export type WriteTarget = Pick<Store, 'db' | 'dialect'> & { cache: Pick<Store['cache'], 'chainWritten'> };

/**
 * writeBlocks (./checkpoint.ts) for blocks already serialized (prepareBlock), as the collector's decode worker hands them
 * over: observations, coverage, block rows and the checkpoint in ONE transaction.
 * @throws the driver's error when the database cannot write (nothing is written then)
 */
export async function writePreparedBlocks(
  store: WriteTarget,
  blocks: PreparedBlock[],
  checkpoint: { height: number; hash: string },
): Promise<void> {
  const now = new Date().toISOString();
  const newest = blocks.length ? Math.max(...blocks.map((b) => b.time)) : null;
  const intel = paymentIntelOf(store);
  await store.db.transaction().execute(async (trx) => {
    // Offers stored since the last write (a primary-key range, usually empty), read in the write's snapshot.
    await intel.refresh(trx);
    await insertObservations(
      trx,
      store.dialect,
      blocks.flatMap((b) => b.observations),
      newest,
      now,
      intel,
    );
    await mergeCoverage(
      trx,
      blocks.map((b) => b.height),
    );
    await insertBlockRows(trx, blocks);
    await trx
      .insertInto('checkpoint')
      .values({ id: 1, height: checkpoint.height, hash: checkpoint.hash.toLowerCase(), updated_at: now })
      .onConflict((oc) => oc.column('id').doUpdateSet({ height: checkpoint.height, hash: checkpoint.hash.toLowerCase(), updated_at: now }))
      .execute();
  });
  store.cache.chainWritten();
}
