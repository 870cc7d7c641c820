/**
 * Blocks written with their coverage and checkpoint in one transaction, and the chain's recorded state read back:
 * the checkpoint, the collector's state, coverage and the store's part of /api/status.
 */
import type { Store } from '../store.js';
import type { BlockObservations } from '../../domain/observation.js';
import { CHAIN_ID } from '../../domain/observation.js';
import { newestBlockVerified, readFinalityState } from './finality.js';
import { readCoverage, summarizeCoverage, type HeightInterval } from './coverage.js';
import { readStats } from './query.js';
import { prepareBlock } from './rows.js';
import { writePreparedBlocks } from './write-blocks.js';

export { writePreparedBlocks } from './write-blocks.js';

/** The collector's recorded state, shown in /api/status. Rates are per second of wall time; times ISO 8601. */
export type CollectorState = {
  /** `standby` is live only (a standing-by collector never records its state over the leader's). */
  state: 'running' | 'standby' | 'catching_up' | 'stalled' | 'error' | 'stopped';
  /** RPC URL without credentials. */
  source: string;
  last_block: number | null;
  finalized_head: number | null;
  rate_tx_per_s: number | null;
  rate_blocks_per_s: number | null;
  last_error: string | null;
  last_error_at: string | null;
  updated_at: string;
};

/** The last block written in order, and when. */
export type Checkpoint = {
  height: number;
  hash: string;
  /** ISO 8601. */
  updated_at: string;
};

/**
 * Writes blocks in ONE database transaction: every observation (idempotent: a stored hash is skipped), the
 * blocks' heights merged into coverage (blocks without transactions included; a gap stays a gap), and the
 * checkpoint. A crash at any moment leaves either all of it or none of it.
 * @param blocks finalized blocks, any order
 * @param checkpoint the block to resume after (normally the highest of `blocks`)
 * @throws the driver's error when the database cannot write (nothing is written then)
 */
export function writeBlocks(store: Store, blocks: BlockObservations[], checkpoint: { height: number; hash: string }): Promise<void> {
  return writePreparedBlocks(store, blocks.map(prepareBlock), checkpoint);
}

/** The checkpoint, or null on a fresh store. */
export async function getCheckpoint(store: Store): Promise<Checkpoint | null> {
  const r = await store.db.selectFrom('checkpoint').selectAll().where('id', '=', 1).executeTakeFirst();
  return r ? { height: Number(r.height), hash: r.hash, updated_at: r.updated_at } : null;
}

/** Records the collector's state (one row, replaced). */
export async function saveCollectorState(store: Store, s: CollectorState): Promise<void> {
  const row = { ...s };
  await store.db
    .insertInto('collector_state')
    .values({ id: 1, ...row })
    .onConflict((oc) => oc.column('id').doUpdateSet(row))
    .execute();
}

/** The collector's last recorded state, or null when no collector ever ran on this store. */
export async function getCollectorState(store: Store): Promise<CollectorState | null> {
  const r = await store.db.selectFrom('collector_state').selectAll().where('id', '=', 1).executeTakeFirst();
  if (!r) return null;
  const num = (v: number | string | null) => (v == null ? null : Number(v));
  return {
    state: r.state as CollectorState['state'],
    source: r.source,
    last_block: num(r.last_block),
    finalized_head: num(r.finalized_head),
    rate_tx_per_s: num(r.rate_tx_per_s),
    rate_blocks_per_s: num(r.rate_blocks_per_s),
    last_error: r.last_error,
    last_error_at: r.last_error_at,
    updated_at: r.updated_at,
  };
}

/** Collected block-height intervals, lowest first: merged, non-overlapping, inclusive. */
export async function getCoverage(store: Store): Promise<HeightInterval[]> {
  return readCoverage(store.db);
}

/** What the store knows for /api/status (the route adds live components and service sources). */
export type StoreStatus = {
  chain_id: typeof CHAIN_ID;
  /** The collector's source when one has run, else null. */
  source: string | null;
  /** now − newest collected block time, in whole seconds; null when nothing is collected. */
  lag_seconds: number | null;
  total_transactions: number;
  checkpoint: Checkpoint | null;
  collector: CollectorState | null;
  coverage: string;
  /** Finality of the collected observations (kept as the collector writes, src/store/chain/finality.ts). */
  finality: FinalityStatusCounts;
  /** True when the newest collected block is covered by a verified finalization certificate. */
  independent_consensus_verified: boolean;
};

/** `/api/status` → `finality`: observations by finality status, and the last witness disagreement. */
export type FinalityStatusCounts = {
  verified: number;
  failed: number;
  /** Observations not yet covered by a checked certificate, or whose certificate could not be judged. */
  unknown: number;
  last_verified_height: number | null;
  /** The last witness disagreement (an alarm), or null. */
  witness_alarm: { witness: string; height: number; reported: string; ours: string; at: string } | null;
};

/** Status of the chain data at `now`. */
export async function getStatus(store: Store, now: Date): Promise<StoreStatus> {
  const [stats, checkpoint, collector, coverage, finality, newestVerified] = await Promise.all([
    readStats(store.db),
    getCheckpoint(store),
    getCollectorState(store),
    readCoverage(store.db),
    readFinalityState(store.db),
    newestBlockVerified(store.db),
  ]);
  return {
    chain_id: CHAIN_ID,
    source: collector?.source ?? null,
    lag_seconds: stats.newestBlockTime == null ? null : Math.max(0, Math.floor(now.getTime() / 1000) - stats.newestBlockTime),
    total_transactions: stats.count,
    checkpoint,
    collector,
    coverage: summarizeCoverage(coverage),
    finality: {
      verified: finality.verified,
      failed: finality.failed,
      unknown: Math.max(0, stats.count - finality.verified - finality.failed),
      last_verified_height: finality.last_verified_height,
      witness_alarm: (finality.alarm as FinalityStatusCounts['witness_alarm']) ?? null,
    },
    independent_consensus_verified: newestVerified,
  };
}
