/**
 * The store writer (src/store/chain/writer.ts) on a real SQLite file: writes run on a thread of its own with its
 * own connection and leave exactly what an inline write leaves; the main thread's reads see each write as soon
 * as it resolves; a failing write is rejected with the thread's error, commits nothing, and the thread goes on.
 * On PostgreSQL (and in-memory SQLite) the writer is inline.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { getCheckpoint, getCoverage, listTransactions, prepareBlock } from '../../src/store/chain/index.js';
import { openStoreWriter, SqliteWriterThread, type StoreWriter } from '../../src/store/chain/writer.js';
import { openStore, type Store } from '../../src/store/db.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { makeBlocks } from '../helpers/observations.js';

const dbs: TestDb[] = [];
const stores: Store[] = [];
const writers: StoreWriter[] = [];
afterEach(async () => {
  for (const w of writers.splice(0)) await w.close();
  for (const s of stores.splice(0)) await s.close();
  for (const d of dbs.splice(0)) await d.drop();
});

async function open(dialect: 'sqlite' | 'postgres') {
  const db = await createTestDb(dialect);
  dbs.push(db);
  const store = await openStore(db.url);
  stores.push(store);
  const writer = openStoreWriter(store, db.url);
  writers.push(writer);
  return { db, store, writer };
}

const everything = async (s: Store) => ({
  page: (await listTransactions(s, {}, { limit: 100, offset: 0 })).rows,
  coverage: await getCoverage(s),
  checkpoint: (({ height, hash }) => ({ height, hash }))((await getCheckpoint(s))!),
});

describe('store writer on a SQLite file', () => {
  it('writes on its own thread exactly what an inline write leaves, visible to the main thread at once', async () => {
    const threaded = await open('sqlite');
    const inline = await open('postgres');
    expect(threaded.writer).toBeInstanceOf(SqliteWriterThread);
    expect(inline.writer).not.toBeInstanceOf(SqliteWriterThread);
    await threaded.writer.whenReady();
    const runs = [makeBlocks({ count: 40, seed: 3 }), makeBlocks({ count: 40, seed: 4 }).map((b, i) => ({ ...b, height: 1000 + i }))];
    for (const run of runs) {
      const last = run[run.length - 1];
      for (const t of [threaded, inline]) {
        // Read before the write, so a remembered answer would be served stale if the write were not noticed.
        await listTransactions(t.store, {}, { limit: 100, offset: 0 });
        await t.writer.write(run.map(prepareBlock), { height: last.height, hash: last.hash });
        expect((await listTransactions(t.store, {}, { limit: 100, offset: 0 })).total).toBe(run === runs[0] ? 40 : 80);
      }
    }
    expect((threaded.writer as SqliteWriterThread).counts).toEqual({ thread: 2, inline: 0 });
    expect(await everything(threaded.store)).toEqual(await everything(inline.store));
  });

  it('rejects a failing write with the thread’s error, commits nothing of it, and writes the next one', async () => {
    const { store, writer } = await open('sqlite');
    await writer.whenReady();
    const good = makeBlocks({ count: 10, seed: 5 });
    const bad = good.map(prepareBlock);
    // A NOT NULL violation in one row aborts the whole transaction.
    const victim = bad.filter((b) => b.observations.length > 0)[1];
    victim.observations[0] = { ...victim.observations[0], row: { ...victim.observations[0].row, execution: null as never } };
    const last = good[good.length - 1];
    await expect(writer.write(bad, { height: last.height, hash: last.hash })).rejects.toThrow(/NOT NULL/);
    expect(await getCheckpoint(store)).toBeNull();
    expect((await listTransactions(store, {}, { limit: 100, offset: 0 })).total).toBe(0);
    await writer.write(good.map(prepareBlock), { height: last.height, hash: last.hash });
    expect((await listTransactions(store, {}, { limit: 100, offset: 0 })).total).toBe(10);
    expect((writer as SqliteWriterThread).counts).toEqual({ thread: 2, inline: 0 });
  });
});
