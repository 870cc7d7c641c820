/**
 * The attribution pass: re-derives the attribution columns of stored rows when new realms or payTos arrive,
 * without re-collecting the chain. The offers stored since chain_stats.payments_offer_id name the realms and payTos
 * that changed; the rows they can change are read through indexes (the memo's server_fingerprint; the recipient
 * and leg_recipients at or after the payTo was first seen), re-matched from their stored details, and rewritten
 * where the answer differs, in batches of their own transactions. The watermark advances only at the end, so an
 * interrupted pass is simply run again (the rewrite is idempotent). A pass that changed rows bumps the chain's
 * store version (chain_stats.updated_at) so remembered answers refresh.
 */
import { reattributeRollups, ROLLUP_COLUMNS } from '../chain/rollups.js';
import type { Store } from '../store.js';
import { readStoredDetails } from '../chain/stored-details.js';
import { mppFingerprint } from '../../domain/mpp-attribution.js';
import { attributionColumns, legsOfDetailJson } from './attribute-rows.js';
import { paymentIntelOf, realmOf, REFRESH_BUDGET } from './intel-index.js';
import type { AttributionColumns } from './attribute-rows.js';
import { onAttributed } from './attributed.js';

/** Rows re-matched per transaction. */
export const REATTRIBUTE_BATCH = 500;
/** Values per IN list. */
const IN_CHUNK = 500;

/** What a pass did. */
export interface ReattributeResult {
  /** Offers read since the last pass. */
  offers: number;
  /** Rows re-matched. */
  rows: number;
  /** Rows whose columns changed. */
  changed: number;
}

/**
 * Runs one attribution pass over the offers stored since the last one (at most REFRESH_BUDGET offers; call again
 * while `offers` is that many).
 * @throws the store's errors (the watermark is not advanced then; the next pass redoes the work)
 */
export async function reattributePayments(store: Store, offerBudget = REFRESH_BUDGET): Promise<ReattributeResult> {
  const { db } = store;
  const stats = await db.selectFrom('chain_stats').select('payments_offer_id').where('id', '=', 1).executeTakeFirst();
  if (!stats) return { offers: 0, rows: 0, changed: 0 };
  const from = Number(stats.payments_offer_id ?? 0);
  const offers = await db
    .selectFrom('intel_offers')
    .select(['id', 'protocol', 'network', 'pay_to', 'extra', 'observed_at'])
    .where('id', '>', from)
    .orderBy('id')
    .limit(offerBudget)
    .execute();
  if (!offers.length) return { offers: 0, rows: 0, changed: 0 };
  const intel = paymentIntelOf(store);
  // The index must know every offer up to the last one this pass applies.
  while (intel.lastId < Number(offers[offers.length - 1].id) && (await intel.refresh(db)) > 0) {}

  const fingerprints = new Set<string>();
  const payTos = new Map<string, number>();
  for (const o of offers) {
    const t = Math.floor(Date.parse(o.observed_at) / 1000);
    const payTo = typeof o.pay_to === 'string' ? o.pay_to.toLowerCase() : null;
    if (payTo && /^0x[0-9a-f]{40}$/.test(payTo) && Number.isFinite(t)) payTos.set(payTo, Math.min(payTos.get(payTo) ?? t, t));
    if (o.protocol === 'mpp' && o.extra) {
      const realm = realmOf(o.extra);
      if (realm) fingerprints.add(mppFingerprint(realm));
    }
  }

  const seqs = new Set<number>();
  const fps = [...fingerprints];
  for (let i = 0; i < fps.length; i += IN_CHUNK) {
    const rows = await db
      .selectFrom('observations')
      .select('seq')
      .where('server_fingerprint', 'in', fps.slice(i, i + IN_CHUNK))
      .execute();
    for (const r of rows) seqs.add(Number(r.seq));
  }
  for (const [payTo, since] of payTos) {
    const direct = await db.selectFrom('observations').select('seq').where('recipient', '=', payTo).where('time', '>=', since).execute();
    for (const r of direct) seqs.add(Number(r.seq));
    const legs = await db
      .selectFrom('leg_recipients as l')
      .innerJoin('observations as o', 'o.hash', 'l.hash')
      .select('o.seq')
      .where('l.recipient', '=', payTo)
      .where('l.time', '>=', since)
      .execute();
    for (const r of legs) seqs.add(Number(r.seq));
  }

  const all = [...seqs].sort((a, b) => a - b);
  let changed = 0;
  for (let i = 0; i < all.length; i += REATTRIBUTE_BATCH) {
    const batch = all.slice(i, i + REATTRIBUTE_BATCH);
    const rows = await db
      .selectFrom('observations as o')
      .innerJoin('observation_details as d', 'd.seq', 'o.seq')
      .select([
        'o.seq',
        'o.hash',
        'o.time',
        'o.recipient',
        'o.protocol',
        'o.server_fingerprint',
        'o.service_id',
        'o.provider',
        'o.attribution_method',
        'o.attribution_ambiguous',
        'd.detail',
        'd.packed',
      ])
      .where('o.seq', 'in', batch)
      .execute();
    const updates: { seq: number | string; hash: string; set: AttributionColumns }[] = [];
    const jsons = await readStoredDetails(db, rows);
    for (const [i, r] of rows.entries()) {
      const json = jsons[i]!;
      if (json instanceof Error) continue; // An unreadable detail keeps its row as it is.
      const { attribution, ...c } = attributionColumns(r, legsOfDetailJson(json), intel);
      const same =
        c.service_id === r.service_id &&
        c.provider === r.provider &&
        c.attribution_method === r.attribution_method &&
        c.attribution_ambiguous === (r.attribution_ambiguous == null ? null : Number(r.attribution_ambiguous)) &&
        c.protocol === r.protocol;
      if (!same) updates.push({ seq: r.seq, hash: r.hash, set: c });
    }
    if (!updates.length) continue;
    await db.transaction().execute(async (trx) => {
      // The payment rollups move from the rows' old attribution to the new one in this same transaction.
      const seqs = updates.map((u) => u.seq);
      const rollupRows = () =>
        trx
          .selectFrom('observations')
          .select([...ROLLUP_COLUMNS])
          .where('seq', 'in', seqs)
          .orderBy('seq')
          .execute();
      const before = await rollupRows();
      for (const u of updates) await trx.updateTable('observations').set(u.set).where('seq', '=', u.seq).execute();
      await reattributeRollups(trx, before, await rollupRows());
      await onAttributed(
        trx,
        updates.map((u) => u.hash),
      );
    });
    changed += updates.length;
  }

  await db
    .updateTable('chain_stats')
    .set({ payments_offer_id: Number(offers[offers.length - 1].id), ...(changed ? { updated_at: new Date().toISOString() } : {}) })
    .where('id', '=', 1)
    .execute();
  if (changed) store.cache.chainWritten();
  return { offers: offers.length, rows: all.length, changed };
}
