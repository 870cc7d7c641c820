/**
 * Session settings of a PostgreSQL store's connections (src/store/postgres.ts): JIT compilation is off on every
 * pooled connection (docs/decisions.md, "PostgreSQL sessions run with `jit=off`"); and after a bulk load
 * (src/store/maintenance.ts refreshPlannerStatistics) every table the chain reads plan on has statistics.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { storeFactory } from '../helpers/db.js';
import { refreshPlannerStatistics } from '../../src/store/maintenance.js';
import { ROLLUP_TABLES } from '../../src/store/chain/rollups.js';

describe('PostgreSQL store sessions', () => {
  const stores = storeFactory('postgres');
  afterAll(() => stores.cleanup());

  it('run without JIT on every pooled connection', async () => {
    const s = await stores.fresh();
    // Several at once, so more than one connection of the pool answers.
    const answers = await Promise.all(Array.from({ length: 4 }, () => sql<{ jit: string }>`show jit`.execute(s.db)));
    expect(answers.map((a) => a.rows[0].jit)).toEqual(['off', 'off', 'off', 'off']);
  });

  it('refreshPlannerStatistics analyses the observations and every rollup table', async () => {
    const s = await stores.fresh();
    await refreshPlannerStatistics(s);
    const { rows } = await sql<{ relname: string }>`select relname from pg_stat_user_tables where last_analyze is not null`.execute(s.db);
    const analysed = rows.map((r) => r.relname);
    for (const t of ['observations', 'first_fundings', ...ROLLUP_TABLES]) expect(analysed, t).toContain(t);
  });
});
