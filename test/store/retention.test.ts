import { afterAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/db.js';
import { getCoverage, getStatus, listTransactions, prepareBlock, writeBlocks, writePreparedBlocks } from '../../src/store/chain/index.js';
import { dropOlderThan, readRetention } from '../../src/store/chain/retention.js';
import { readFinalityState, recordFinality } from '../../src/store/chain/finality.js';
import type { BlockObservations } from '../../src/domain/observation.js';
import { DIALECTS, storeFactory } from '../helpers/db.js';
import { emptyBlock, makeBlocks, observationsOf, publicOrder, relocate } from '../helpers/observations.js';

const rows = async (s: Store, table: 'observations' | 'observation_details' | 'leg_recipients' | 'blocks') =>
  Number(
    (
      await s.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** Every page of `filters` at `limit`, as hashes (the store's list path: rank arithmetic on an ordered store). */
async function allPages(s: Store, filters: { since?: number; until?: number }, limit: number): Promise<string[]> {
  const out: string[] = [];
  for (let offset = 0; ; offset += limit) {
    const p = await listTransactions(s, filters, { limit, offset });
    out.push(...p.rows.map((r) => r.hash));
    if (p.rows.length < limit) return out;
  }
}

describe.each(DIALECTS)('retention on %s', (dialect) => {
  const stores = storeFactory(dialect);
  afterAll(() => stores.cleanup());

  async function written(blocks: BlockObservations[]): Promise<Store> {
    const s = await stores.fresh();
    for (let i = 0; i < blocks.length; i += 40) {
      const part = blocks.slice(i, i + 40);
      // With their parent hashes, as the collector writes them: each block gets its row in `blocks`.
      const prepared = part.map((b) => ({ ...prepareBlock(b), parentHash: `0x${(b.height - 1).toString(16).padStart(64, '0')}` }));
      await writePreparedBlocks(s, prepared, { height: part.at(-1)!.height, hash: part.at(-1)!.hash });
    }
    return s;
  }

  it('drops what is older than the cutoff in whole seconds, keeps the rest answering exactly, and trims coverage', async () => {
    const blocks = makeBlocks({ count: 300, seed: 11 });
    const s = await written(blocks);
    const all = observationsOf(blocks);
    const cutoff = blocks[Math.floor(blocks.length / 2)].time;
    const kept = all.filter((o) => o.time >= cutoff).sort(publicOrder);
    expect(kept.length).toBeGreaterThan(50);
    expect(kept.length).toBeLessThan(all.length - 50);
    expect(await readRetention(s)).toBeNull();

    // Batches of 7: dozens of transactions, each ending at a whole second.
    const r = await dropOlderThan(s, cutoff, Number.POSITIVE_INFINITY, 7);
    expect(r).toMatchObject({ observations: all.length - kept.length, done: true });
    expect(r.blocks).toBe(blocks.filter((b) => b.time < cutoff).length);

    expect(await rows(s, 'observations')).toBe(kept.length);
    expect(await rows(s, 'observation_details')).toBe(kept.length);
    expect(await rows(s, 'blocks')).toBe(blocks.filter((b) => b.time >= cutoff).length);
    const oldLegs = await s.db.selectFrom('leg_recipients').select('hash').where('time', '<', cutoff).execute();
    expect(oldLegs).toEqual([]);
    expect(await rows(s, 'leg_recipients')).toBeGreaterThan(0);

    // Totals, whole lists and time-bounded pages (rank arithmetic from the lowest retained seq) match the kept rows.
    expect((await getStatus(s, new Date())).total_transactions).toBe(kept.length);
    expect(await allPages(s, {}, 23)).toEqual(kept.map((o) => o.hash));
    const since = kept[Math.floor(kept.length * 0.7)].time;
    const until = kept[Math.floor(kept.length * 0.2)].time;
    const window = kept.filter((o) => o.time >= since && o.time < until);
    expect(await allPages(s, { since, until }, 9)).toEqual(window.map((o) => o.hash));
    expect((await listTransactions(s, { since: 0 }, { limit: 5, offset: 0 })).total).toBe(kept.length);
    expect((await listTransactions(s, { until: cutoff + 1 }, { limit: 5, offset: 0 })).total).toBe(
      kept.filter((o) => o.time < cutoff + 1).length,
    );

    const firstKept = blocks.find((b) => b.time >= cutoff)!.height;
    expect(await getCoverage(s)).toEqual([{ first: firstKept, last: blocks.at(-1)!.height }]);
    expect(await readRetention(s)).toEqual({ dropped: all.length - kept.length, retainedFromTime: cutoff, retainedFromHeight: firstKept });

    // Nothing more to do at the same cutoff; new writes go on after the dropped ranks.
    expect(await dropOlderThan(s, cutoff)).toEqual({ observations: 0, blocks: 0, done: true });
    const more = makeBlocks({ count: 30, seed: 12, startHeight: blocks.at(-1)!.height + 1, startTime: blocks.at(-1)!.time + 1 });
    await writeBlocks(s, more, { height: more.at(-1)!.height, hash: more.at(-1)!.hash });
    const after = [...kept, ...observationsOf(more)].sort(publicOrder);
    expect(await allPages(s, {}, 50)).toEqual(after.map((o) => o.hash));
    expect((await listTransactions(s, { since: more[0].time }, { limit: 100, offset: 0 })).total).toBe(observationsOf(more).length);
  });

  it('drops the same rows from a store written out of order, and empty blocks before the cutoff', async () => {
    const base = makeBlocks({ count: 400, seed: 5 });
    const at = (f: number) => base[Math.floor(base.length * f)];
    const t0 = base[0].time;
    // Later blocks written first: the store is not ordered, counts and pages use the indexes.
    const half = Math.floor(base.length / 2);
    const late = base.slice(half);
    const early = base.slice(0, half);
    const empties = [emptyBlock(base.at(-1)!.height + 1, base.at(-1)!.time + 1)];
    const s = await written([...late, ...empties]);
    await writeBlocks(s, early, { height: empties[0].height, hash: empties[0].hash });
    const moved = relocate(base[3], base.at(-1)!.height + 5, base.at(-1)!.time + 5);
    await writeBlocks(s, [moved], { height: moved.height, hash: moved.hash });
    const all = [...observationsOf(base), ...moved.observations];
    const cutoff = at(0.3).time;
    const kept = all.filter((o) => o.time >= cutoff).sort(publicOrder);

    const r = await dropOlderThan(s, cutoff, Number.POSITIVE_INFINITY, 4);
    expect(r.done).toBe(true);
    expect(await rows(s, 'observations')).toBe(kept.length);
    expect(await allPages(s, {}, 17)).toEqual(kept.map((o) => o.hash));
    expect((await listTransactions(s, { since: at(0.7).time }, { limit: 1, offset: 0 })).total).toBe(
      kept.filter((o) => o.time >= at(0.7).time).length,
    );

    // A cutoff past everything leaves an empty store that says from where it retains data.
    const end = moved.time + 1;
    expect((await dropOlderThan(s, end)).done).toBe(true);
    expect(await rows(s, 'observations')).toBe(0);
    expect(await rows(s, 'blocks')).toBe(0);
    expect(await getCoverage(s)).toEqual([]);
    expect(await readRetention(s)).toMatchObject({ dropped: all.length, retainedFromTime: end });
    expect(t0).toBeLessThan(end);
  });

  it('takes the dropped blocks off the finality counters, with the checks that covered only them', async () => {
    const blocks = makeBlocks({ count: 200, seed: 8 });
    const s = await written(blocks);
    const mid = Math.floor(blocks.length / 2);
    const now = new Date().toISOString();
    // Blocks up to the middle verified by one check, the rest failed by another.
    const check = (to: number, from: number, status: 'verified' | 'failed') =>
      recordFinality(s, {
        height: blocks[to].height,
        status,
        evidence: {},
        certificate: null,
        cover: { from: blocks[from].height, to: blocks[to].height },
        now,
      });
    await check(mid, 0, 'verified');
    await check(blocks.length - 1, mid + 1, 'failed');
    const obsIn = (a: number, b: number) => blocks.slice(a, b + 1).reduce((n, x) => n + x.observations.length, 0);
    expect(await readFinalityState(s.db)).toMatchObject({ verified: obsIn(0, mid), failed: obsIn(mid + 1, blocks.length - 1) });

    const cut = Math.floor(mid / 2);
    await dropOlderThan(s, blocks[cut].time, Number.POSITIVE_INFINITY, 9);
    expect(await readFinalityState(s.db)).toMatchObject({ verified: obsIn(cut, mid), failed: obsIn(mid + 1, blocks.length - 1) });
    expect((await getStatus(s, new Date())).finality).toMatchObject({ unknown: 0 });
    // The verified check sits at a retained height: kept.
    expect(await s.db.selectFrom('finality_checks').select('height').orderBy('height').execute()).toHaveLength(2);
  });

  it('drops a row whose details row is missing (it never blocks the batches behind it)', async () => {
    const blocks = makeBlocks({ count: 60, seed: 4 });
    const s = await written(blocks);
    const first = await s.db.selectFrom('observations').select('seq').orderBy('seq').limit(1).executeTakeFirstOrThrow();
    await s.db.deleteFrom('observation_details').where('seq', '=', first.seq).execute();
    const cutoff = blocks.at(-1)!.time + 1;
    expect(await dropOlderThan(s, cutoff, Number.POSITIVE_INFINITY, 10)).toMatchObject({ observations: 60, done: true });
    expect(await rows(s, 'observations')).toBe(0);
  });

  it('stops at the time budget and resumes where it stopped', async () => {
    const blocks = makeBlocks({ count: 200, seed: 3 });
    const s = await written(blocks);
    const cutoff = blocks.at(-1)!.time;
    const first = await dropOlderThan(s, cutoff, 0, 5);
    expect(first.done).toBe(false);
    expect(first.observations).toBeGreaterThan(0);
    expect(first.observations).toBeLessThan(20);
    const rest = await dropOlderThan(s, cutoff, Number.POSITIVE_INFINITY, 5);
    expect(rest.done).toBe(true);
    expect(first.observations + rest.observations).toBe(observationsOf(blocks).filter((o) => o.time < cutoff).length);
  });
});
