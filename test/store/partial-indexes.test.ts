/**
 * The partial indexes of migration chain_0012_compact_payments: payer (apart from the sender), execution and
 * asset + execution (not success) and exchange (known) hold only the rows their filters need an index for, the
 * filters still use them (SQLite only uses a partial index when the WHERE repeats its predicate), PostgreSQL's
 * wallet and token indexes carry no hash, and an existing store migrates in place answering the same.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { BlockObservations } from '../../src/domain/observation.js';
import type { ObservationFilters } from '../../src/domain/filters.js';
import { writeBlocks } from '../../src/store/chain/index.js';
import { applyFilters, countRows, pageMatches } from '../../src/store/chain/query.js';
import { PARTIAL_INDEXES } from '../../src/store/chain/partial-indexes.js';
import { chainMigrations } from '../../src/store/migrations/chain.js';
import type { Store } from '../../src/store/db.js';
import { DIALECTS, storeFactory } from '../helpers/db.js';
import { makeBlocks } from '../helpers/observations.js';

const THIRD = `0x${'3c'.repeat(20)}`;

/** Seed blocks whose payers are mostly the sender, every 4th another account, every 9th unknown. */
function paidBlocks(): BlockObservations[] {
  const blocks = makeBlocks({ count: 60, seed: 21 });
  let i = 0;
  for (const b of blocks)
    for (const o of b.observations) {
      const n = i++;
      o.detail.payer = n % 9 === 0 ? null : n % 4 === 0 ? THIRD : o.sender;
    }
  return blocks;
}

/** Index name → its definition (SQLite's CREATE statement, PostgreSQL's indexdef), lower-cased. */
async function indexDefinitions(s: Store): Promise<Map<string, string>> {
  const rows =
    s.dialect === 'postgres'
      ? (
          await sql<{
            name: string;
            def: string;
          }>`select indexname as name, indexdef as def from pg_indexes where tablename = 'observations'`.execute(s.db)
        ).rows
      : (
          await sql<{
            name: string;
            def: string | null;
          }>`select name, sql as def from sqlite_master where type = 'index' and tbl_name = 'observations'`.execute(s.db)
        ).rows;
  return new Map(rows.map((r) => [r.name, (r.def ?? '').toLowerCase()]));
}

describe.each(DIALECTS)('partial indexes on %s', (dialect) => {
  const stores = storeFactory(dialect);
  afterAll(() => stores.cleanup());

  it('holds the four filters partial and, on PostgreSQL, the wallet and token indexes without the hash', async () => {
    const s = await stores.fresh();
    const defs = await indexDefinitions(s);
    for (const ix of PARTIAL_INDEXES) expect(defs.get(ix.name), ix.name).toMatch(/ where /);
    for (const col of ['sender', 'recipient', 'asset_contract', 'asset']) {
      const def = defs.get(`observations_${col}_time_asc`);
      if (dialect === 'postgres') expect(def, col).not.toMatch(/hash/);
      else expect(def, col).toMatch(/hash desc/);
    }
  });

  it('migrates an existing store in place and back, answering every filter the same', async () => {
    const s = await stores.fresh();
    const blocks = paidBlocks();
    await writeBlocks(s, blocks, { height: blocks.at(-1)!.height, hash: blocks.at(-1)!.hash });
    const one = blocks.flatMap((b) => b.observations)[3];
    const filters: ObservationFilters[] = [
      { payer: THIRD },
      { payer: one.sender!.toLowerCase() },
      { execution: 'failed' },
      { execution: 'success' },
      { asset: one.asset_contract!.toLowerCase(), execution: 'failed' },
      { asset: one.asset_contract!.toLowerCase(), execution: 'success' },
      { exchange: 'unknown' },
      { q: one.sender!.toLowerCase() },
    ];
    const unordered = { count: 0, ordered: false, newestBlockTime: null, updatedAt: null };
    const answers = async () =>
      Promise.all(
        filters.map(async (f) => ({
          n: await countRows(s.db, f, s.tokenList),
          page: (await pageMatches({ db: s.db, filters: f, list: s.tokenList, limit: 20, offset: 3, known: unordered })).map((r) => r.hash),
        })),
      );
    const partial = await answers();
    for (const [i, a] of partial.entries()) expect(a.n, JSON.stringify(filters[i])).toBeGreaterThan(0);
    const migration = chainMigrations.chain_0012_compact_payments;
    await migration.down!(s.db);
    const full = await indexDefinitions(s);
    for (const ix of PARTIAL_INDEXES) expect(full.get(ix.name), ix.name).not.toMatch(ix.columns[0] === 'payer' ? /sender/ : / where /);
    expect(await answers()).toEqual(partial);
    await migration.up(s.db);
    await migration.up(s.db); // a second run changes nothing
    const again = await indexDefinitions(s);
    for (const ix of PARTIAL_INDEXES) expect(again.get(ix.name), ix.name).toMatch(/ where /);
    expect(await answers()).toEqual(partial);
  });

  it.runIf(dialect === 'sqlite')('SQLite plans the filters over the partial indexes', async () => {
    const s = await stores.fresh();
    const blocks = paidBlocks();
    await writeBlocks(s, blocks, { height: blocks.at(-1)!.height, hash: blocks.at(-1)!.hash });
    const contract = blocks.flatMap((b) => b.observations)[3].asset_contract!.toLowerCase();
    const cases: [ObservationFilters, string][] = [
      [{ payer: THIRD }, 'observations_payer_time_asc'],
      [{ execution: 'failed' }, 'observations_execution_time_asc'],
      [{ asset: contract, execution: 'failed' }, 'observations_asset_contract_execution_time_asc'],
      [{ exchange: 'Uniswap v3' }, 'observations_exchange_time_asc'],
    ];
    for (const [f, index] of cases) {
      const q = applyFilters(s.db.selectFrom('observations'), f, s.tokenList)
        .select('hash')
        .orderBy('time', 'desc')
        .orderBy('hash', 'asc')
        .limit(10)
        .compile();
      const plan = await s.db.executeQuery<{ detail: string }>({ ...q, sql: `explain query plan ${q.sql}` });
      expect(plan.rows.map((r) => r.detail).join(' | '), JSON.stringify(f)).toContain(index);
    }
  });
});
