/**
 * The collector's INSERTs on SQLite run in statements of a fixed set of row counts (src/store/chain/write.ts
 * sqliteChunks), so a write of any size finds its statement texts prepared; every row is still stored once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import { writeBlocks } from '../../src/store/chain/index.js';
import { SQLITE_ROWS, sqliteChunks } from '../../src/store/chain/write.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { makeBlocks, observationsOf } from '../helpers/observations.js';

describe('SQLite insert chunks', () => {
  const dbs: TestDb[] = [];
  afterAll(async () => Promise.all(dbs.map((d) => d.drop())));

  it('cut any row count into full chunks, then powers of two: one text per size, at most 8 sizes', () => {
    const sizes = new Set<number>();
    for (let n = 0; n <= 1200; n++) {
      const chunks = sqliteChunks(n);
      expect(chunks.reduce((a, b) => a + b, 0)).toBe(n);
      expect(chunks.filter((c) => c < SQLITE_ROWS).length).toBe(new Set(chunks.filter((c) => c < SQLITE_ROWS)).size);
      for (const c of chunks) sizes.add(c);
    }
    expect([...sizes].sort((a, b) => b - a)).toEqual([128, 64, 32, 16, 8, 4, 2, 1]);
  });

  it('store every row of writes of any size once', async () => {
    const t = await createTestDb('sqlite');
    dbs.push(t);
    const s = await openStore(t.url);
    const blocks = makeBlocks({ count: SQLITE_ROWS * 3 + 77, seed: 9 });
    // Writes of about 1, 127, 129 and the rest rows (whole blocks), each a different cut into chunks.
    const targets = [1, SQLITE_ROWS - 1, SQLITE_ROWS + 1, Number.POSITIVE_INFINITY];
    let i = 0;
    for (const target of targets) {
      const part = [];
      for (let rows = 0; i < blocks.length && rows < target; i++) {
        part.push(blocks[i]);
        rows += blocks[i].observations.length;
      }
      const last = part[part.length - 1];
      if (last) await writeBlocks(s, part, { height: last.height, hash: last.hash });
    }
    expect(i).toBe(blocks.length);
    expect(observationsOf(blocks).length).toBeGreaterThan(SQLITE_ROWS * 3);
    // Rows counted in the tables themselves (the total of a page is chain_stats' counter, not a count of rows).
    for (const table of ['observations', 'observation_details'] as const) {
      const { n } = await s.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(n)).toBe(observationsOf(blocks).length);
    }
    await s.close();
  });
});
