/**
 * The payment rollups and what reads them, on both dialects, over a synthetic chain whose details name payers
 * (a sixth of them self-payments) written through the real writer: rankings and a service's payments equal a
 * brute-force sum over the stored observations; re-attribution moves payments between services exactly; a rebuild
 * from the observations gives the same rows as the incremental writes; bad parameters are 400 naming them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { rollupMigrations } from '../../src/store/migrations/rollups.js';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config.js';
import { nominalOf } from '../../src/domain/listing.js';
import { blocksWithPayers } from '../helpers/observations.js';
import { writeBlocks } from '../../src/store/chain/index.js';
import { parseNominalParts } from '../../src/store/chain/rows.js';
import { computeRanking, rankRollups, share } from '../../src/store/chain/rankings.js';
import { ROLLUP_COLUMNS, ROLLUP_TABLES, rebuildRollups, reattributeRollups } from '../../src/store/chain/rollups.js';
import { dropOlderThan } from '../../src/store/chain/retention.js';
import { servicePayments, sumServicePayments } from '../../src/store/chain/service-payments.js';
import { openStore, type Store } from '../../src/store/db.js';
import { createTestDb, DIALECTS, type TestDb } from '../helpers/db.js';
import { addExact, cmpExact, formatExact, parseDecimal, type ExactDecimal } from '../../src/domain/money.js';

const START = 1_767_225_600;
const COUNT = 1500;
const SERVICES = ['a'.repeat(64), 'b'.repeat(64), 'c'.repeat(64)];

const sum = (a: ExactDecimal | null, b: string | null) => (b === null ? a : a === null ? parseDecimal(b) : addExact(a, parseDecimal(b)));

describe.each(DIALECTS)('payment rollups (%s)', (dialect) => {
  let t: TestDb;
  let store: Store;
  let app: FastifyInstance;
  beforeAll(async () => {
    t = await createTestDb(dialect);
    store = await openStore(t.url);
    // The sender pays, every sixth the recipient (a self-payment); 300 s apart, so the window spans several UTC days.
    const blocks = [...blocksWithPayers({ count: COUNT, seed: 5, startTime: START, maxTxPerBlock: 6, spacing: 300, selfEvery: 6 })];
    // Several writes, so rows of one day are added to across transactions.
    for (let i = 0; i < blocks.length; i += 100) {
      const part = blocks.slice(i, i + 100);
      await writeBlocks(store, part, { height: part[part.length - 1].height, hash: part[part.length - 1].hash });
    }
    app = await buildApp({ store, config: loadConfig({ db: t.url }, {}), components: new Map() }, { logger: false });
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await t?.drop();
  });

  /** Brute force over the stored observations: per subject, payments, distinct non-self payers, nominal, self-payments. */
  async function bruteForce(
    subjectOf: (r: Record<string, unknown>) => string | null,
    since: number,
    until: number,
    protocol?: 'mpp' | 'unknown',
  ) {
    const rows = await store.db
      .selectFrom('observations')
      .select([...ROLLUP_COLUMNS])
      .where('time', '>=', since)
      .where('time', '<', until)
      .execute();
    const out = new Map<
      string,
      { payments: number; payers: Set<string>; nominal: ExactDecimal | null; self: number; byPayer: Map<string, ExactDecimal | null> }
    >();
    for (const r of rows) {
      if (r.execution !== 'success' || !r.payer) continue;
      if (protocol && (r.protocol ?? 'unknown') !== protocol) continue;
      const s = subjectOf(r);
      if (!s) continue;
      const e = out.get(s) ?? { payments: 0, payers: new Set<string>(), nominal: null, self: 0, byPayer: new Map() };
      out.set(s, e);
      e.payments++;
      const v = nominalOf(parseNominalParts(r.nominal_parts), store.tokenList);
      e.nominal = sum(e.nominal, v);
      if (r.payer === r.recipient) e.self++;
      else {
        e.payers.add(r.payer);
        e.byPayer.set(r.payer, sum(e.byPayer.get(r.payer) ?? null, v));
      }
    }
    return out;
  }

  // Every rollup table, rows in a canonical order (numbers from PostgreSQL's bigint strings).
  const dump = async () => {
    const out: string[] = [];
    for (const table of ROLLUP_TABLES)
      for (const r of await store.db.selectFrom(table).selectAll().execute())
        out.push(
          JSON.stringify([
            table,
            ...Object.entries(r)
              .sort()
              .map(([k, v]) => [k, typeof v === 'number' || /^-?\d+$/.test(String(v)) ? Number(v) : v]),
          ]),
        );
    return out.sort();
  };

  const window = { since: START, until: START + 5 * 86_400 };

  it('ranks recipients as a brute-force sum over the observations says, ties by nominal then address', async () => {
    const want = await bruteForce((r) => r.recipient as string | null, window.since, window.until);
    const got = await rankRollups(store, { kind: 'recipients', ...window, by: 'distinct_payers', limit: 100, offset: 0 });
    expect(got.total).toBe(want.size);
    expect(got.rows.length).toBeGreaterThan(10);
    for (const row of got.rows) {
      const w = want.get(row.address!)!;
      expect(row).toMatchObject({
        payments: w.payments,
        distinct_payers: w.payers.size,
        self_payments: w.self,
        nominal: w.nominal && formatExact(w.nominal),
      });
    }
    for (let i = 1; i < got.rows.length; i++) {
      const [a, b] = [got.rows[i - 1], got.rows[i]];
      expect(a.distinct_payers).toBeGreaterThanOrEqual(b.distinct_payers);
      if (a.distinct_payers === b.distinct_payers && a.nominal !== null && b.nominal !== null) {
        expect(Number(a.nominal)).toBeGreaterThanOrEqual(Number(b.nominal));
      }
    }
    expect(got.rows.some((r) => r.self_payments > 0)).toBe(true);
    // The chain ends inside the window: collected without a gap up to its newest block, which is complete.
    expect(got.complete).toBe(true);
    expect(got.covered_since).toBe(START);
    // A window reaching before the first collected block has a gap.
    const early = await rankRollups(store, {
      kind: 'recipients',
      since: START - 2 * 86_400,
      until: window.until,
      by: 'payments',
      limit: 1,
      offset: 0,
    });
    expect(early).toMatchObject({ complete: false, covered_since: START, total: got.total });
  });

  it("top_payer_share is the brute force's largest payer exactly, in windows shorter than the history and per protocol", async () => {
    const windows = [
      window,
      { since: START + 86_400, until: START + 2 * 86_400 },
      { since: START + 2 * 86_400, until: START + 4 * 86_400 },
    ];
    let checked = 0;
    for (const w of windows)
      for (const protocol of [undefined, 'mpp', 'unknown'] as const) {
        const want = await bruteForce((r) => r.recipient as string | null, w.since, w.until, protocol);
        const got = await rankRollups(store, { kind: 'recipients', ...w, by: 'nominal', protocol, limit: 100, offset: 0 });
        for (const row of got.rows) {
          const e = want.get(row.address!)!;
          const top = [...e.byPayer.values()].reduce<ExactDecimal | null>(
            (a, b) => (b !== null && (a === null || cmpExact(b, a) > 0) ? b : a),
            null,
          );
          expect(row.top_payer_share).toBe(e.nominal && top && e.nominal.n > 0n ? share(top, e.nominal) : null);
          checked++;
        }
      }
    expect(checked).toBeGreaterThan(100);
  });

  it('counts distinct payers exactly in any window and protocol: ending before the newest payment, or after it', async () => {
    // The chain spans about two days: the first ends before its newest payment (counted from the per-payer rows),
    // the second reaches past it (read from the payers' latest days).
    for (const w of [
      { since: START, until: START + 86_400 },
      { since: START + 86_400, until: START + 5 * 86_400 },
    ])
      for (const protocol of [undefined, 'mpp', 'unknown'] as const) {
        const want = await bruteForce((r) => r.recipient as string | null, w.since, w.until, protocol);
        const got = await rankRollups(store, { kind: 'recipients', ...w, by: 'distinct_payers', protocol, limit: 100, offset: 0 });
        expect(got.total, `${w.since} ${protocol}`).toBe(want.size);
        expect(got.rows.length).toBeGreaterThan(5);
        for (const row of got.rows) {
          const x = want.get(row.address!)!;
          expect(row, `${w.since} ${protocol}`).toMatchObject({
            payments: x.payments,
            distinct_payers: x.payers.size,
            self_payments: x.self,
            nominal: x.nominal && formatExact(x.nominal),
          });
        }
      }
  });

  it("a ranking by distinct payers read page by page (only the page's subjects summed) tiles the brute force's order, self-paid-only subjects last", async () => {
    // Windows reaching past the newest payment, where a page sums only its own subjects (pageByDistinctPayers).
    const past = { since: window.since, until: window.until + 86_400 };
    let selfOnlySeen = 0;
    for (const protocol of [undefined, 'mpp', 'unknown'] as const) {
      const want = await bruteForce((r) => r.recipient as string | null, past.since, past.until, protocol);
      const order = [...want]
        .map(([id, w]) => ({ id, n: w.payers.size, nominal: w.nominal }))
        .sort((a, b) => b.n - a.n || cmpExact(b.nominal, a.nominal) || (a.id < b.id ? -1 : 1))
        .map((x) => x.id);
      selfOnlySeen += [...want.values()].filter((w) => w.payers.size === 0).length;
      for (const limit of [2, 7]) {
        const ids: string[] = [];
        for (let offset = 0; offset < order.length + limit; offset += limit) {
          const page = await rankRollups(store, { kind: 'recipients', ...past, by: 'distinct_payers', protocol, limit, offset });
          expect(page.total, `${protocol} ${limit} ${offset}`).toBe(order.length);
          expect(page.rows.map((r) => r.rank)).toEqual(page.rows.map((_, i) => offset + i + 1));
          for (const row of page.rows) {
            const w = want.get(row.address!)!;
            expect(row).toMatchObject({ payments: w.payments, distinct_payers: w.payers.size, self_payments: w.self });
          }
          ids.push(...page.rows.map((r) => r.address!));
        }
        expect(ids, `${protocol} limit ${limit}`).toEqual(order);
      }
    }
    expect(selfOnlySeen).toBeGreaterThan(0);
  });

  it('a self-payment is visible as such and never a distinct payer', async () => {
    const got = await rankRollups(store, { kind: 'recipients', ...window, by: 'payments', limit: 100, offset: 0 });
    const selfOnly = await bruteForce((r) => (r.payer === r.recipient ? (r.recipient as string) : null), window.since, window.until);
    const [addr, w] = [...selfOnly][0];
    const all = await rankRollups(store, { kind: 'recipients', ...window, by: 'payments', limit: 100, offset: 0 });
    const row = [...got.rows, ...all.rows].find((r) => r.address === addr);
    if (row) expect(row.self_payments).toBeGreaterThanOrEqual(w.self);
    const payers = await rankRollups(store, { kind: 'payers', ...window, by: 'payments', limit: 100, offset: 0 });
    const p = payers.rows.find((r) => r.address === addr);
    expect(p === undefined || p.self_payments >= w.self).toBe(true);
  });

  it('re-attribution moves payments between services exactly, and a rebuild gives the same rows', async () => {
    const before = await store.db
      .selectFrom('observations')
      .select(['seq', ...ROLLUP_COLUMNS])
      .where('payer', 'is not', null)
      .execute();
    const after = before.map((r, i) => ({
      ...r,
      service_id: SERVICES[i % 3],
      provider: i % 3 === 2 ? 'other.example' : 'demo.example',
      attribution_method: i % 2 ? 'pay_to' : 'memo_and_pay_to',
      client_fingerprint: i % 5 ? `0x${String(i % 7).repeat(20)}` : null,
    }));
    // The matcher's write: rows and rollups in one transaction.
    await store.db.transaction().execute(async (trx) => {
      for (const r of after)
        await trx
          .updateTable('observations')
          .set({
            service_id: r.service_id,
            provider: r.provider,
            attribution_method: r.attribution_method,
            client_fingerprint: r.client_fingerprint,
          })
          .where('seq', '=', r.seq)
          .execute();
      await reattributeRollups(trx, before, after);
      await trx.updateTable('chain_stats').set({ updated_at: new Date().toISOString() }).where('id', '=', 1).execute();
    });
    store.cache.chainWritten();
    const want = await bruteForce((r) => r.service_id as string | null, window.since, window.until);
    const got = await computeRanking(store, { kind: 'services', ...window, by: 'nominal', limit: 10, offset: 0 });
    expect(got.rows.map((r) => r.service_id)).toHaveLength(3);
    for (const row of got.rows) {
      const w = want.get(row.service_id!)!;
      expect(row).toMatchObject({ payments: w.payments, distinct_payers: w.payers.size, nominal: w.nominal && formatExact(w.nominal) });
      expect(row.provider).toBe(row.service_id === SERVICES[2] ? 'other.example' : 'demo.example');
      expect(row.top_payer_share).toBeGreaterThan(0);
      expect(row.top_payer_share).toBeLessThanOrEqual(1);
    }
    const pay = await sumServicePayments(store, { service_id: SERVICES[0] }, window.since, window.until);
    const w0 = want.get(SERVICES[0])!;
    expect(pay.count).toBe(w0.payments);
    expect(pay.by_method.memo_and_pay_to + pay.by_method.pay_to).toBe(w0.payments);
    expect(pay.by_protocol.mpp.count + pay.by_protocol.unknown.count).toBe(w0.payments);
    expect(pay.distinct_payers).toBe(w0.payers.size);
    expect(pay.distinct_clients).toBeGreaterThan(0);
    expect(pay.distinct_clients).toBeLessThanOrEqual(7);
    const prov = await sumServicePayments(store, { provider: 'demo.example' }, window.since, window.until);
    expect(prov.count).toBe(w0.payments + want.get(SERVICES[1])!.payments);

    const incremental = await dump();
    await rebuildRollups(store.db);
    expect(await dump()).toEqual(incremental);
  });

  it("a ranking and a service's payments are remembered per whole-day window, not per second of `until`", async () => {
    // The routes default `until` to now: two requests a few seconds apart in one UTC day must share one answer.
    const until = window.since + 3600;
    const req = { kind: 'services' as const, since: until - 30 * 86_400, by: 'distinct_payers' as const, limit: 20, offset: 0 };
    const a = await computeRanking(store, { ...req, until });
    const b = await computeRanking(store, { ...req, until: until + 7, since: req.since + 7 });
    expect(b).toBe(a);
    const of = { service_id: SERVICES[0] };
    const p = await servicePayments(store, of, until - 30 * 86_400, until);
    expect(await servicePayments(store, of, until - 30 * 86_400 + 7, until + 7)).toBe(p);
  });

  it('chain_0021 keys payment_last_days day before subject on PostgreSQL (a window is one range), rows unchanged down and up', async () => {
    const rows = async () =>
      (
        await sql<Record<string, unknown>>`select dim, protocol, subject, day, payers from payment_last_days
        order by dim, protocol, subject, day`.execute(store.db)
      ).rows.map((r) => JSON.stringify(Object.values(r).map(String)));
    const keyText = async () =>
      dialect === 'postgres'
        ? (await sql<{ d: string }>`select pg_get_indexdef('payment_last_days_pk'::regclass) as d`.execute(store.db)).rows[0].d
        : (await sql<{ d: string }>`select sql as d from sqlite_master where name = 'payment_last_days'`.execute(store.db)).rows[0].d;
    const dayFirst = /\(\s*"?dim"?,\s*"?protocol"?,\s*"?day"?,\s*"?subject"?\s*\)/;
    const before = await rows();
    expect(before.length).toBeGreaterThan(0);
    // SQLite keeps subject before day: its clustered rows group by subject as they are read.
    const pg = dialect === 'postgres';
    const expectKey = async (dayFirstWanted: boolean) =>
      dayFirstWanted ? expect(await keyText()).toMatch(dayFirst) : expect(await keyText()).not.toMatch(dayFirst);
    await expectKey(pg);
    if (pg) expect(await keyText()).toMatch(/INCLUDE \(payers\)/);
    const m = rollupMigrations.chain_0021_last_days_by_day;
    await m.down!(store.db);
    await expectKey(false);
    expect(await rows()).toEqual(before);
    await m.up(store.db);
    await expectKey(pg);
    expect(await rows()).toEqual(before);
  });

  it('chain_0022 carries the summed columns in payment_rollups key on PostgreSQL (a payTo read index-only), rows unchanged down and up', async () => {
    const rows = async () =>
      (
        await sql<
          Record<string, unknown>
        >`select * from payment_rollups order by dim, subject, payer, day, protocol, self, method, client, contract`.execute(store.db)
      ).rows.map((r) => JSON.stringify(Object.values(r).map(String)));
    const keyText = async () =>
      dialect === 'postgres'
        ? (await sql<{ d: string }>`select pg_get_indexdef('payment_rollups_pk'::regclass) as d`.execute(store.db)).rows[0].d
        : (await sql<{ d: string }>`select sql as d from sqlite_master where name = 'payment_rollups'`.execute(store.db)).rows[0].d;
    const covering = /INCLUDE \(payments, first_time, last_time, whole, frac_hi, frac_lo, big\)/;
    const pg = dialect === 'postgres';
    const before = await rows();
    expect(before.length).toBeGreaterThan(0);
    if (pg) expect(await keyText()).toMatch(covering);
    else expect(await keyText()).not.toMatch(/INCLUDE/i);
    const m = rollupMigrations.chain_0022_rollups_covering_key;
    await m.down!(store.db);
    expect(await keyText()).not.toMatch(covering);
    expect(await rows()).toEqual(before);
    await m.up(store.db);
    if (pg) expect(await keyText()).toMatch(covering);
    expect(await rows()).toEqual(before);
  });

  it('GET /api/rankings/services answers the shape; bad parameters are 400 naming them', async () => {
    const ok = await app.inject({ url: `/api/rankings/services?since=${window.since}&until=${window.until}&by=payments&limit=2` });
    expect(ok.statusCode).toBe(200);
    const body = ok.json();
    expect(body).toMatchObject({ by: 'payments', limit: 2, offset: 0, total: 3 });
    expect(body.rows[0]).toMatchObject({ rank: 1 });
    for (const [q, name] of [
      ['by=revenue', 'by'],
      ['limit=101', 'limit'],
      ['offset=10001', 'offset'],
      ['protocol=lightning', 'protocol'],
      ['since=10&until=5', 'since'],
      ['x=1', 'x'],
    ]) {
      const r = await app.inject({ url: `/api/rankings/payers?${q}` });
      expect(r.statusCode, q).toBe(400);
      expect(r.json().error).toContain(`'${name}'`);
    }
    const bad = await app.inject({ url: '/api/payments?service_id=XYZ' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toContain("'service_id'");
    const both = await app.inject({ url: `/api/payments?service_id=${SERVICES[0]}&provider=demo.example` });
    expect(both.statusCode).toBe(400);
    const one = await app.inject({ url: `/api/payments?service_id=${SERVICES[0]}&since=${window.since}&until=${window.until}` });
    expect(one.statusCode).toBe(200);
    expect(one.json().payments.count).toBeGreaterThan(0);
  });

  it('retention drops the rollups of what it drops: they equal a rebuild from the retained observations', async () => {
    // Mid-day, so the oldest retained day keeps part of its payments, and in small batches.
    const cutoff = START + 86_400 + 7_777;
    await dropOlderThan(store, cutoff, Number.POSITIVE_INFINITY, 50);
    const w = { since: START, until: START + 5 * 86_400 };
    for (const by of ['distinct_payers', 'nominal'] as const) {
      const want = await bruteForce((r) => r.recipient as string | null, w.since, w.until);
      const got = await rankRollups(store, { kind: 'recipients', ...w, by, limit: 100, offset: 0 });
      expect(got.total).toBe(want.size);
      for (const row of got.rows) {
        const x = want.get(row.address!)!;
        expect(row).toMatchObject({ payments: x.payments, distinct_payers: x.payers.size, nominal: x.nominal && formatExact(x.nominal) });
      }
    }
    const incremental = await dump();
    expect(incremental.some((r) => r.startsWith('["payment_running"'))).toBe(true);
    await rebuildRollups(store.db);
    expect(await dump()).toEqual(incremental);
  });
});
