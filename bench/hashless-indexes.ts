/**
 * What PostgreSQL's hash-less wallet and token indexes (migration chain_0012_compact_payments) cost the filtered
 * reads: the same queries timed over `(asset_contract, time)` / `(sender, time)` and over the former
 * `(…, time, hash desc)` built beside them, each variant in turn inside a transaction that drops the other
 * (rolled back), rounds in alternating order. Needs a PostgreSQL store given by --db (e.g. one seeded by
 * `paywatch seed`); it is left as it was, but for the two extra indexes, which are dropped at the end.
 * Results: bench/results/hashless-indexes.{json,md}.
 * Run: node bin/run-ts.js bench/hashless-indexes.ts --db postgres://… [--rounds 5] [--n 40]
 */
import { parseArgs } from 'node:util';
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { writeResults } from './lib/load.js';

const { values } = parseArgs({
  options: { db: { type: 'string' }, rounds: { type: 'string', default: '5' }, n: { type: 'string', default: '40' } },
});
const ROUNDS = Number(values.rounds);
const N = Number(values.n);
const c = new pg.Client(values.db);
await c.connect();
const started = new Date().toISOString();

const loadBefore = loadavg()[0].toFixed(1);
const count = Number((await c.query('select count(*) as n from observations')).rows[0].n);
const a = (await c.query('select asset_contract, count(*) as n from observations group by 1 order by 2 desc limit 1')).rows[0];
const s = (await c.query('select sender, count(*) as n from observations group by 1 order by 2 desc limit 1')).rows[0];
const t = Number((await c.query('select max(time) - 3000 as t from observations')).rows[0].t);
await c.query('create index if not exists bench_hashed_asset_contract on observations (asset_contract, time, hash desc)');
await c.query('create index if not exists bench_hashed_sender on observations (sender, time, hash desc)');
await c.query('analyze observations');
const cases: [string, string, unknown[]][] = [
  ['token page', 'select hash from observations where asset_contract = $1 order by time desc, hash asc limit 50', [a.asset_contract]],
  [
    'token page, offset 1,000',
    'select hash from observations where asset_contract = $1 order by time desc, hash asc limit 50 offset 1000',
    [a.asset_contract],
  ],
  [
    'token keyset step of 500',
    'select time, hash from observations where asset_contract = $1 and time <= $2 and (time < $2 or hash > $3) order by time desc, hash asc limit 500',
    [a.asset_contract, t, '0x8'],
  ],
  ['wallet page', 'select hash from observations where sender = $1 order by time desc, hash asc limit 50', [s.sender]],
  [
    'wallet page, offset 300',
    'select hash from observations where sender = $1 order by time desc, hash asc limit 50 offset 300',
    [s.sender],
  ],
  ['wallet count', 'select count(*) from observations where sender = $1', [s.sender]],
];
type Variant = 'with_hash' | 'hashless';
const ms: Record<string, Record<Variant, number[]>> = {};
for (let r = 0; r < ROUNDS; r++)
  for (const variant of (r % 2 ? ['hashless', 'with_hash'] : ['with_hash', 'hashless']) as Variant[]) {
    await c.query('begin');
    await c.query(
      variant === 'with_hash'
        ? 'drop index observations_asset_contract_time_asc; drop index observations_sender_time_asc'
        : 'drop index bench_hashed_asset_contract; drop index bench_hashed_sender',
    );
    for (const [name, q, p] of cases) {
      for (let i = 0; i < 3; i++) await c.query(q, p);
      const t0 = performance.now();
      for (let i = 0; i < N; i++) await c.query(q, p);
      ms[name] ??= { with_hash: [], hashless: [] };
      ms[name][variant].push((performance.now() - t0) / N);
    }
    await c.query('rollback');
  }
await c.query('drop index bench_hashed_asset_contract; drop index bench_hashed_sender');
await c.end();
const med = (x: number[]) => [...x].sort((p, q) => p - q)[Math.floor(x.length / 2)];
const rows = Object.entries(ms).map(([name, v]) => ({
  name,
  with_hash_ms: Number(med(v.with_hash).toFixed(3)),
  hashless_ms: Number(med(v.hashless).toFixed(3)),
  ratio: Number((med(v.hashless) / med(v.with_hash)).toFixed(2)),
}));
const md = [
  '# Hash-less wallet and token indexes on PostgreSQL',
  '',
  `Command: \`node bin/run-ts.js bench/hashless-indexes.ts ${process.argv
    .slice(2)
    .join(' ')
    .replace(
      /\/\/[^@/]*@/,
      '//',
    )}\`. Run at ${started}; ${count} observations, the token ${a.n} of them, the wallet ${s.n}. Median of ${ROUNDS} rounds of ${N} queries each, one client, variants alternating; load average ${loadBefore} → ${loadavg()[0].toFixed(1)} on ${cpus().length} cores.`,
  '',
  '| query | with hash ms | hash-less ms | hash-less / with hash |',
  '|---|---:|---:|---:|',
  ...rows.map((r) => `| ${r.name} | ${r.with_hash_ms} | ${r.hashless_ms} | ${r.ratio} |`),
  '',
].join('\n');
writeResults('hashless-indexes', { started, count, token_rows: Number(a.n), wallet_rows: Number(s.n), rows }, md);
process.stdout.write(`${md}\n`);
