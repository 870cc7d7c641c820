/**
 * Where `launchCollector` writes (src/chain/collector/index.ts LaunchOptions.writerThread), on a real SQLite file
 * and a real anvil: by default (every command) on a thread of its own, inline on the main thread when asked. Both
 * store the same observations (what each write stores is held identical by test/store/writer.test.ts).
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { launchCollector } from '../../src/chain/collector/index.js';
import { loadConfig } from '../../src/config.js';
import { generateLoad } from '../../src/demo/activity.js';
import { SqliteWriterThread } from '../../src/store/chain/writer.js';
import { openStore } from '../../src/store/db.js';
import { createTestDb } from '../helpers/db.js';

describe('the collector’s writer as launched', () => {
  let node: AnvilNode;
  beforeAll(async () => {
    node = await startAnvil();
    await generateLoad(node.rpcUrl, { transactions: 30, perBlock: 3 });
  }, 120_000);
  afterAll(async () => {
    await node?.stop();
  });

  /** Collects the chain once into a fresh SQLite file; the writer used, its thread counts, and the stored hashes. */
  async function collectOnce(writerThread: boolean | undefined) {
    const db = await createTestDb('sqlite');
    const store = await openStore(db.url);
    try {
      const config = loadConfig({ db: db.url, rpcUrl: node.rpcUrl, from: 0, logLevel: 'silent' });
      const launched = await launchCollector(
        config,
        store,
        pino({ level: 'silent' }),
        writerThread === undefined ? { once: true } : { once: true, writerThread },
      );
      await launched.collector.whenReady();
      await launched.collector.run();
      await launched.release();
      const rows = await store.db.selectFrom('observations').select(['hash', 'seq']).orderBy('seq').execute();
      const w = launched.writer;
      return { thread: w instanceof SqliteWriterThread ? { ...w.counts } : null, hashes: rows.map((r) => r.hash) };
    } finally {
      await store.close();
      await db.drop();
    }
  }

  it('writes on its own thread by default and inline when asked, storing the same observations', async () => {
    const thread = await collectOnce(undefined);
    const inline = await collectOnce(false);
    expect(inline.thread).toBeNull();
    expect(inline.hashes.length).toBe(30);
    expect(thread.thread?.thread).toBeGreaterThan(0);
    expect(thread.hashes).toEqual(inline.hashes);
  }, 120_000);
});
