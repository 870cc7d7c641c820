/**
 * Packing the details of a store written before migration chain_0007 (../migrations/chain.ts): each row's JSON
 * text is compressed into `packed` and its `detail` emptied, and its observation's integrity packed (detail-codec.ts
 * packIntegrity), in batches of PACK_BATCH rows in key (seq) order,
 * each batch one transaction of its own that also advances chain_stats.pack_next. An interruption loses at most
 * the batch under way; the next start resumes at pack_next. Reads take either form (detail-codec.ts
 * storedDetailJson), so a store being packed answers the same throughout.
 */
import { sql } from 'kysely';
import type { Store } from '../store.js';
import { packDetail, packIntegrity } from './detail-codec.js';

/** Rows per batch: ~3.3 MB of JSON read and ~0.4 MB written per transaction. */
export const PACK_BATCH = 1_000;

/** Progress of the packing: rows done and rows to do in all (seq numbers, from the range at its start). */
export type PackProgress = (done: number, total: number) => void;

/**
 * Packs every detail still stored as JSON text (seq in chain_stats' [pack_next, pack_end)). Returns how many rows
 * it packed (0 after one read of chain_stats on a store already packed).
 * @param onProgress called once at the start when there is work, then after each committed batch
 * @param batch rows per batch (default PACK_BATCH)
 */
export async function packPendingDetails(store: Store, onProgress?: PackProgress, batch = PACK_BATCH): Promise<number> {
  const { db } = store;
  const s = await db.selectFrom('chain_stats').select(['pack_next', 'pack_end']).where('id', '=', 1).executeTakeFirst();
  if (!s || s.pack_next == null || s.pack_end == null) return 0;
  const start = Number(s.pack_next);
  const end = Number(s.pack_end);
  let packedRows = 0;
  onProgress?.(0, end - start);
  for (let next = start; next < end; ) {
    const upTo = Math.min(end, next + batch);
    const rows = await db
      .selectFrom('observation_details')
      .select(['seq', 'detail'])
      .where('seq', '>=', next)
      .where('seq', '<', upTo)
      .where('packed', 'is', null)
      .execute();
    const packed = rows.map((r) => packDetail(r.detail));
    const integrity = (
      await db.selectFrom('observations').select(['seq', 'integrity']).where('seq', '>=', next).where('seq', '<', upTo).execute()
    )
      .map((r) => ({ seq: r.seq, was: r.integrity, now: packIntegrity(r.integrity) }))
      .filter((r) => r.now !== r.was);
    await db.transaction().execute(async (trx) => {
      if (integrity.length && store.dialect === 'postgres') {
        await sql`update observations o set integrity = v.i
                  from unnest(${integrity.map((r) => String(r.seq))}::bigint[], ${integrity.map((r) => r.now)}::text[]) as v(s, i)
                  where o.seq = v.s`.execute(trx);
      } else {
        for (const r of integrity) await trx.updateTable('observations').set({ integrity: r.now }).where('seq', '=', r.seq).execute();
      }
      if (rows.length && store.dialect === 'postgres') {
        // One statement per batch: a round trip per row would dominate on a distant server.
        await sql`update observation_details d set packed = v.p, detail = ''
                  from unnest(${rows.map((r) => String(r.seq))}::bigint[], ${packed}::bytea[]) as v(s, p)
                  where d.seq = v.s`.execute(trx);
      } else {
        for (let i = 0; i < rows.length; i++)
          await trx.updateTable('observation_details').set({ packed: packed[i], detail: '' }).where('seq', '=', rows[i].seq).execute();
      }
      const done = upTo >= end;
      await trx
        .updateTable('chain_stats')
        .set({ pack_next: done ? null : upTo, pack_end: done ? null : end })
        .where('id', '=', 1)
        .execute();
    });
    packedRows += rows.length;
    next = upTo;
    onProgress?.(next - start, end - start);
  }
  return packedRows;
}
