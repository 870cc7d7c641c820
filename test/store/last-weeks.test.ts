/**
 * Payers' latest payment days by week (payment_last_weeks, src/store/chain/rollups.ts), on both dialects, over a
 * synthetic chain of four weeks starting mid-week written through the real writer: a window's distinct payers,
 * read from its whole weeks and its partial first week's days, equal a brute force for a window starting on every
 * day; the weeks always equal the days summed by week, also after removals; chain_0023 builds the same rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { blocksWithPayers } from '../helpers/observations.js';
import { writeBlocks } from '../../src/store/chain/index.js';
import { rankRollups } from '../../src/store/chain/rankings.js';
import { DAY_SECONDS, WEEK_DAYS } from '../../src/store/chain/rollups.js';
import { dropOlderThan } from '../../src/store/chain/retention.js';
import { rollupMigrations } from '../../src/store/migrations/rollups.js';
import { openStore, type Store } from '../../src/store/db.js';
import { createTestDb, DIALECTS, type TestDb } from '../helpers/db.js';

// A Monday, four days into week 2922 of the Unix epoch (weeks start on Thursdays, as 1970-01-01 did).
const START = (2922 * WEEK_DAYS + 4) * DAY_SECONDS;
const COUNT = 2600;
const SPACING = 2_000;

describe.each(DIALECTS)('payers latest days by week (%s)', (dialect) => {
  let t: TestDb;
  let store: Store;
  beforeAll(async () => {
    t = await createTestDb(dialect);
    store = await openStore(t.url);
    // 2,000 s apart (about 30 days); the sender pays, every fifth the recipient (a self-payment).
    const blocks = [...blocksWithPayers({ count: COUNT, seed: 11, startTime: START, maxTxPerBlock: 4, spacing: SPACING, selfEvery: 5 })];
    for (let i = 0; i < blocks.length; i += 150) {
      const part = blocks.slice(i, i + 150);
      await writeBlocks(store, part, { height: part[part.length - 1].height, hash: part[part.length - 1].hash });
    }
  });
  afterAll(async () => {
    await store?.close();
    await t?.drop();
  });

  /** Per recipient, the payers other than it whose latest payment is at or after `since` (a window past the newest). */
  async function bruteForce(since: number): Promise<Map<string, number>> {
    const rows = await store.db
      .selectFrom('observations')
      .select(['recipient', 'payer', 'execution'])
      .where('time', '>=', since)
      .where('payer', 'is not', null)
      .execute();
    const payers = new Map<string, Set<string>>();
    for (const r of rows) {
      if (r.execution !== 'success' || !r.recipient || r.payer === r.recipient) continue;
      const s = payers.get(r.recipient) ?? new Set<string>();
      payers.set(r.recipient, s);
      s.add(r.payer!);
    }
    return new Map([...payers].map(([k, v]) => [k, v.size]));
  }

  const ranked = async (since: number) => {
    const got = await rankRollups(store, {
      kind: 'recipients',
      since,
      until: START + 60 * DAY_SECONDS,
      by: 'distinct_payers',
      limit: 10_000,
      offset: 0,
    });
    return new Map(got.rows.filter((r) => r.distinct_payers > 0).map((r) => [r.address!, r.distinct_payers]));
  };

  /** payment_last_days summed by week, and payment_last_weeks, each as sorted text rows. */
  const bucketsBothWays = async () => {
    const text = (rows: Record<string, unknown>[]) => rows.map((r) => Object.values(r).map(String).join('|')).sort();
    const byDays = await sql<Record<string, unknown>>`select dim, protocol, subject, day / ${sql.lit(WEEK_DAYS)} as week, sum(payers) as n
      from payment_last_days group by dim, protocol, subject, day / ${sql.lit(WEEK_DAYS)}`.execute(store.db);
    const weeks = await sql<Record<string, unknown>>`select dim, protocol, subject, week, payers as n from payment_last_weeks`.execute(
      store.db,
    );
    return { byDays: text(byDays.rows), weeks: text(weeks.rows) };
  };

  it('counts the distinct payers of a window starting on any day exactly: whole weeks by week, the first partial one by day', async () => {
    const weeks = new Set<number>();
    for (let day = 0; day < 30; day++) {
      const since = START + day * DAY_SECONDS;
      weeks.add(Math.floor(since / DAY_SECONDS / WEEK_DAYS));
      const want = await bruteForce(since);
      if (day < 26) expect(want.size, `day ${day}`).toBeGreaterThan(2);
      expect(await ranked(since), `day ${day}`).toEqual(want);
    }
    // The windows' first days fall in five weeks, at every offset within a week.
    expect(weeks.size).toBe(5);
  });

  it('keeps the weeks equal to the days summed by week, also after retention removes payments', async () => {
    const first = await bucketsBothWays();
    expect(first.weeks.length).toBeGreaterThan(100);
    expect(first.weeks).toEqual(first.byDays);
    await dropOlderThan(store, START + 9 * DAY_SECONDS, Number.POSITIVE_INFINITY, 50);
    store.cache.chainWritten();
    const after = await bucketsBothWays();
    expect(after.weeks).toEqual(after.byDays);
    expect(after.weeks).not.toEqual(first.weeks);
    expect(await ranked(START + 10 * DAY_SECONDS)).toEqual(await bruteForce(START + 10 * DAY_SECONDS));
  });

  it('chain_0023 builds payment_last_weeks from payment_last_days: the same rows the writer keeps; down drops it', async () => {
    const before = (await bucketsBothWays()).weeks;
    const m = rollupMigrations.chain_0023_last_weeks;
    await m.down!(store.db);
    const tables = async () => (await store.db.introspection.getTables()).map((x) => x.name);
    expect(await tables()).not.toContain('payment_last_weeks');
    await m.up(store.db);
    expect(await tables()).toContain('payment_last_weeks');
    expect((await bucketsBothWays()).weeks).toEqual(before);
  });
});
