/**
 * The query plans of every read the chain API runs (list pages by every filter, counts, keyset steps, rank
 * positions, the detail read, the received-payments check), on a store given by --db: SQLite's EXPLAIN QUERY PLAN,
 * PostgreSQL's EXPLAIN. Prints each statement with the indexes its plan uses, then the observations indexes no plan
 * used. For choosing which indexes to keep (docs/decisions.md, the entry on indexes in append order).
 * Run: node bin/run-ts.js bench/explain-queries.ts --db URL [--pick N] (the sample row, by seq: default 7,000)
 */
import { parseArgs } from 'node:util';
import { sql, type KyselyPlugin, type RootOperationNode } from 'kysely';
import { openStore } from '../src/store/db.js';
import { countRows, keysetAt, keysetStep, pageMatches } from '../src/store/chain/query.js';
import { getTransaction } from '../src/store/chain/reads.js';
import { receivedPayments } from '../src/store/trust/index.js';
import type { ObservationFilters } from '../src/domain/filters.js';

const { values } = parseArgs({ options: { db: { type: 'string' }, pick: { type: 'string', default: '7000' } } });
const store = await openStore(values.db!);
const pick = await store.db
  .selectFrom('observations')
  .select(['hash', 'sender', 'asset_contract', 'time', 'payer'])
  .orderBy('seq')
  .offset(Number(values.pick))
  .limit(1)
  .executeTakeFirstOrThrow();
const captured: { sql: string; parameters: readonly unknown[] }[] = [];
const executor = store.db.getExecutor();
const capture: KyselyPlugin = {
  transformQuery(args) {
    const c = executor.compileQuery(args.node as RootOperationNode, args.queryId);
    captured.push({ sql: c.sql, parameters: c.parameters });
    return args.node;
  },
  async transformResult(args) {
    return args.result;
  },
};
const db = store.db.withPlugin(capture);
const list = store.tokenList;
const t = Number(pick.time);
const filters: [string, ObservationFilters][] = [
  ['none', {}],
  ['time window', { since: t - 3600, until: t }],
  ['q hash', { q: pick.hash }],
  ['q wallet', { q: pick.sender! }],
  ['q listed symbol', { q: 'pathUSD' }],
  ['q unlisted symbol', { q: 'AlphaUSD' }],
  ['asset contract', { asset: pick.asset_contract! }],
  ['asset unlisted symbol', { asset: 'AlphaUSD' }],
  ['exchange', { exchange: 'stablecoin-dex' }],
  ['exchange unknown', { exchange: 'unknown' }],
  ['execution failed', { execution: 'failed' }],
  ['execution success', { execution: 'success' }],
  ['asset + failed', { asset: pick.asset_contract!, execution: 'failed' }],
  ['wallet + window', { q: pick.sender!, since: t - 3600, until: t }],
  ['asset + success', { asset: pick.asset_contract!, execution: 'success' }],
  ['payer', { payer: pick.payer ?? pick.sender! }],
  ['payer + window', { payer: pick.payer ?? pick.sender!, since: t - 3600, until: t }],
  ['recipient', { recipient: pick.sender! }],
  ['service', { service_id: 'a'.repeat(64) }],
  ['provider', { provider: 'example.com' }],
];
const labels: string[] = [];
const run = async (label: string, f: () => Promise<unknown>) => {
  const before = captured.length;
  await f();
  for (let i = before; i < captured.length; i++) labels.push(label);
};
const unordered = { count: 0, ordered: false, newestBlockTime: null, updatedAt: null };
for (const [name, f] of filters) {
  await run(`count ${name}`, () => countRows(db, f, list));
  await run(`page ${name}`, () => pageMatches({ db, filters: f, list, limit: 30, offset: 60, known: unordered }));
  await run(`page ordered ${name}`, () =>
    pageMatches({ db, filters: f, list, limit: 30, offset: 60, known: { ...unordered, ordered: true, count: 20000 } }),
  );
  await run(`keyset ${name}`, () =>
    keysetStep({ db, filters: f, list, after: { time: t, hash: pick.hash }, n: 500, select: (qb) => qb.select(['time', 'hash']) }),
  );
  await run(`keysetAt ${name}`, () => keysetAt(db, f, list, [0, 999]));
}
await run('detail', () => getTransaction({ ...store, db }, pick.hash));
await run('received', () => receivedPayments({ ...store, db }, pick.sender!, null));
await run('received listed', () => receivedPayments({ ...store, db }, pick.sender!, [pick.asset_contract!]));
const used = new Set<string>();
for (const [i, q] of captured.entries()) {
  if (!/^select/i.test(q.sql.trim())) continue;
  let plan: string;
  if (store.dialect === 'sqlite') {
    const r = await sql
      .raw<{ detail: string }>(`explain query plan ${q.sql}`)
      .execute(store.db)
      .catch(() => null);
    // sql.raw takes no parameters: run through the driver directly instead.
    const rows = r ? r.rows : [];
    plan = rows.map((x) => x.detail).join(' | ');
  } else plan = '';
  if (!plan) {
    const { rows } = await store.db.executeQuery<{ detail?: string; 'QUERY PLAN'?: string }>({
      sql: store.dialect === 'sqlite' ? `explain query plan ${q.sql}` : `explain ${q.sql}`,
      parameters: q.parameters,
      query: { kind: 'SelectQueryNode' } as never,
      queryId: { queryId: `explain${i}` },
    });
    plan = rows.map((x) => (x.detail ?? x['QUERY PLAN'] ?? '').trim()).join(' | ');
  }
  for (const m of plan.matchAll(/(?:INDEX|[Ii]ndex(?: Only)? Scan(?: Backward)? using|Bitmap Index Scan on) ([a-z_0-9]+)/g)) used.add(m[1]);
  process.stdout.write(`\n[${labels[i]}] ${q.sql.replace(/\s+/g, ' ').slice(0, 220)}\n  PLAN: ${plan}\n`);
}
const indexes =
  store.dialect === 'sqlite'
    ? (
        await sql<{
          name: string;
        }>`select name from sqlite_schema where type = 'index' and tbl_name in ('observations', 'observation_details', 'leg_recipients')`.execute(
          store.db,
        )
      ).rows
    : (
        await sql<{
          name: string;
        }>`select indexname as name from pg_indexes where tablename in ('observations', 'observation_details', 'leg_recipients')`.execute(
          store.db,
        )
      ).rows;
process.stdout.write(
  `\nUSED: ${[...used].sort().join(', ')}\nUNUSED: ${indexes
    .map((x) => x.name)
    .filter((n) => !used.has(n))
    .join(', ')}\n`,
);
await store.close();
