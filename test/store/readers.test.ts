/**
 * Reader threads on a SQLite file: heavy chain reads (metrics, uncached counts, export steps) run on threads with
 * their own read-only connections, give exactly the answers the main thread would, and a bounded queue refuses
 * what it cannot hold with a 503 instead of queueing without end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  computeMetrics,
  exportRows,
  listTransactions,
  aggregateMetrics,
  writeBlocks,
  type ExportRow,
} from '../../src/store/chain/index.js';
import { openStore, type Store } from '../../src/store/db.js';
import type { ReaderPool } from '../../src/store/chain/readers.js';
import { Unavailable } from '../../src/domain/errors.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { makeBlocks } from '../helpers/observations.js';

let db: TestDb;
let inline: Store;
let threaded: Store;

const all = async (it: AsyncIterableIterator<ExportRow[]>) => {
  const out: ExportRow[] = [];
  for await (const step of it) out.push(...step);
  return out;
};

beforeAll(async () => {
  db = await createTestDb('sqlite');
  inline = await openStore(db.url);
  const blocks = makeBlocks({ count: 3000, seed: 21, maxTxPerBlock: 20 });
  const last = blocks[blocks.length - 1];
  await writeBlocks(inline, blocks, { height: last.height, hash: last.hash });
  threaded = await openStore(db.url, { readers: 2 });
  await (threaded.readers as ReaderPool).whenReady();
}, 120_000);

afterAll(async () => {
  await threaded?.close();
  await inline?.close();
  await db?.drop();
});

describe('reader threads', () => {
  it('answer metrics, filtered totals and export steps exactly as the main thread does, on the threads', async () => {
    const pool = threaded.readers as ReaderPool;
    const filters = [
      {},
      { asset: 'pathUSD' },
      { execution: 'failed' as const },
      { q: 'Uniswap v3' },
      { asset: 'AlphaUSD', execution: 'success' as const },
    ];
    for (const f of filters) {
      expect(await computeMetrics(threaded, f)).toEqual(await aggregateMetrics(inline, f, 50_000));
      expect((await listTransactions(threaded, f, { limit: 5, offset: 0 })).total).toBe(
        (await listTransactions(inline, f, { limit: 5, offset: 0 })).total,
      );
      expect(await all(exportRows(threaded, f))).toEqual(await all(exportRows(inline, f)));
    }
    expect(pool.counts.inline).toBe(0);
    // Per filter: one metrics read, counts where the filter needs one, and the export's keyset steps.
    expect(pool.counts.thread).toBeGreaterThanOrEqual(filters.length * 3);
  });

  it('refuse a read beyond the queue bound with a 503 that says when to retry, and then serve again', async () => {
    const small = await openStore(db.url, { readers: 1, readersMaxQueued: 1 });
    try {
      await (small.readers as ReaderPool).whenReady();
      const first = small.readers!.metrics({ asset: 'USDT0' }, 50_000);
      const second = small.readers!.metrics({ asset: 'USDC.e' }, 50_000);
      await expect(second).rejects.toBeInstanceOf(Unavailable);
      await expect(second).rejects.toMatchObject({ code: 'unavailable', retryAfterSeconds: 1 });
      expect((await first).total).toBeGreaterThan(0);
      expect((await small.readers!.metrics({ asset: 'USDC.e' }, 50_000)).total).toBeGreaterThan(0);
    } finally {
      await small.close();
    }
  });

  it('are not started for PostgreSQL or an in-memory store (the server, or the one connection, answers)', async () => {
    const mem = await openStore(':memory:', { readers: 2 });
    try {
      expect(mem.readers).toBeNull();
    } finally {
      await mem.close();
    }
  });
});
