/**
 * Store size benchmark: bytes per observation by table and index, on SQLite and PostgreSQL, for a store the
 * collector wrote from real-shaped transactions (a local anvil in Tempo mode filled by the demo's load generator,
 * as bench/ingest.ts does: the synthetic seed's details are several times smaller than real ones).
 * Target: ≤ 2,000 bytes per observation, indexes included, on each dialect.
 * With --db URL it measures that existing store instead (no chain, no collection), e.g. after `paywatch compact`.
 * With --keep the collected stores stay (bench/tmp/store-size[-LABEL].sqlite, PostgreSQL database paywatch_store_size[_LABEL]:
 * a label keeps parallel runs apart).
 * Results: bench/results/store-size.{json,md}.
 * Run: node bin/run-ts.js bench/store-size.ts [--transactions N] [--per-block N] [--keep] [--db URL]
 */
import { parseArgs } from 'node:util';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import pino from 'pino';
import { startAnvil } from '../src/chain/anvil.js';
import { generateLoad } from '../src/demo/activity/load.js';
import { launchCollector } from '../src/chain/collector/index.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/store/db.js';
import { storageUsage, type StoredObject } from '../src/store/maintenance.js';
import { readStats } from '../src/store/chain/query.js';
import { writeResults } from './lib/load.js';
import { benchStore } from './lib/db.js';

const { values } = parseArgs({
  options: {
    transactions: { type: 'string', default: '20000' },
    'per-block': { type: 'string', default: '10' },
    keep: { type: 'boolean', default: false },
    db: { type: 'string' },
    label: { type: 'string', default: '' },
  },
});
const TX = Number(values.transactions);
const PER_BLOCK = Number(values['per-block']);

interface Measured {
  dialect: string;
  observations: number;
  /** Bytes per observation, every table and index of the store. */
  total_per_observation: number;
  /** Bytes per observation of the chain tables (observations, observation_details, leg_recipients) with their indexes. */
  chain_per_observation: number;
  file_bytes: number | null;
  objects: (StoredObject & { per_observation: number })[];
  collect_s: number | null;
}

/** Measures the store at `db` (collect_s: seconds the collector took to fill it, if it did). */
async function measure(db: string, collect_s: number | null): Promise<Measured> {
  const store = await openStore(db);
  try {
    const n = (await readStats(store.db)).count;
    const objects = (await storageUsage(store)).map((o) => ({ ...o, per_observation: Math.round(o.bytes / Math.max(1, n)) }));
    const sum = (xs: StoredObject[]) => xs.reduce((s, o) => s + o.bytes, 0);
    const chain = objects.filter((o) => ['observations', 'observation_details', 'leg_recipients'].includes(o.table));
    const file = store.dialect === 'sqlite' ? db.replace(/^sqlite:/, '') : null;
    return {
      dialect: store.dialect,
      observations: n,
      total_per_observation: Math.round(sum(objects) / Math.max(1, n)),
      chain_per_observation: Math.round(sum(chain) / Math.max(1, n)),
      file_bytes: file ? statSync(file).size : null,
      objects,
      collect_s,
    };
  } finally {
    await store.close();
  }
}

/** Collects the anvil chain at `rpcUrl` into an empty store at `db`; returns the seconds it took. */
async function collect(db: string, rpcUrl: string): Promise<number> {
  const config = loadConfig({ db, rpcUrl, from: 1, logLevel: 'silent' });
  const store = await openStore(db);
  try {
    const launched = await launchCollector(config, store, pino({ level: 'silent' }), { once: true });
    await launched.collector.whenReady();
    const t = performance.now();
    await launched.collector.run();
    const s = (performance.now() - t) / 1000;
    await launched.release();
    return Number(s.toFixed(2));
  } finally {
    await store.close();
  }
}

const results: Measured[] = [];
let chainNote = '';
if (values.db) {
  results.push(await measure(values.db, null));
  chainNote = `the existing store ${values.db.replace(/\/\/[^@/]*@/, '//')}`;
} else {
  const node = await startAnvil();
  try {
    const load = await generateLoad(node.rpcUrl, { transactions: TX, perBlock: PER_BLOCK });
    chainNote = `a local anvil in Tempo mode filled by the demo's load generator (${load.hashes} transactions, ${PER_BLOCK} per block), collected from block 1 by \`collect --once\` in process`;
    mkdirSync('bench/tmp', { recursive: true });
    const file = `bench/tmp/store-size${values.label ? `-${values.label}` : ''}.sqlite`;
    for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
    const targets = [
      `sqlite:${file}`,
      await benchStore('postgres', `paywatch_store_size${values.label ? `_${values.label}` : ''}`, { fresh: true }),
    ];
    for (const db of targets) results.push(await measure(db, await collect(db, node.rpcUrl)));
  } finally {
    await node.stop();
  }
}

const md = [
  '# Store size benchmark',
  '',
  `Command: \`node bin/run-ts.js bench/store-size.ts ${process.argv.slice(2).join(' ')}\`. Store: ${chainNote}. Run at ${new Date().toISOString()}${values.label ? ` (${values.label})` : ''}. SQLite: pages per b-tree from \`dbstat\` (free pages listed apart); PostgreSQL: pg_total_relation_size per table minus its indexes (heap + TOAST), pg_relation_size per index. Target ≤ 2,000 bytes per observation, indexes included.`,
  '',
  ...results.flatMap((r) => [
    `## ${r.dialect}: ${r.total_per_observation} bytes per observation (${r.observations} observations; chain tables with their indexes ${r.chain_per_observation}${r.file_bytes ? `; file ${r.file_bytes} bytes` : ''}${r.collect_s ? `; collected in ${r.collect_s} s` : ''})`,
    '',
    '| object | table | kind | bytes | bytes per observation |',
    '|---|---|---|---:|---:|',
    ...r.objects.filter((o) => o.bytes >= 16_384).map((o) => `| ${o.name} | ${o.table} | ${o.kind} | ${o.bytes} | ${o.per_observation} |`),
    '',
    'Objects under 16 KiB left out of the table (counted in the total).',
    '',
  ]),
].join('\n');
writeResults('store-size', { label: values.label, results }, md);
process.stdout.write(`${md}\n`);
if (!values.keep && !values.db) {
  rmSync(`bench/tmp/store-size${values.label ? `-${values.label}` : ''}.sqlite`, { force: true });
}
