/**
 * Filling the payment columns (payer, self_payment, client_fingerprint, server_fingerprint) of rows stored before
 * migration chain_0009_payments (../migrations/chain.ts) from their stored details, with the writer's own rule
 * (./payment-columns.ts). In batches of BACKFILL_BATCH rows in key (seq) order, each batch one transaction of its
 * own that also advances chain_stats.payments_next, as ./pack-details.ts does: an interruption loses at most the
 * batch under way and the next start resumes there. A detail that cannot be read leaves its row's columns null
 * (unknown) and the backfill goes on. Details too old to carry `payer` (written before the decoder recorded it)
 * leave payer null: no guess from `sender`, who is not necessarily who paid.
 */
import { adjustRollups, ROLLUP_COLUMNS } from './rollups.js';
import { FUNDING_COLUMNS, recordFirstFundings } from './first-fundings.js';
import { sql } from 'kysely';
import type { Store } from '../store.js';
import type { ObservationDetail } from '../../domain/observation.js';
import { readStoredDetails } from './stored-details.js';
import { paymentColumnsOf, type PaymentColumns } from './payment-columns.js';
import type { PackProgress } from './pack-details.js';

/** Rows per batch: ~0.4 MB of packed details read and inflated per transaction. */
export const BACKFILL_BATCH = 1_000;

/**
 * Fills the payment columns of the rows of seq in chain_stats' [payments_next, payments_end). Returns how many
 * rows it read (0 after one read of chain_stats when there is nothing to do).
 * @param onProgress called once at the start when there is work, then after each committed batch
 * @param batch rows per batch (default BACKFILL_BATCH)
 * @throws the store's errors (a failed batch is rolled back and resumed by the next call)
 */
export async function backfillPaymentColumns(store: Store, onProgress?: PackProgress, batch = BACKFILL_BATCH): Promise<number> {
  const { db } = store;
  const s = await db.selectFrom('chain_stats').select(['payments_next', 'payments_end']).where('id', '=', 1).executeTakeFirst();
  if (!s || s.payments_next == null || s.payments_end == null) return 0;
  const start = Number(s.payments_next);
  const end = Number(s.payments_end);
  let read = 0;
  onProgress?.(0, end - start);
  for (let next = start; next < end; ) {
    const upTo = Math.min(end, next + batch);
    const rows = await db
      .selectFrom('observations as o')
      .innerJoin('observation_details as d', 'd.seq', 'o.seq')
      .select(['o.seq', 'o.recipient', 'd.detail', 'd.packed'])
      .where('o.seq', '>=', next)
      .where('o.seq', '<', upTo)
      .where('o.payer', 'is', null)
      .execute();
    const filled: (PaymentColumns & { seq: number | string })[] = [];
    const jsons = await readStoredDetails(db, rows);
    for (const [i, r] of rows.entries()) {
      const c = paymentColumnsOf(detailOf(jsons[i]!), r.recipient);
      if (c.payer !== null || c.server_fingerprint !== null || c.client_fingerprint !== null) filled.push({ seq: r.seq, ...c });
    }
    await db.transaction().execute(async (trx) => {
      if (filled.length && store.dialect === 'postgres') {
        // One statement per batch: a round trip per row would dominate on a distant server.
        const col = (k: keyof PaymentColumns) => filled.map((f) => f[k]);
        await sql`update observations o set payer = v.p, self_payment = v.s, client_fingerprint = v.c, server_fingerprint = v.f
                  from unnest(${filled.map((f) => String(f.seq))}::bigint[], ${col('payer')}::text[], ${col('self_payment')}::integer[],
                              ${col('client_fingerprint')}::text[], ${col('server_fingerprint')}::text[]) as v(q, p, s, c, f)
                  where o.seq = v.q`.execute(trx);
      } else {
        for (const { seq, ...c } of filled) await trx.updateTable('observations').set(c).where('seq', '=', seq).execute();
      }
      // Rows that gained a payer now count as payments in the rankings' rollups (./rollups.ts), in this same transaction.
      if (filled.length) {
        const paid = await trx
          .selectFrom('observations')
          .select([...new Set([...ROLLUP_COLUMNS, ...FUNDING_COLUMNS])])
          .where(
            'seq',
            'in',
            filled.map((f) => f.seq),
          )
          .where('payer', 'is not', null)
          .execute();
        await adjustRollups(trx, paid, 1);
        // And as first inflows (./first-fundings.ts): the earliest still wins whatever order they arrive in.
        await recordFirstFundings(trx, paid);
      }
      const done = upTo >= end;
      await trx
        .updateTable('chain_stats')
        .set({ payments_next: done ? null : upTo, payments_end: done ? null : end })
        .where('id', '=', 1)
        .execute();
    });
    read += rows.length;
    next = upTo;
    onProgress?.(next - start, end - start);
  }
  return read;
}

/** A stored detail parsed, or null when it cannot be read (one bad row never stops the backfill). */
function detailOf(json: string | Error): Partial<ObservationDetail> | null {
  if (json instanceof Error) return null;
  try {
    const d = JSON.parse(json) as unknown;
    return d && typeof d === 'object' ? (d as Partial<ObservationDetail>) : null;
  } catch {
    return null;
  }
}
