/**
 * The finality side of the chain store (migrations chain_0006, chain_0015): a `blocks` row for every collected
 * block, the certificate checks (`finality_checks`), and the counters and key chain (`finality_state`). A check
 * that covers blocks points them at itself, in one transaction with the counters and the store version
 * (chain_stats.updated_at), so remembered answers are recomputed (../cache.ts); the covered observations' integrity
 * (`independent_consensus_verified`, `evaluated_at`) is read from that pointer when served (./finality-at-read.ts),
 * never rewritten. Counters are kept here as the collector writes, never recounted per request.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../schema.js';
import type { Store } from '../store.js';
import type { PreparedBlock } from './rows.js';
import type { BlockFinality } from './finality-at-read.js';

/** Block rows per INSERT (8 columns: far under either dialect's bound-parameter limit). */
const BLOCK_CHUNK = 500;
/** Most blocks one check reads below its certified block (the parent-hash chain it can follow at once). */
export const COVER_MAX_BLOCKS = 100_000;

/** 0x hex → 32 raw bytes. */
const bytes = (hex: string): Buffer => Buffer.from(hex.replace(/^0x/i, ''), 'hex');
/** Raw bytes (Buffer from either driver, or Uint8Array) → 0x lower-case hex. */
const hex = (b: Uint8Array): `0x${string}` => `0x${Buffer.from(b).toString('hex')}`;

/**
 * Inserts the `blocks` rows of the prepared blocks that carry a parent hash (the collector's), inside the
 * caller's write transaction; a height already stored is kept (idempotent, as observations are).
 */
export async function insertBlockRows(trx: Transaction<Database>, blocks: readonly PreparedBlock[]): Promise<void> {
  const rows = blocks
    .filter((b) => typeof b.parentHash === 'string')
    .map((b) => ({
      height: b.height,
      hash: bytes(b.hash),
      parent_hash: bytes(b.parentHash!),
      time: b.time,
      observations: b.observations.length,
      recomputed: b.hashRecomputed ? 1 : 0,
      certificate: null,
      finality: null,
    }));
  for (let i = 0; i < rows.length; i += BLOCK_CHUNK)
    await trx
      .insertInto('blocks')
      .values(rows.slice(i, i + BLOCK_CHUNK))
      .onConflict((oc) => oc.column('height').doNothing())
      .execute();
}

/** A stored block. */
export interface StoredBlock {
  height: number;
  hash: `0x${string}`;
  parentHash: `0x${string}`;
  /** UTC Unix seconds. */
  time: number;
  observations: number;
  /** True when its hash was recomputed from its header when collected. */
  recomputed: boolean;
  certificate: `0x${string}` | null;
  /** Height of the check covering it; null while awaiting a certificate. */
  finality: number | null;
}

type BlockRow = Database['blocks'];
const toBlock = (r: BlockRow): StoredBlock => ({
  height: Number(r.height),
  hash: hex(r.hash),
  parentHash: hex(r.parent_hash),
  time: Number(r.time),
  observations: Number(r.observations),
  recomputed: Number(r.recomputed) === 1,
  certificate: r.certificate ? hex(r.certificate) : null,
  finality: r.finality == null ? null : Number(r.finality),
});

/**
 * Stored blocks with `from <= height <= to`, newest first (what coverByParentChain takes), at most `limit`.
 */
export async function readBlocks(db: Kysely<Database>, from: number, to: number, limit = COVER_MAX_BLOCKS): Promise<StoredBlock[]> {
  const rows = await db
    .selectFrom('blocks')
    .selectAll()
    .where('height', '>=', from)
    .where('height', '<=', to)
    .orderBy('height', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toBlock);
}

/** The lowest and highest stored block heights, or null when none is stored. */
export async function blockRange(db: Kysely<Database>): Promise<{ first: number; last: number } | null> {
  const r = await db
    .selectFrom('blocks')
    .select((eb) => [eb.fn.min('height').as('first'), eb.fn.max('height').as('last')])
    .executeTakeFirst();
  return r?.first == null || r.last == null ? null : { first: Number(r.first), last: Number(r.last) };
}

/** The finality counters and state (one row). */
export interface FinalityState {
  /** Observations in verified blocks. */
  verified: number;
  /** Observations in blocks whose covering certificate failed. */
  failed: number;
  last_verified_height: number | null;
  /** The stored key chain JSON (src/chain/consensus restoreKeyChain checks it), or null. */
  keyChain: unknown;
  /** The last witness disagreement, or null. */
  alarm: unknown;
}

/** Reads the finality counters and state. */
export async function readFinalityState(db: Kysely<Database>): Promise<FinalityState> {
  const r = await db.selectFrom('finality_state').selectAll().where('id', '=', 1).executeTakeFirst();
  return {
    verified: Number(r?.verified ?? 0),
    failed: Number(r?.failed ?? 0),
    last_verified_height: r?.last_verified_height == null ? null : Number(r.last_verified_height),
    keyChain: r?.key_chain ? JSON.parse(r.key_chain) : null,
    alarm: r?.alarm ? JSON.parse(r.alarm) : null,
  };
}

/** Saves the key chain (after a followed boundary). */
export async function saveKeyChain(store: Store, keyChain: unknown): Promise<void> {
  await store.db
    .updateTable('finality_state')
    .set({ key_chain: JSON.stringify(keyChain), updated_at: new Date().toISOString() })
    .where('id', '=', 1)
    .execute();
}

/** One certificate check and the blocks it covers. */
export interface FinalityRecord {
  /** The certified height (the check's key). */
  height: number;
  status: 'verified' | 'failed' | 'unknown';
  /** The served `evidence.finality` (JSON-serializable). */
  evidence: object;
  /** The certificate checked (0x hex), stored on its block; null when none was served. */
  certificate: string | null;
  /** The covered heights, inclusive (the certified block and those below it); null: the check covers none. */
  cover: { from: number; to: number } | null;
  /** A witness disagreement to keep for /api/status, if any. */
  alarm?: object | null;
  /** ISO 8601: the check's time (served as the covered observations' evaluated_at) and the store version. */
  now: string;
}

/**
 * Records a check in ONE transaction: its row (with `rec.now`, the covered observations' `evaluated_at` when
 * verified or failed), its certificate, the covered blocks' finality, the counters and the store version. The
 * observations themselves are not written (./finality-at-read.ts reads their verdict through their block).
 */
export async function recordFinality(store: Store, rec: FinalityRecord): Promise<void> {
  const pg = store.dialect === 'postgres';
  await store.db.transaction().execute(async (trx) => {
    const evidence = JSON.stringify(rec.evidence);
    const checked = { status: rec.status, evidence, checked_at: rec.now };
    await trx
      .insertInto('finality_checks')
      .values({ height: rec.height, ...checked })
      .onConflict((oc) => oc.column('height').doUpdateSet(checked))
      .execute();
    if (rec.certificate !== null)
      await trx
        .updateTable('blocks')
        .set({ certificate: bytes(rec.certificate) })
        .where('height', '=', rec.height)
        .execute();
    let state = trx.selectFrom('finality_state').selectAll().where('id', '=', 1);
    if (pg) state = state.forUpdate();
    const s = await state.executeTakeFirstOrThrow();
    let verified = Number(s.verified);
    let failed = Number(s.failed);
    let lastVerified = s.last_verified_height == null ? null : Number(s.last_verified_height);
    if (rec.cover) {
      const { from, to } = rec.cover;
      // What the covered blocks counted as before (a failed or unknown check may be superseded).
      const before = await trx
        .selectFrom('blocks')
        .leftJoin('finality_checks', 'finality_checks.height', 'blocks.finality')
        .select((eb) => ['finality_checks.status as status', eb.fn.sum<number | string>('blocks.observations').as('n')])
        .where('blocks.height', '>=', from)
        .where('blocks.height', '<=', to)
        .groupBy('finality_checks.status')
        .execute();
      let n = 0;
      for (const b of before) {
        const count = Number(b.n ?? 0);
        if (b.status === 'verified') verified -= count;
        if (b.status === 'failed') failed -= count;
        n += count;
      }
      if (rec.status === 'verified') verified += n;
      if (rec.status === 'failed') failed += n;
      await trx.updateTable('blocks').set({ finality: rec.height }).where('height', '>=', from).where('height', '<=', to).execute();
      if (rec.status === 'verified') lastVerified = Math.max(lastVerified ?? to, to);
    }
    await trx
      .updateTable('finality_state')
      .set({
        verified,
        failed,
        last_verified_height: lastVerified,
        updated_at: rec.now,
        ...(rec.alarm ? { alarm: JSON.stringify(rec.alarm) } : {}),
      })
      .where('id', '=', 1)
      .execute();
    // The store version: remembered lists, details and status are recomputed.
    await trx.updateTable('chain_stats').set({ updated_at: rec.now }).where('id', '=', 1).execute();
  });
  store.cache.chainWritten();
}

/**
 * The finality of the block at `height`: its covering check's evidence and verdict, or null when the block is not
 * stored (observations written before blocks were kept, or seeded).
 * @returns `{ evidence, check }` with the check's evidence and status and time (./finality-at-read.ts), or
 *   `{ evidence: null, check: null }` while it awaits a certificate
 */
export async function finalityOfBlock(
  db: Kysely<Database>,
  height: number,
): Promise<{ evidence: Record<string, unknown> | null; check: BlockFinality | null } | null> {
  const r = await db
    .selectFrom('blocks')
    .leftJoin('finality_checks', 'finality_checks.height', 'blocks.finality')
    .select(['blocks.height', 'finality_checks.evidence', 'finality_checks.status', 'finality_checks.checked_at'])
    .where('blocks.height', '=', height)
    .executeTakeFirst();
  if (!r) return null;
  return {
    evidence: r.evidence ? (JSON.parse(r.evidence) as Record<string, unknown>) : null,
    check: r.status ? { status: r.status as BlockFinality['status'], checkedAt: r.checked_at ?? null } : null,
  };
}

/** The status of the check recorded at `height` (the certificate of that very block), or null when none is. */
export async function checkStatusAt(db: Kysely<Database>, height: number): Promise<string | null> {
  const r = await db.selectFrom('finality_checks').select('status').where('height', '=', height).executeTakeFirst();
  return r?.status ?? null;
}

/** Whether the newest stored block is covered by a verified check (the status's `independent_consensus_verified`). */
export async function newestBlockVerified(db: Kysely<Database>): Promise<boolean> {
  const r = await db
    .selectFrom('blocks')
    .leftJoin('finality_checks', 'finality_checks.height', 'blocks.finality')
    .select(['finality_checks.status'])
    .orderBy('blocks.height', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r?.status === 'verified';
}
