/**
 * An observation's `independent_consensus_verified` and finality `evaluated_at` are read when it is served, from
 * its block's covering check (src/store/chain/finality-at-read.ts): list pages (both page paths), the detail and
 * remembered pages answer each check's verdict and time, while recording a check leaves every observation's stored
 * integrity as it was written.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/db.js';
import { getTransaction, listTransactions, prepareBlock, writePreparedBlocks } from '../../src/store/chain/index.js';
import { recordFinality } from '../../src/store/chain/finality.js';
import { unpackIntegrity } from '../../src/store/chain/detail-codec.js';
import { chainMigrations } from '../../src/store/migrations/chain.js';
import type { BlockObservations, Observation } from '../../src/domain/observation.js';
import { DIALECTS, storeFactory } from '../helpers/db.js';
import { makeBlocks } from '../helpers/observations.js';

/** Records one verified check covering every block of `blocks` (its last height), at `now`. */
const verifiedOverAll = (s: Store, blocks: BlockObservations[], now: string) =>
  recordFinality(s, {
    height: blocks.at(-1)!.height,
    status: 'verified',
    evidence: { status: 'verified' },
    certificate: null,
    cover: { from: blocks[0]!.height, to: blocks.at(-1)!.height },
    now,
  });

describe.each(DIALECTS)('finality served at read time on %s', (dialect) => {
  const stores = storeFactory(dialect);
  afterAll(() => stores.cleanup());

  async function written(blocks: BlockObservations[]): Promise<Store> {
    const s = await stores.fresh();
    // With their parent hashes, as the collector writes them: each block gets its row in `blocks`.
    const prepared = blocks.map((b) => ({ ...prepareBlock(b), parentHash: `0x${(b.height - 1).toString(16).padStart(64, '0')}` }));
    await writePreparedBlocks(s, prepared, { height: blocks.at(-1)!.height, hash: blocks.at(-1)!.hash });
    return s;
  }

  const storedIntegrity = async (s: Store) =>
    (await s.db.selectFrom('observations').select(['hash', 'integrity']).orderBy('hash').execute()).map((r) => `${r.hash} ${r.integrity}`);

  /** Every row of a listing, by hash: the unfiltered one (rank arithmetic) or a filtered one (index subquery). */
  async function listed(s: Store, filters: { execution?: 'success' }) {
    const out = new Map<string, { independent_consensus_verified?: boolean; evaluated_at?: string }>();
    for (let offset = 0; ; offset += 100) {
      const p = await listTransactions(s, filters, { limit: 100, offset });
      for (const r of p.rows) out.set(r.hash, r.integrity);
      if (p.rows.length < 100) return out;
    }
  }

  it('answers each block check’s verdict and time in pages and details, without rewriting stored integrity', async () => {
    const blocks = makeBlocks({ count: 150, seed: 31 });
    const n = blocks.length;
    const [A, B, Z] = [Math.floor(n / 2), Math.floor((3 * n) / 4), n - 1];
    const s = await written(blocks);
    const before = await storedIntegrity(s);
    const heightOf = new Map<string, number>(blocks.flatMap((b) => b.observations.map((o) => [o.hash, b.height] as const)));
    const h = (i: number) => blocks[i]!.height;
    // A page remembered before any check: the store version bump must refresh it.
    const remembered = (await listTransactions(s, {}, { limit: 100, offset: 0 })).rows;
    expect(remembered.every((r) => r.integrity.independent_consensus_verified === false)).toBe(true);

    const check = (to: number, from: number, status: 'verified' | 'failed' | 'unknown', now: string) =>
      recordFinality(s, { height: h(to), status, evidence: { status }, certificate: null, cover: { from: h(from), to: h(to) }, now });
    const T1 = '2026-11-26T10:00:00.000Z';
    const T2 = '2026-11-26T11:00:00.000Z';
    const T3 = '2026-11-26T12:00:00.000Z';
    await check(A, 0, 'verified', T1);
    await check(B, A + 1, 'failed', T2);
    await check(Z, B + 1, 'unknown', T3);

    // What each observation must answer: verified blocks true at T1, failed ones false at T2, the rest as collected.
    const expected = (hash: string, stored: { independent_consensus_verified?: boolean; evaluated_at?: string }) => {
      const height = heightOf.get(hash)!;
      if (height <= h(A)) return { independent_consensus_verified: true, evaluated_at: T1 };
      if (height <= h(B)) return { independent_consensus_verified: false, evaluated_at: T2 };
      return { independent_consensus_verified: false, evaluated_at: stored.evaluated_at };
    };
    const collected = new Map<string, Observation['integrity']>(
      blocks.flatMap((b) => b.observations.map((o) => [o.hash, o.integrity] as const)),
    );
    for (const filters of [{}, { execution: 'success' as const }]) {
      const rows = await listed(s, filters);
      expect(rows.size).toBeGreaterThan(0);
      let verified = 0;
      for (const [hash, integrity] of rows) {
        const want = expected(hash, collected.get(hash)!);
        expect(
          { independent_consensus_verified: integrity.independent_consensus_verified, evaluated_at: integrity.evaluated_at },
          hash,
        ).toEqual(want);
        if (want.independent_consensus_verified) verified++;
      }
      expect(verified).toBeGreaterThan(0);
    }
    for (const i of [0, A, A + 1, B, B + 1, Z]) {
      const o = blocks[i]!.observations[0];
      if (!o) continue;
      const d = await getTransaction(s, o.hash as `0x${string}`);
      expect(d!.integrity, `block ${i}`).toMatchObject(expected(o.hash, o.integrity));
      // The rest of the integrity is the stored one, members in their order.
      expect(Object.keys(d!.integrity)).toEqual(Object.keys(o.integrity));
      expect(d!.integrity.stages).toEqual(o.integrity.stages);
    }
    // No observation's stored integrity was written by the checks.
    expect(await storedIntegrity(s)).toEqual(before);

    // A later verified check over the failed blocks supersedes it.
    const T4 = '2026-11-26T13:00:00.000Z';
    await check(B, A + 1, 'verified', T4);
    const o = blocks.slice(A + 1, B + 1).flatMap((b) => b.observations)[0]!;
    expect((await getTransaction(s, o.hash))!.integrity).toMatchObject({ independent_consensus_verified: true, evaluated_at: T4 });
    expect((await listed(s, {})).get(o.hash)).toMatchObject({ independent_consensus_verified: true, evaluated_at: T4 });
  });

  it('chain_0015 down writes each verdict back into the stored integrity (what the code before it reads), up again', async () => {
    const blocks = makeBlocks({ count: 20, seed: 9 });
    const s = await written(blocks);
    const now = '2026-11-26T10:00:00.000Z';
    await verifiedOverAll(s, blocks, now);
    const migration = chainMigrations.chain_0015_finality_at_read!;
    await migration.down!(s.db);
    const stored = await s.db.selectFrom('observations').select('integrity').execute();
    expect(stored.length).toBeGreaterThan(0);
    for (const r of stored)
      expect(JSON.parse(unpackIntegrity(r.integrity))).toMatchObject({ independent_consensus_verified: true, evaluated_at: now });
    await migration.up(s.db);
    expect(await s.db.selectFrom('finality_checks').select('checked_at').execute()).toEqual([{ checked_at: null }]);
  });

  it('keeps the stored verdict of a check recorded before finality was read at read time (no checked_at)', async () => {
    const blocks = makeBlocks({ count: 20, seed: 7 });
    const s = await written(blocks);
    await verifiedOverAll(s, blocks, '2026-11-26T10:00:00.000Z');
    // A store upgraded from before chain_0015: its check has no time, its observations hold the verdict themselves.
    await s.db.updateTable('finality_checks').set({ checked_at: null }).execute();
    await s.db.updateTable('chain_stats').set({ updated_at: '2026-11-26T10:00:01.000Z' }).where('id', '=', 1).execute();
    s.cache.chainWritten();
    const o = blocks.flatMap((b) => b.observations)[0]!;
    expect((await getTransaction(s, o.hash))!.integrity).toMatchObject({
      independent_consensus_verified: false,
      evaluated_at: o.integrity.evaluated_at,
    });
  });
});
