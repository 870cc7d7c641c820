/**
 * The slim observations row: detail lives in observation_details and leg payees in leg_recipients, both
 * written in writeBlocks' one transaction; receivedPayments counts direct recipients and leg payees once each.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Store } from '../../src/store/db.js';
import { computeMetrics, getTransaction, listTransactions, writeBlocks } from '../../src/store/chain/index.js';
import { receivedPayments } from '../../src/store/trust/index.js';
import { STATS_REUSE_MS } from '../../src/store/cache.js';
import type { BlockObservations, Execution, Observation } from '../../src/domain/observation.js';
import { chainMigrations } from '../../src/store/migrations/chain.js';
import { DETAIL_GROUP_ROWS, storedDetailForm, unpackDetail } from '../../src/store/chain/detail-codec.js';
import { readStoredDetails } from '../../src/store/chain/stored-details.js';
import { serializeObservation } from '../../src/store/chain/rows.js';
import { packPendingDetails } from '../../src/store/chain/pack-details.js';
import { DIALECTS, storeFactory } from '../helpers/db.js';
import { makeBlocks, observationsOf } from '../helpers/observations.js';

const TOKEN = '0x20c0000000000000000000000000000000000000';
const PAY_TO = `0x${'ab'.repeat(20)}`;
const OTHER = `0x${'cd'.repeat(20)}`;

/** A one-transaction block paying `recipient` directly and `legTo` through its TIP-20 legs. */
function payment(height: number, recipient: string, legTo: string[], execution: Execution = 'success'): BlockObservations {
  const hash = `0x${height.toString(16).padStart(64, '0')}` as `0x${string}`;
  const time = 1_767_225_600 + height;
  const o: Observation = {
    hash,
    time,
    height,
    tx_index: 0,
    chain_id: 4217,
    sender: OTHER,
    recipient,
    asset: 'pathUSD',
    asset_contract: TOKEN,
    amount: '1',
    nominal_parts: [{ asset_contract: TOKEN, amount: '1' }],
    fee: '0.001',
    exchange: null,
    protocol: null,
    category: 'transfer',
    execution,
    decode: 'full',
    integrity: { score: 0, maximum: 5, version: '1', scope: 'test', stages: [] },
    detail: {
      transaction: null,
      receipt: null,
      evidence: null,
      calls: null,
      forensics: null,
      unknown: null,
      // Upper-case on purpose: leg addresses are matched lower-case.
      legs: legTo.map((to, i) => ({
        from: OTHER,
        to: to.toUpperCase().replace('0X', '0x'),
        asset: 'pathUSD',
        asset_contract: TOKEN,
        amount: '1',
        amount_atomic: '1000000',
        log_index: i,
      })),
    },
  };
  return { height, hash, time, observations: [o] };
}

describe.each(DIALECTS)('observation details and leg recipients on %s', (dialect) => {
  const stores = storeFactory(dialect);
  afterAll(() => stores.cleanup());
  const fresh = stores.fresh;
  const rows = async (s: Store, table: 'observations' | 'observation_details' | 'leg_recipients') =>
    Number(
      (
        await s.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('stores each detail beside its row, not in it, and serves it from the detail read', async () => {
    const s = await fresh();
    const blocks = makeBlocks({ count: 60, seed: 11 });
    const last = blocks[blocks.length - 1];
    await writeBlocks(s, blocks, { height: last.height, hash: last.hash });
    await writeBlocks(s, blocks, { height: last.height, hash: last.hash });
    expect(await rows(s, 'observations')).toBe(60);
    expect(await rows(s, 'observation_details')).toBe(60);
    const columns = Object.keys((await sql<Record<string, unknown>>`select * from observations limit 1`.execute(s.db)).rows[0]);
    expect(columns).not.toContain('detail');
    const one = observationsOf(blocks)[23];
    expect(await getTransaction(s, one.hash)).toMatchObject({ hash: one.hash, ...one.detail });
  });

  it('a failing writeBlocks leaves no detail or leg recipient behind', async () => {
    const s = await fresh();
    const good = payment(1, OTHER, [PAY_TO]);
    const bad = payment(2, OTHER, [PAY_TO]);
    // A NOT NULL violation in the second observation's row aborts the whole write.
    bad.observations[0] = { ...bad.observations[0], execution: null as never };
    await expect(writeBlocks(s, [good, bad], { height: 2, hash: bad.hash })).rejects.toThrow();
    expect(await rows(s, 'observations')).toBe(0);
    expect(await rows(s, 'observation_details')).toBe(0);
    expect(await rows(s, 'leg_recipients')).toBe(0);
  });

  it('receivedPayments counts successful observations paying the address directly or through a leg, each once', async () => {
    const s = await fresh();
    expect(await receivedPayments(s, PAY_TO)).toEqual({ count: 0, first_time_unix: null, last_time_unix: null });
    const blocks = [
      payment(10, PAY_TO, [PAY_TO]), // direct, and a leg to the same address: one observation
      payment(20, TOKEN, [PAY_TO, PAY_TO, OTHER]), // legs only (the transaction's recipient is the token contract)
      payment(30, PAY_TO, [], 'failed'), // failed: not a received payment
      payment(40, TOKEN, [PAY_TO], 'unknown'), // unknown execution: not counted
      payment(50, TOKEN, [OTHER]), // pays someone else
    ];
    await writeBlocks(s, blocks, { height: 50, hash: blocks[4].hash });
    await writeBlocks(s, blocks.slice(0, 2), { height: 50, hash: blocks[4].hash });
    expect(await receivedPayments(s, PAY_TO)).toEqual({ count: 2, first_time_unix: 1_767_225_610, last_time_unix: 1_767_225_620 });
    expect(await receivedPayments(s, PAY_TO.toUpperCase().replace('0X', '0x'))).toMatchObject({ count: 2 });
    expect(await receivedPayments(s, OTHER)).toEqual({ count: 2, first_time_unix: 1_767_225_620, last_time_unix: 1_767_225_650 });
    expect(await receivedPayments(s, 'not-an-address')).toEqual({ count: 0, first_time_unix: null, last_time_unix: null });
  });

  it('remembered filtered totals and metrics change with the next write', async () => {
    const s = await fresh();
    const f = { asset: TOKEN, execution: 'success' as const };
    await writeBlocks(s, [payment(1, OTHER, [])], { height: 1, hash: payment(1, OTHER, []).hash });
    expect((await listTransactions(s, f, { limit: 10, offset: 0 })).total).toBe(1);
    expect(await computeMetrics(s, f)).toMatchObject({ total: 1, nominal: '1' });
    await writeBlocks(s, [payment(2, OTHER, [])], { height: 2, hash: payment(2, OTHER, []).hash });
    expect((await listTransactions(s, f, { limit: 10, offset: 0 })).total).toBe(2);
    expect(await computeMetrics(s, f)).toMatchObject({ total: 2, nominal: '2' });
  });

  it('a remembered page is served only until the next write, then read anew', async () => {
    const s = await fresh();
    await writeBlocks(s, [payment(1, OTHER, [])], { height: 1, hash: payment(1, OTHER, []).hash });
    const first = await listTransactions(s, {}, { limit: 10, offset: 0 });
    // Same store version, same query: the very same page (polling clients share one read).
    expect(await listTransactions(s, {}, { limit: 10, offset: 0 })).toBe(first);
    await writeBlocks(s, [payment(2, OTHER, [])], { height: 2, hash: payment(2, OTHER, []).hash });
    const second = await listTransactions(s, {}, { limit: 10, offset: 0 });
    expect(second).not.toBe(first);
    expect(second.rows.map((r) => r.height)).toEqual([2, 1]);
  });

  it('keys details by seq, and chain_0003 re-keys a store of hash-keyed details (and back) without losing one', async () => {
    const s = await fresh();
    const blocks = makeBlocks({ count: 40, seed: 5 });
    const last = blocks[blocks.length - 1];
    await writeBlocks(s, blocks, { height: last.height, hash: last.hash });
    const hashes = observationsOf(blocks).map((o) => o.hash);
    const before = await Promise.all(hashes.map((h) => getTransaction(s, h)));
    const keyColumns = async () =>
      ((await s.db.introspection.getTables()).find((t) => t.name === 'observation_details')?.columns ?? []).map((c) => c.name).sort();
    expect(await keyColumns()).toEqual(['detail', 'packed', 'seq']);
    const migration = chainMigrations.chain_0003_details_by_seq;
    // down() gives the layout of a store written before chain_0003 (chain_0001/0002: keyed by hash), details as JSON text.
    await chainMigrations.chain_0007_details_packed.down!(s.db);
    await migration.down!(s.db);
    expect(await keyColumns()).toEqual(['detail', 'hash']);
    expect(await rows(s, 'observation_details')).toBe(hashes.length);
    await migration.up(s.db);
    await migration.up(s.db); // a second run (a crash after the rebuild, before it was recorded) changes nothing
    expect(await keyColumns()).toEqual(['detail', 'seq']);
    expect(await rows(s, 'observation_details')).toBe(hashes.length);
    await chainMigrations.chain_0007_details_packed.up(s.db);
    expect(await packPendingDetails(s)).toBe(hashes.length);
    expect(await keyColumns()).toEqual(['detail', 'packed', 'seq']);
    expect(await Promise.all(hashes.map((h) => getTransaction(s, h)))).toEqual(before);
    expect(before.every((d) => d !== null && d.legs !== null)).toBe(true);
  });

  it('chain_0004 turns a stored nominal into list-independent parts (and back) with every answer unchanged', async () => {
    const s = await fresh();
    const blocks = makeBlocks({ count: 40, seed: 9 });
    // Three sender legs: 1 pathUSD + 2 USDC.e (both USD) and 5 of a EUR token; the primary leg is the EUR one.
    const usdc = '0x20c000000000000000000000b9537d11c60e8b50';
    const eur = '0x20c0000000000000000000001621e21f71cf12fb';
    const multi = payment(2_000_000, OTHER, []);
    const o = multi.observations[0];
    const leg = (asset_contract: string, amount: string, i: number) => ({
      from: OTHER,
      to: PAY_TO,
      asset: null,
      asset_contract,
      amount,
      amount_atomic: '0',
      log_index: i,
    });
    Object.assign(o, {
      asset: 'EURC.e',
      asset_contract: eur,
      amount: '5',
      nominal_parts: [
        { asset_contract: TOKEN, amount: '1' },
        { asset_contract: usdc, amount: '2' },
      ],
    });
    o.detail.legs = [leg(eur, '5', 0), leg(TOKEN, '1', 1), leg(usdc, '2', 2)];
    const all = [...blocks, multi];
    await writeBlocks(s, all, { height: multi.height, hash: multi.hash });
    const hashes = observationsOf(all).map((x) => x.hash);
    const before = await Promise.all(hashes.map((h) => getTransaction(s, h)));
    const metrics = await computeMetrics(s, {});
    expect((await getTransaction(s, multi.hash))?.nominal).toBe('3');
    const migration = chainMigrations.chain_0004_nominal_parts;
    // down() gives the layout of a store written before chain_0004: one `nominal` column, list-dependent, and
    // details as JSON text (chain_0007 reverted first).
    await chainMigrations.chain_0007_details_packed.down!(s.db);
    await migration.down!(s.db);
    const { rows: old } = await sql<{ nominal: string | null }>`select nominal from observations where hash = ${multi.hash}`.execute(s.db);
    expect(old[0].nominal).toBe('3');
    await migration.up(s.db);
    await migration.up(s.db); // a second run changes nothing
    await chainMigrations.chain_0007_details_packed.up(s.db);
    const fresher = await stores.reopen(s); // a new handle: no remembered answers
    expect(await Promise.all(hashes.map((h) => getTransaction(fresher, h)))).toEqual(before);
    expect(await computeMetrics(fresher, {})).toEqual(metrics);
    const { rows: parts } = await sql<{ p: string }>`select nominal_parts as p from observations where hash = ${multi.hash}`.execute(s.db);
    expect(JSON.parse(parts[0].p)).toEqual([
      [TOKEN, '1'],
      [usdc, '2'],
    ]);
  });

  it("sees another process's write once the reused counters read is older than STATS_REUSE_MS", async () => {
    const s = await fresh();
    const writer = await stores.reopen(s); // as another process (a separate collector) would
    await writeBlocks(writer, [payment(1, OTHER, [])], { height: 1, hash: payment(1, OTHER, []).hash });
    expect((await listTransactions(s, {}, { limit: 10, offset: 0 })).total).toBe(1);
    await writeBlocks(writer, [payment(2, OTHER, [])], { height: 2, hash: payment(2, OTHER, []).hash });
    await new Promise((r) => setTimeout(r, STATS_REUSE_MS + 50));
    expect((await listTransactions(s, {}, { limit: 10, offset: 0 })).total).toBe(2);
  });
});

describe.each(DIALECTS)('observation details on %s', (dialect) => {
  const stores = storeFactory(dialect);
  afterAll(() => stores.cleanup());

  it('are stored packed (a fraction of their JSON) and read back whole', async () => {
    const s = await stores.fresh();
    const b = payment(
      7,
      OTHER,
      Array.from({ length: 40 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`),
    );
    await writeBlocks(s, [b], { height: 7, hash: b.hash });
    const stored = await s.db.selectFrom('observation_details').select(['detail', 'packed']).execute();
    expect(stored).toHaveLength(1);
    expect(stored[0].detail).toBe('');
    const json = JSON.stringify(b.observations[0].detail);
    expect(json.length).toBeGreaterThan(4000);
    expect(stored[0].packed!.length).toBeLessThan(json.length / 4);
    expect(unpackDetail(stored[0].packed!)).toBe(json);
    expect((await getTransaction(s, b.hash))?.legs).toHaveLength(40);
  });

  it('are packed by block time, and each reads back whole whichever rows a read holds', async () => {
    const s = await stores.fresh();
    // Blocks of up to 40 transactions: groups of several rows, some cut at DETAIL_GROUP_ROWS.
    const blocks = makeBlocks({ count: 600, seed: 21, maxTxPerBlock: 40 });
    await writeBlocks(s, blocks, { height: blocks.at(-1)!.height, hash: blocks.at(-1)!.hash });
    const json = new Map<string, string>(observationsOf(blocks).map((o) => [o.hash, serializeObservation(o).detail]));
    const stored = await s.db
      .selectFrom('observation_details as d')
      .innerJoin('observations as o', 'o.seq', 'd.seq')
      .select(['d.seq', 'd.detail', 'd.packed', 'o.hash'])
      .orderBy('d.seq')
      .execute();
    expect(stored).toHaveLength(json.size);
    const forms = stored.map((r) => storedDetailForm(r.packed!));
    expect(forms.some((f) => f.form === 'head' && f.rows === DETAIL_GROUP_ROWS)).toBe(true);
    expect(forms.filter((f) => f.form === 'member').length).toBeGreaterThan(stored.length / 2);
    const expected = stored.map((r) => json.get(r.hash));
    // All rows at once, in reverse, and each row alone (its group's first row then read from the store).
    expect(await readStoredDetails(s.db, stored)).toEqual(expected);
    expect(await readStoredDetails(s.db, [...stored].reverse())).toEqual([...expected].reverse());
    for (const [i, r] of stored.entries()) expect(await readStoredDetails(s.db, [r])).toEqual([expected[i]]);
    // As served: the detail route reads a member through its group.
    const member = stored[forms.findIndex((f) => f.form === 'member')]!;
    const served = await getTransaction(s, member.hash);
    expect(served?.transaction).toEqual(JSON.parse(json.get(member.hash)!).transaction ?? null);
    // A group whose first row is gone: its rows read as errors, every other row as before.
    const headSeq = Number(stored[forms.findIndex((f) => f.form === 'head')]!.seq);
    await s.db.deleteFrom('observation_details').where('seq', '=', headSeq).execute();
    const left = stored.filter((r) => Number(r.seq) !== headSeq);
    const after = await readStoredDetails(s.db, left);
    let orphans = 0;
    for (const [i, r] of left.entries()) {
      const f = storedDetailForm(r.packed!);
      if (f.form === 'member' && Number(r.seq) - f.index === headSeq) {
        expect(after[i]).toBeInstanceOf(Error);
        orphans++;
      } else expect(after[i]).toBe(json.get(r.hash));
    }
    expect(orphans).toBeGreaterThan(0);
  });
});
