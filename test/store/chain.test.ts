import { nominalOf } from '../../src/domain/listing.js';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import type { Store } from '../../src/store/db.js';
import {
  computeMetrics,
  exportRows,
  getCheckpoint,
  getCollectorState,
  getCoverage,
  getStatus,
  getTransaction,
  listTransactions,
  saveCollectorState,
  writeBlocks,
  type CollectorState,
} from '../../src/store/chain/index.js';
import { sumDecimals } from '../../src/domain/money.js';
import type { ObservationFilters } from '../../src/domain/filters.js';
import { csvExport } from '../../src/api/routes/chain-export.js';
import { seedStore } from '../../src/seed/chain.js';
import { DIALECTS, storeFactory, countObservations } from '../helpers/db.js';
import { emptyBlock, makeBlocks, observationsOf, publicOrder, relocate } from '../helpers/observations.js';

describe.each(DIALECTS)('chain store on %s', (dialect) => {
  const stores = storeFactory(dialect);
  afterAll(() => stores.cleanup());
  const fresh = stores.fresh;
  const count = countObservations;

  it('writeBlocks stores observations, coverage and checkpoint; rewriting the same blocks changes nothing', async () => {
    const s = await fresh();
    const blocks = makeBlocks({ count: 120, seed: 7 });
    const last = blocks[blocks.length - 1];
    await writeBlocks(s, blocks, { height: last.height, hash: last.hash });
    await writeBlocks(s, blocks.slice(3, 9), { height: last.height, hash: last.hash });
    expect(await count(s)).toBe(120);
    expect(await getCoverage(s)).toEqual([{ first: blocks[0].height, last: last.height }]);
    expect(await getCheckpoint(s)).toMatchObject({ height: last.height, hash: last.hash });
    const st = await getStatus(s, new Date((last.time + 10) * 1000));
    expect(st).toMatchObject({ total_transactions: 120, lag_seconds: 10, chain_id: 4217, independent_consensus_verified: false });
    const one = observationsOf(blocks)[17];
    const d = await getTransaction(s, one.hash.toUpperCase().replace('0X', '0x'));
    expect(d).toMatchObject({
      hash: one.hash,
      amount: one.amount,
      nominal: nominalOf(one.nominal_parts, s.tokenList),
      fee: one.fee,
      sender: one.sender,
      integrity: one.integrity,
      legs: one.detail.legs,
    });
    expect(await getTransaction(s, `0x${'f'.repeat(64)}`)).toBeNull();
  });

  it('writeBlocks is atomic: a failing write leaves no observation, coverage or checkpoint behind', async () => {
    const s = await fresh();
    const [a, b] = makeBlocks({ count: 40, seed: 3, maxTxPerBlock: 30 }).filter((x) => x.observations.length > 0);
    // Two different transactions with one hash and conflicting columns: the second row violates NOT NULL.
    const broken = {
      ...b,
      observations: [...b.observations, { ...b.observations[0], hash: `0x${'e'.repeat(64)}` as `0x${string}`, execution: null as never }],
    };
    await expect(writeBlocks(s, [a, broken], { height: b.height, hash: b.hash })).rejects.toThrow();
    expect(await count(s)).toBe(0);
    expect(await getCoverage(s)).toEqual([]);
    expect(await getCheckpoint(s)).toBeNull();
    expect(await getStatus(s, new Date())).toMatchObject({
      total_transactions: 0,
      lag_seconds: null,
      checkpoint: null,
      collector: null,
      coverage: 'nothing collected yet',
    });
  });

  it('merges coverage out of order, overlapping and with gaps; empty blocks extend coverage', async () => {
    const s = await fresh();
    const w = (hs: number[]) =>
      writeBlocks(
        s,
        hs.map((h) => emptyBlock(h)),
        { height: Math.max(...hs), hash: emptyBlock(Math.max(...hs)).hash },
      );
    await w([10, 11, 12]);
    await w([20, 21]);
    await w([15]);
    expect(await getCoverage(s)).toEqual([
      { first: 10, last: 12 },
      { first: 15, last: 15 },
      { first: 20, last: 21 },
    ]);
    await w([13, 14]); // touches both sides
    expect(await getCoverage(s)).toEqual([
      { first: 10, last: 15 },
      { first: 20, last: 21 },
    ]);
    await w([9, 10, 11, 30, 19, 22]); // overlapping, out of order, new island
    expect(await getCoverage(s)).toEqual([
      { first: 9, last: 15 },
      { first: 19, last: 22 },
      { first: 30, last: 30 },
    ]);
    await w([16, 17, 18]);
    expect(await getCoverage(s)).toEqual([
      { first: 9, last: 22 },
      { first: 30, last: 30 },
    ]);
    expect(await count(s)).toBe(0);
  });

  it('seedStore bulk-writes exactly N observations with coverage, checkpoint and counters', async () => {
    const s = await fresh();
    const progress: number[] = [];
    const r = await seedStore(s, { count: 2345, seed: 9, rowsPerWrite: 1000, onProgress: (n) => progress.push(n) });
    expect(r.inserted).toBe(2345);
    expect(await count(s)).toBe(2345);
    expect(progress.at(-1)).toBe(2345);
    const cov = await getCoverage(s);
    expect(cov).toEqual([{ first: 1_000_000, last: 1_000_000 + r.blocks - 1 }]);
    expect((await getCheckpoint(s))?.height).toBe(1_000_000 + r.blocks - 1);
    expect((await listTransactions(s, {}, { limit: 1, offset: 2344 })).total).toBe(2345);
  });

  it('saves and reads the collector state', async () => {
    const s = await fresh();
    expect(await getCollectorState(s)).toBeNull();
    const st: CollectorState = {
      state: 'catching_up',
      source: 'http://127.0.0.1:1',
      last_block: 5,
      finalized_head: 9,
      rate_tx_per_s: 12.5,
      rate_blocks_per_s: 3,
      last_error: null,
      last_error_at: null,
      updated_at: new Date().toISOString(),
    };
    await saveCollectorState(s, st);
    await saveCollectorState(s, { ...st, state: 'error', last_error: 'boom', last_error_at: st.updated_at });
    expect(await getCollectorState(s)).toEqual({ ...st, state: 'error', last_error: 'boom', last_error_at: st.updated_at });
  });

  describe('queries over a synthetic set', () => {
    const blocks = makeBlocks({ count: 400, seed: 11 });
    // Payers: mostly the sender (served by the sender index), some another account or the recipient (the partial
    // payer index), some unknown.
    const third = `0x${'3c'.repeat(20)}`;
    for (const [i, o] of observationsOf(blocks).entries())
      o.detail.payer = i % 11 === 0 ? null : i % 7 === 0 ? third : i % 5 === 0 ? o.recipient : o.sender;
    const all = observationsOf(blocks).sort(publicOrder);
    // Written in three calls, the middle one out of order, so both the rank and the generic paths are exercised.
    const variants = [
      {
        name: 'in order',
        write: async (s: Store) => {
          for (const part of [blocks.slice(0, 40), blocks.slice(40)])
            await writeBlocks(s, part, { height: part.at(-1)!.height, hash: part.at(-1)!.hash });
        },
      },
      {
        name: 'out of order',
        write: async (s: Store) => {
          for (const part of [blocks.slice(40), blocks.slice(0, 40)])
            await writeBlocks(s, part, { height: part.at(-1)!.height, hash: part.at(-1)!.hash });
        },
      },
    ];
    const t0 = blocks[0].time;
    const filters: [string, ObservationFilters, (o: (typeof all)[number]) => boolean][] = [
      ['none', {}, () => true],
      ['since', { since: t0 + 30 }, (o) => o.time >= t0 + 30],
      ['until', { until: t0 + 60 }, (o) => o.time < t0 + 60],
      ['since+until', { since: t0 + 10, until: t0 + 50 }, (o) => o.time >= t0 + 10 && o.time < t0 + 50],
      ['until before everything', { until: t0 }, () => false],
      [
        'q wallet',
        { q: all[5].sender!.toUpperCase().replace('0X', '0x') },
        (o) => o.sender === all[5].sender || o.recipient === all[5].sender,
      ],
      ['q hash', { q: all[9].hash }, (o) => o.hash === all[9].hash],
      ['q symbol', { q: 'EURC' }, (o) => o.asset === 'EURC'],
      ['q venue', { q: 'Stablecoin DEX' }, (o) => o.exchange === 'Stablecoin DEX'],
      [
        'asset contract',
        { asset: all[0].asset_contract!.toUpperCase().replace('0X', '0x') },
        (o) => o.asset_contract === all[0].asset_contract,
      ],
      ['asset symbol', { asset: 'USDC.e' }, (o) => o.asset === 'USDC.e'],
      ['exchange', { exchange: 'Uniswap v3' }, (o) => o.exchange === 'Uniswap v3'],
      ['exchange unknown', { exchange: 'unknown' }, (o) => o.exchange === null],
      ['execution failed', { execution: 'failed' }, (o) => o.execution === 'failed'],
      ['execution success', { execution: 'success' }, (o) => o.execution === 'success'],
      ['execution unknown', { execution: 'unknown' }, (o) => o.execution === 'unknown'],
      [
        'asset + failed',
        { asset: all[0].asset_contract!, execution: 'failed' },
        (o) => o.asset_contract === all[0].asset_contract && o.execution === 'failed',
      ],
      ['payer apart', { payer: third }, (o) => o.detail.payer === third],
      ['payer = sender', { payer: all[5].sender! }, (o) => o.detail.payer?.toLowerCase() === all[5].sender],
      [
        'payer + window',
        { payer: all[5].recipient!, since: t0 + 10, until: t0 + 70 },
        (o) => o.detail.payer?.toLowerCase() === all[5].recipient && o.time >= t0 + 10 && o.time < t0 + 70,
      ],
      [
        'combined',
        { execution: 'success', asset: 'pathUSD', until: t0 + 80 },
        (o) => o.execution === 'success' && o.asset === 'pathUSD' && o.time < t0 + 80,
      ],
    ];

    describe.each(variants)('written $name', ({ write }) => {
      let s: Store;
      /** What the store holds (the pagination test adds a late block). */
      let current = all;
      it('lists every filter sorted by time desc then hash, with exact totals', async () => {
        s = await fresh();
        await write(s);
        for (const [name, f, pred] of filters) {
          const want = all.filter(pred);
          if (name !== 'until before everything') expect(want.length, `${name} matches some`).toBeGreaterThan(0);
          const page = await listTransactions(s, f, { limit: 100, offset: 0 });
          expect(page.total, name).toBe(want.length);
          expect(
            page.rows.map((r) => r.hash),
            name,
          ).toEqual(want.slice(0, 100).map((o) => o.hash));
          const deep = await listTransactions(s, f, { limit: 7, offset: 13 });
          expect(
            deep.rows.map((r) => r.hash),
            `${name} offset`,
          ).toEqual(want.slice(13, 20).map((o) => o.hash));
        }
      });

      it('paginates with a fixed until: each hash exactly once, even with later arrivals', async () => {
        const until = t0 + 90;
        const seen: string[] = [];
        for (let offset = 0; ; offset += 30) {
          const p = await listTransactions(s, { until }, { limit: 30, offset });
          seen.push(...p.rows.map((r) => r.hash));
          if (offset === 30) {
            // A late block after `until` must not shift the pages.
            const late = relocate(blocks[5], blocks.at(-1)!.height + 100, blocks.at(-1)!.time + 100);
            await writeBlocks(s, [late], { height: late.height, hash: late.hash });
            current = [...all, ...late.observations].sort(publicOrder);
          }
          if (p.rows.length < 30) break;
        }
        const want = all.filter((o) => o.time < until).map((o) => o.hash);
        expect(seen).toEqual(want);
        expect(new Set(seen).size).toBe(seen.length);
      });

      it('metrics: exact sums equal independently computed sums', async () => {
        for (const [name, f, pred] of filters) {
          const m = await computeMetrics(s, f);
          const want = current.filter(pred);
          expect(m.total, name).toBe(want.length);
          expect(m.analyzed, name).toBe(want.length);
          expect(m.truncated).toBe(false);
          expect(m.nominal, name).toBe(sumDecimals(want.map((o) => nominalOf(o.nominal_parts, s.tokenList))));
          expect(m.fees, name).toBe(sumDecimals(want.map((o) => o.fee)));
          const known = want.filter((o) => o.execution !== 'unknown');
          expect(m.rate, name).toBe(known.length ? known.filter((o) => o.execution === 'success').length / known.length : null);
          expect(m.task_outcomes).toBeNull();
        }
      });

      it('metrics aggregate only the latest window of matches and say so', async () => {
        const m = await computeMetrics(s, {}, 50);
        const latest = current.slice(0, 50);
        expect(m).toMatchObject({ total: current.length, analyzed: 50, truncated: true });
        expect(m.nominal).toBe(sumDecimals(latest.map((o) => nominalOf(o.nominal_parts, s.tokenList))));
        expect(m.fees).toBe(sumDecimals(latest.map((o) => o.fee)));
      });

      it('export parses as CSV and matches the list', async () => {
        for (const [name, f] of filters.slice(0, 8)) {
          const text = await new Response((await csvExport(exportRows(s, f))) as unknown as ReadableStream).text();
          const recs = parse(text, { columns: true }) as Record<string, string>[];
          const list = await listTransactions(s, f, { limit: 100, offset: 0 });
          expect(recs.length, name).toBe(list.total);
          expect(
            recs.slice(0, 100).map((r) => r.hash),
            name,
          ).toEqual(list.rows.map((r) => r.hash));
          for (const [i, r] of list.rows.entries()) {
            expect(recs[i].amount).toBe(r.amount ?? '');
            expect(recs[i].nominal).toBe(r.nominal ?? '');
            expect(recs[i].fee).toBe(r.fee ?? '');
            expect(recs[i].sender).toBe(r.sender ?? '');
          }
        }
      });
    });
  });
});
