/**
 * Session settings of a PostgreSQL store's connections (src/store/postgres.ts): JIT compilation is off on every
 * pooled connection (docs/decisions.md, "PostgreSQL sessions run with jit=off").
 */
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { storeFactory } from '../helpers/db.js';

describe('PostgreSQL store sessions', () => {
  const stores = storeFactory('postgres');
  afterAll(() => stores.cleanup());

  it('run without JIT on every pooled connection', async () => {
    const s = await stores.fresh();
    // Several at once, so more than one connection of the pool answers.
    const answers = await Promise.all(Array.from({ length: 4 }, () => sql<{ jit: string }>`show jit`.execute(s.db)));
    expect(answers.map((a) => a.rows[0].jit)).toEqual(['off', 'off', 'off', 'off']);
  });
});
