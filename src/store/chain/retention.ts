/**
 * Retention (`--retain-days`): deleting the observations older than a cutoff time, with their details, their
 * leg_recipients rows, their blocks (and those blocks' finality checks and quarantine records), in small batches,
 * each one transaction of its own, so the collector's writes wait at most one batch.
 *
 * Each batch deletes every observation up to a block time `t` (never part of one second's observations), so in an
 * ordered store the rows gone are always the lowest seqs and chain_stats.dropped stays the lowest retained seq
 * (rank arithmetic, ./query.ts). The finality counters lose the observations of the blocks dropped, and coverage
 * is trimmed to the retained heights: `retained_from_time`/`retained_from_height` say from where data is kept,
 * so a dropped range reads neither as a gap nor as zero activity (/api/coverage `historical`). The payment rollups
 * (./rollups.ts) lose the dropped payments in the same batch (dropRollups).
 */
import { sql, type Transaction } from 'kysely';
import type { Database } from '../schema.js';
import type { Store } from '../store.js';
import { readStoredDetails } from './stored-details.js';
import { adjustRollups, DAY_SECONDS, ROLLUP_COLUMNS, rollupKeysOf, type RollupSource } from './rollups.js';

/** Observations per batch at most (unless one block second holds more): ~26 ms of CPU on SQLite at load 16 (bench/retention.ts). */
export const RETENTION_BATCH = 200;
/** Blocks read per batch at most (empty blocks included). */
export const RETENTION_BLOCKS = 2_000;

/** What one batch dropped. */
export interface RetentionBatch {
  observations: number;
  blocks: number;
  /** True when nothing older than the cutoff is left. */
  done: boolean;
}

/** From where data is retained (chain_stats), or null when retention never dropped anything. */
export interface RetentionState {
  /** Observations dropped so far. */
  dropped: number;
  /** Oldest block time kept, UTC Unix seconds (everything before was dropped). */
  retainedFromTime: number;
  /** Lowest block height kept after the last drop (null when no block row was dropped). */
  retainedFromHeight: number | null;
}

/**
 * Reads the retention state.
 * @returns null when nothing was ever dropped
 */
export async function readRetention(store: Store): Promise<RetentionState | null> {
  const r = await store.db
    .selectFrom('chain_stats')
    .select(['dropped', 'retained_from_time', 'retained_from_height'])
    .where('id', '=', 1)
    .executeTakeFirst();
  if (!r || r.retained_from_time == null) return null;
  return {
    dropped: Number(r.dropped),
    retainedFromTime: Number(r.retained_from_time),
    retainedFromHeight: r.retained_from_height == null ? null : Number(r.retained_from_height),
  };
}

/**
 * Drops one batch of what is older than `cutoff`: the observations up to a block time t < cutoff (at most about
 * `batch` of them), and the blocks of those times (at most RETENTION_BLOCKS).
 * @param cutoff UTC Unix seconds: everything with a block time strictly below it goes
 * @param batch observations per batch (default RETENTION_BATCH)
 * @throws the driver's error (nothing of the batch is deleted then)
 */
export async function dropBatch(store: Store, cutoff: number, batch = RETENTION_BATCH): Promise<RetentionBatch> {
  const pg = store.dialect === 'postgres';
  const result = await store.db.transaction().execute(async (trx) => {
    // finality_state before chain_stats, the order recordFinality (./finality.ts) takes them in: no lock cycle.
    if (pg) await trx.selectFrom('finality_state').select('id').where('id', '=', 1).forUpdate().execute();
    let statsQ = trx.selectFrom('chain_stats').selectAll().where('id', '=', 1);
    if (pg) statsQ = statsQ.forUpdate();
    const stats = await statsQ.executeTakeFirstOrThrow();
    // The upper time t of this batch: the oldest `batch` observations, without the second the last of them is in
    // (unless that second is all there is), so each batch ends at a whole second.
    const oldest = await trx
      .selectFrom('observations')
      .select('time')
      .where('time', '<', cutoff)
      .orderBy('time', 'asc')
      .orderBy('hash', 'desc')
      .limit(batch)
      .execute();
    let upTo = cutoff - 1;
    if (oldest.length === batch) {
      const first = Number(oldest[0].time);
      const last = Number(oldest[oldest.length - 1].time);
      upTo = last > first ? last - 1 : last;
    }
    // Blocks up to t, lowest first; capped at RETENTION_BLOCKS and then at a block whose successor is a later second.
    const blocks = await trx
      .selectFrom('blocks')
      .select(['height', 'time'])
      .orderBy('height', 'asc')
      .limit(RETENTION_BLOCKS + 1)
      .execute();
    let n = 0;
    while (n < blocks.length && Number(blocks[n].time) <= upTo) n++;
    if (n > RETENTION_BLOCKS) {
      n = RETENTION_BLOCKS;
      while (n > 1 && Number(blocks[n - 1].time) === Number(blocks[n].time)) n--;
      upTo = Math.min(upTo, Number(blocks[n - 1].time));
    }
    const lastBlock = n > 0 ? Number(blocks[n - 1].height) : null;

    const gone = await trx
      .selectFrom('observations')
      .leftJoin('observation_details', 'observation_details.seq', 'observations.seq')
      .select(['observations.seq', 'observations.hash', 'observations.height', 'observations.recipient'])
      .select(['observation_details.detail', 'observation_details.packed'])
      .where('observations.time', '<=', upTo)
      .execute();
    await deleteObservations(trx, gone, upTo);
    if (lastBlock !== null) await dropBlocks(trx, lastBlock, pg);
    const topHeight = Math.max(lastBlock ?? -1, ...gone.map((g) => Number(g.height)));
    if (topHeight >= 0) await trimCoverage(trx, topHeight + 1);
    const dropped = Number(stats.dropped) + gone.length;
    const moved = gone.length > 0 || lastBlock !== null;
    if (moved)
      await trx
        .updateTable('chain_stats')
        .set({
          dropped,
          retained_from_time: Math.max(Number(stats.retained_from_time ?? 0), upTo + 1),
          retained_from_height:
            topHeight >= 0 ? Math.max(Number(stats.retained_from_height ?? 0), topHeight + 1) : stats.retained_from_height,
          updated_at: new Date().toISOString(),
        })
        .where('id', '=', 1)
        .execute();
    // Done: every observation before the cutoff was in this batch, and the first block kept is not before it.
    const observationsDone = oldest.length < batch && upTo === cutoff - 1;
    const blocksDone = n < blocks.length ? Number(blocks[n].time) >= cutoff : blocks.length <= RETENTION_BLOCKS;
    return { observations: gone.length, blocks: n, done: observationsDone && blocksDone };
  });
  if (result.observations || result.blocks) store.cache.chainWritten();
  return result;
}

/**
 * Drops everything older than `cutoff`, batch after batch, until done or `budgetMs` has passed.
 * @returns the batches' totals; `done` false when the budget ended first (call again)
 */
export async function dropOlderThan(
  store: Store,
  cutoff: number,
  budgetMs = Number.POSITIVE_INFINITY,
  batch = RETENTION_BATCH,
): Promise<RetentionBatch> {
  const start = performance.now();
  const total: RetentionBatch = { observations: 0, blocks: 0, done: false };
  for (;;) {
    const b = await dropBatch(store, cutoff, batch);
    total.observations += b.observations;
    total.blocks += b.blocks;
    if (b.done) return { ...total, done: true };
    if (performance.now() - start >= budgetMs) return total;
  }
}

/** A row to delete; detail and packed are null when its details row is missing (it is deleted all the same). */
type GoneRow = { seq: number | string; hash: string; recipient: string | null; detail: string | null; packed: Uint8Array | null };

/** Deletes observations, their details and their leg_recipients rows (found from the legs, by primary key). */
async function deleteObservations(trx: Transaction<Database>, gone: GoneRow[], upTo: number): Promise<void> {
  // Read before anything is deleted: a grouped detail's text lives in its group's first row (./stored-details.ts).
  const jsons = await readStoredDetails(trx, gone);
  for (let i = 0; i < gone.length; i += 200) {
    const chunk = gone.slice(i, i + 200);
    const seqs = chunk.map((g) => g.seq);
    const legs: { recipient: string; hash: string }[] = [];
    for (const [k, g] of chunk.entries()) for (const to of legRecipientsOf(g, jsons[i + k]!)) legs.push({ recipient: to, hash: g.hash });
    for (const l of legs) await trx.deleteFrom('leg_recipients').where('recipient', '=', l.recipient).where('hash', '=', l.hash).execute();
    await dropRollups(trx, seqs, upTo);
    await trx.deleteFrom('observation_details').where('seq', 'in', seqs).execute();
    await trx.deleteFrom('observations').where('seq', 'in', seqs).execute();
  }
}

const fineKeys = (o: RollupSource) =>
  rollupKeysOf(o).map((k) => JSON.stringify([k.dim, k.subject, k.payer, k.day, k.protocol, k.self, k.method, k.client]));

/**
 * Takes the payments of observations `seqs` (all at or before `upTo`) off the rollups, so they answer as a rebuild
 * from what is retained would. A per-payer row's first and last time cannot be narrowed by subtraction, so the
 * retained payments sharing a row with a dropped one (later on the same day) are taken off with it and added back.
 */
async function dropRollups(trx: Transaction<Database>, seqs: readonly (number | string)[], upTo: number): Promise<void> {
  const paid = await trx
    .selectFrom('observations')
    .select(ROLLUP_COLUMNS)
    .where('seq', 'in', seqs)
    .where('payer', 'is not', null)
    .execute();
  if (!paid.length) return;
  const keys = new Set(paid.flatMap(fineKeys));
  const dayEnd = (Math.floor(upTo / DAY_SECONDS) + 1) * DAY_SECONDS;
  const payers = [...new Set(paid.map((o) => o.payer!))];
  const kin: RollupSource[] = [];
  for (let i = 0; i < payers.length; i += 200) {
    const rows = await trx
      .selectFrom('observations')
      .select(ROLLUP_COLUMNS)
      .where('time', '>', upTo)
      .where('time', '<', dayEnd)
      .where('payer', 'in', payers.slice(i, i + 200))
      .execute();
    kin.push(...rows.filter((o) => fineKeys(o).some((k) => keys.has(k))));
  }
  await adjustRollups(trx, [...paid, ...kin], -1);
  await adjustRollups(trx, kin, 1);
}

/**
 * The leg recipients write.ts stored for a row: its legs' `to` other than its primary recipient (rows.ts).
 * @param json the row's detail (readStoredDetails), an Error when it cannot be read or is missing
 */
function legRecipientsOf(g: GoneRow, json: string | Error): string[] {
  if (json instanceof Error) return []; // an unreadable or missing detail leaves its leg rows behind (see below)
  let legs: { to?: string | null }[] | null | undefined;
  try {
    legs = (JSON.parse(json) as { legs?: { to?: string | null }[] | null }).legs;
  } catch {
    return []; // an unreadable detail leaves its leg rows behind (they only ever match through the observation)
  }
  const out = new Set<string>();
  for (const l of legs ?? []) {
    const to = typeof l.to === 'string' ? l.to.toLowerCase() : null;
    if (to && to !== g.recipient) out.add(to);
  }
  return [...out];
}

/** Deletes blocks up to `height`, taking their observations off the finality counters, with their checks and quarantine rows. */
async function dropBlocks(trx: Transaction<Database>, height: number, pg: boolean): Promise<void> {
  const counted = await trx
    .selectFrom('blocks')
    .innerJoin('finality_checks', 'finality_checks.height', 'blocks.finality')
    .select((eb) => ['finality_checks.status as status', eb.fn.sum<number | string>('blocks.observations').as('n')])
    .where('blocks.height', '<=', height)
    .groupBy('finality_checks.status')
    .execute();
  const minus = (status: string) => Number(counted.find((c) => c.status === status)?.n ?? 0);
  if (minus('verified') || minus('failed')) {
    let state = trx.selectFrom('finality_state').selectAll().where('id', '=', 1);
    if (pg) state = state.forUpdate();
    const s = await state.executeTakeFirstOrThrow();
    await trx
      .updateTable('finality_state')
      .set({ verified: Math.max(0, Number(s.verified) - minus('verified')), failed: Math.max(0, Number(s.failed) - minus('failed')) })
      .where('id', '=', 1)
      .execute();
  }
  await trx.deleteFrom('blocks').where('height', '<=', height).execute();
  // A certificate at height c covers c and below only, so checks up to `height` belong to dropped blocks alone.
  await trx.deleteFrom('finality_checks').where('height', '<=', height).execute();
  await trx.deleteFrom('quarantined_blocks').where('height', '<=', height).execute();
}

/** Coverage from `from` on: intervals wholly below it go, one that straddles it starts at it. */
async function trimCoverage(trx: Transaction<Database>, from: number): Promise<void> {
  await trx.deleteFrom('coverage').where('last', '<', from).execute();
  await sql`update coverage set ${sql.ref('first')} = ${from} where ${sql.ref('first')} < ${from}`.execute(trx);
}
