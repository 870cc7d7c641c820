/**
 * `exclude=self_payment,self_funded` on both dialects, over a synthetic chain written through the real writer whose
 * details name payers: a sixth are self-payments, and a fifth are paid by a wallet the recipient funded first (its
 * first inflow came from the recipient). The first_fundings table, /api/metrics, /api/metrics/series, /api/export and
 * the rankings, with and without each exclusion, equal a brute-force computation over the stored observations;
 * remembered answers never cross between exclusions; unknown values are 400 naming `exclude`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config.js';
import { nominalOf } from '../../src/domain/listing.js';
import { addExact, formatExact, parseDecimal, type ExactDecimal } from '../../src/domain/money.js';
import { syntheticBlocks } from '../../src/seed/chain.js';
import { writeBlocks } from '../../src/store/chain/index.js';
import { FUNDING_COLUMNS, fillFirstFundings } from '../../src/store/chain/first-fundings.js';
import { rankRollups } from '../../src/store/chain/rankings.js';
import { parseNominalParts } from '../../src/store/chain/rows.js';
import { openStore, type Store } from '../../src/store/db.js';
import { createTestDb, DIALECTS, type TestDb } from '../helpers/db.js';

const START = 1_767_225_600;
const COUNT = 1200;

/** Synthetic blocks whose details name a payer: the sender, the recipient (every sixth), or a wallet the recipient funded (every fifth). */
function* blocksWithPayers() {
  const funded = new Map<string, string[]>();
  const firstFunder = new Map<string, string>();
  let k = 0;
  for (const b of syntheticBlocks({ count: COUNT, seed: 7, startTime: START, maxTxPerBlock: 6 })) {
    const time = START + (b.height - 1_000_000) * 300;
    for (const o of b.observations) {
      if (o.exchange) continue;
      const n = k++;
      const recipient = o.recipient?.toLowerCase() ?? null;
      let payer = (o.sender ?? '').toLowerCase();
      if (!payer) continue;
      if (n % 6 === 0 && recipient) payer = recipient;
      else if (n % 5 === 1 && recipient && funded.get(recipient)?.length) payer = funded.get(recipient)![0];
      (o.detail as { payer?: string | null }).payer = payer;
      if (recipient && payer !== recipient && o.nominal_parts && !firstFunder.has(recipient)) {
        firstFunder.set(recipient, payer);
        funded.set(payer, [...(funded.get(payer) ?? []), recipient]);
      }
    }
    yield { ...b, time, observations: b.observations.map((o) => ({ ...o, time })) };
  }
}

const add = (a: ExactDecimal | null, b: string | null) => (b === null ? a : a === null ? parseDecimal(b) : addExact(a, parseDecimal(b)));

describe.each(DIALECTS)('exclude self-payments and self-funded payments (%s)', (dialect) => {
  let t: TestDb;
  let store: Store;
  let app: FastifyInstance;
  type Row = Awaited<ReturnType<typeof storedRows>>[number];
  let rows: Row[];
  /** Brute force: each address's first funder in a listed token, by (height, tx_index). */
  let funderOf: Map<string, string>;

  const storedRows = () =>
    store.db
      .selectFrom('observations')
      .select([...FUNDING_COLUMNS, 'self_payment', 'fee', 'asset_contract'])
      .execute();

  beforeAll(async () => {
    t = await createTestDb(dialect);
    store = await openStore(t.url);
    const blocks = [...blocksWithPayers()];
    // Newest writes first for half of them: the earliest inflow must win whatever order blocks arrive in.
    const parts: (typeof blocks)[] = [];
    for (let i = 0; i < blocks.length; i += 100) parts.push(blocks.slice(i, i + 100));
    for (const part of [...parts.slice(6).reverse(), ...parts.slice(0, 6)])
      await writeBlocks(store, part, { height: part[part.length - 1].height, hash: part[part.length - 1].hash });
    app = await buildApp({ store, config: loadConfig({ db: t.url }, {}), components: new Map() }, { logger: false });
    rows = await storedRows();
    const listed = new Set(store.tokenList.tokens.keys());
    const first = new Map<string, { funder: string; at: [number, number] }>();
    for (const r of rows) {
      if (r.execution !== 'success' || !r.payer || !r.recipient || r.payer === r.recipient) continue;
      for (const p of parseNominalParts(r.nominal_parts) ?? []) {
        if (!listed.has(p.asset_contract) || Number(p.amount) === 0) continue;
        const at: [number, number] = [Number(r.height), Number(r.tx_index)];
        const held = first.get(r.recipient);
        if (
          !held ||
          at[0] < held.at[0] ||
          (at[0] === held.at[0] && (at[1] < held.at[1] || (at[1] === held.at[1] && r.payer < held.funder)))
        )
          first.set(r.recipient, { funder: r.payer, at });
      }
    }
    funderOf = new Map([...first].map(([a, f]) => [a, f.funder]));
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await t?.drop();
  });

  const isSelf = (r: Row) => Number(r.self_payment) === 1;
  const isSelfFunded = (r: Row) => {
    if (!r.payer || !r.recipient || r.payer === r.recipient) return false;
    const f = funderOf.get(r.payer);
    return f !== undefined && (f === r.recipient || f === funderOf.get(r.recipient));
  };
  const EXCLUSIONS = [[], ['self_payment'], ['self_funded'], ['self_payment', 'self_funded']] as const;
  const kept = (ex: readonly string[]) => (r: Row) =>
    !(ex.includes('self_payment') && isSelf(r)) && !(ex.includes('self_funded') && isSelfFunded(r));
  const query = (ex: readonly string[]) => (ex.length ? `&exclude=${ex.join(',')}` : '');

  it('has self-payments and self-funded payments to exclude, and keeps the earliest inflow whatever the write order', async () => {
    expect(rows.filter(isSelf).length).toBeGreaterThan(50);
    expect(rows.filter(isSelfFunded).length).toBeGreaterThan(50);
    const stored = await store.db.selectFrom('first_fundings').selectAll().execute();
    const listed = new Set(store.tokenList.tokens.keys());
    const firstListed = new Map<string, { funder: string; at: [number, number] }>();
    for (const s of stored) {
      if (!listed.has(s.contract)) continue;
      const at: [number, number] = [Number(s.height), Number(s.tx_index)];
      const held = firstListed.get(s.address);
      if (!held || at[0] < held.at[0] || (at[0] === held.at[0] && (at[1] < held.at[1] || (at[1] === held.at[1] && s.funder < held.funder))))
        firstListed.set(s.address, { funder: s.funder, at });
    }
    expect(new Map([...firstListed].map(([a, f]) => [a, f.funder]))).toEqual(funderOf);
    // Refilled from the observations (the migration's path), the table is the same.
    await sql`delete from first_fundings`.execute(store.db);
    await fillFirstFundings(store.db);
    const refilled = await store.db.selectFrom('first_fundings').selectAll().execute();
    const byKey = (x: typeof stored) =>
      new Map(x.map((s) => [`${s.address}|${s.contract}`, [s.funder, Number(s.height), Number(s.tx_index), s.hash]]));
    expect(byKey(refilled)).toEqual(byKey(stored));
  });

  it.each(EXCLUSIONS.map((ex) => ({ ex: [...ex] as string[], name: ex.join(',') || 'none' })))(
    '/api/metrics with exclude=$name equals the brute force, and names the rule',
    async ({ ex }) => {
      const keep = rows.filter(kept(ex));
      let nominal: ExactDecimal | null = null;
      const payers = new Set<string>();
      for (const r of keep) {
        nominal = add(nominal, nominalOf(parseNominalParts(r.nominal_parts), store.tokenList));
        if (r.payer && !isSelf(r)) payers.add(r.payer);
      }
      const res = await app.inject({ url: `/api/metrics?since=${START}${query(ex)}` });
      expect(res.statusCode).toBe(200);
      const m = res.json();
      expect(m).toMatchObject({ total: keep.length, nominal: nominal && formatExact(nominal), distinct_payers: payers.size });
      expect(m.value_method.includes('Excluding self-payments')).toBe(ex.includes('self_payment'));
      expect(m.value_method.includes('self-funded payments')).toBe(ex.includes('self_funded'));
      if (ex.length) expect(m.total).toBeLessThan(rows.length);
      const series = (
        await app.inject({ url: `/api/metrics/series?since=${START}&until=${START + 10 * 86_400}&bucket=day${query(ex)}` })
      ).json();
      expect(series.total).toBe(keep.length);
      expect(series.buckets.reduce((n: number, b: { count: number }) => n + b.count, 0)).toBe(keep.length);
      expect(series.value_method).toBe(m.value_method);
    },
  );

  it('/api/export leaves out exactly the excluded rows', async () => {
    for (const ex of EXCLUSIONS) {
      const res = await app.inject({ url: `/api/export?since=${START}${query(ex)}` });
      expect(res.statusCode).toBe(200);
      const lines = res.body.trim().split('\n');
      const col = lines[0].split(',').indexOf('hash');
      const got = new Set(lines.slice(1).map((l) => l.split(',')[col]));
      expect(got).toEqual(new Set(rows.filter(kept(ex)).map((r) => r.hash)));
    }
  });

  it('ranks recipients and payers without the excluded payments, as the brute force says', async () => {
    const window = { since: START, until: START + 10 * 86_400 };
    for (const ex of EXCLUSIONS) {
      for (const kind of ['recipients', 'payers'] as const) {
        const want = new Map<string, { payments: number; payers: Set<string>; nominal: ExactDecimal | null; self: number }>();
        for (const r of rows) {
          if (r.execution !== 'success' || !r.payer || !kept(ex)(r)) continue;
          const s = kind === 'recipients' ? r.recipient : r.payer;
          if (!s || (kind === 'payers' && !r.recipient)) continue;
          const e = want.get(s) ?? { payments: 0, payers: new Set<string>(), nominal: null, self: 0 };
          want.set(s, e);
          e.payments++;
          e.nominal = add(e.nominal, nominalOf(parseNominalParts(r.nominal_parts), store.tokenList));
          if (r.payer === r.recipient) e.self++;
          else e.payers.add(r.payer);
        }
        const got = await rankRollups(store, { kind, ...window, by: 'payments', limit: 100, offset: 0, exclude: [...ex] });
        expect(got.total).toBe(want.size);
        for (const row of got.rows) {
          const w = want.get(row.address!)!;
          expect(row).toMatchObject({
            payments: w.payments,
            self_payments: w.self,
            nominal: w.nominal && formatExact(w.nominal),
            ...(kind === 'recipients' ? { distinct_payers: w.payers.size } : {}),
          });
        }
        expect(Boolean(got.value_method)).toBe(ex.length > 0);
      }
    }
  });

  it('remembers answers per exclusion, and refuses unknown values naming exclude', async () => {
    const plain = (await app.inject({ url: `/api/metrics?since=${START}` })).json();
    const ex = (await app.inject({ url: `/api/metrics?since=${START}&exclude=self_payment` })).json();
    const again = (await app.inject({ url: `/api/metrics?since=${START}` })).json();
    expect(ex.total).toBeLessThan(plain.total);
    expect(again.total).toBe(plain.total);
    const rk = (q: string) => app.inject({ url: `/api/rankings/recipients?since=${START}&until=${START + 10 * 86_400}&by=payments${q}` });
    const [r0, r1] = [(await rk('')).json(), (await rk('&exclude=self_payment,self_funded')).json()];
    expect(r1.rows[0].payments).toBeLessThanOrEqual(r0.rows[0].payments);
    expect(r0.value_method).toBeUndefined();
    for (const url of [
      '/api/metrics?exclude=bogus',
      '/api/metrics/series?exclude=self_payment,bogus',
      '/api/export?exclude=bogus',
      '/api/rankings/payers?exclude=x',
    ]) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toEqual({
        error: "invalid query parameter 'exclude': must be a comma-separated list of self_payment, self_funded",
      });
    }
    const services = await app.inject({ url: '/api/rankings/services?exclude=self_funded' });
    expect(services.statusCode).toBe(400);
    expect(services.json().error).toMatch(
      /^invalid query parameter 'exclude': self_funded applies to the recipients and payers rankings only/,
    );
  });
});
