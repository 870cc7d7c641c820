/**
 * The collector's store write in isolation: writePreparedBlocks over the same prepared runs (the chain
 * shape: N transactions at 10 a block on a local Tempo anvil, checked and decoded once by processRun), into a
 * fresh SQLite file (or PostgreSQL database) each round, timed by the process's CPU (user + system) per
 * transaction. The prepared runs are kept in `--cache` (JSON) so that another checkout (a "before" copy) writes
 * exactly the same rows. Prints µs/tx per round and the median; nothing written to bench/results.
 * `--vary` writes the same blocks in runs of varying length (a real chain's runs differ in rows).
 * Run: node bin/run-ts.js bench/write-prepared.ts [--transactions 5000] [--rounds 7] [--cache FILE] [--db postgres] [--vary]
 */
import { parseArgs } from 'node:util';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/store/db.js';
import { writePreparedBlocks, type PreparedBlock } from '../src/store/chain/index.js';

const { values } = parseArgs({
  options: {
    transactions: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '7' },
    run: { type: 'string', default: '50' },
    cache: { type: 'string', default: join(tmpdir(), 'paywatch-write-prepared.json') },
    db: { type: 'string', default: 'sqlite' },
    vary: { type: 'boolean', default: false },
  },
});
const TX = Number(values.transactions);
const RUN = Number(values.run);

/** Prepared runs of RUN blocks each, from the cache or generated on a fresh anvil and cached. */
async function preparedRuns(): Promise<PreparedBlock[][]> {
  if (existsSync(values.cache)) return JSON.parse(readFileSync(values.cache, 'utf8')) as PreparedBlock[][];
  const { startAnvil } = await import('../src/chain/anvil.js');
  const { generateLoad } = await import('../src/demo/activity/load.js');
  const { TempoRpc } = await import('../src/chain/rpc.js');
  const { createPublicClient, http } = await import('viem');
  type PublicClient = import('viem').PublicClient;
  const { tempo } = await import('viem/chains');
  const { TokenRegistry } = await import('../src/chain/tokens.js');
  const { tokenAddressesOf } = await import('../src/chain/collector/deps.js');
  const { processRun } = await import('../src/chain/collector/process.js');
  const { fetchConsistentRun } = await import('../src/chain/collector/fetch.js');
  const node = await startAnvil();
  try {
    await generateLoad(node.rpcUrl, { transactions: TX, perBlock: 10 });
    const rpc = await TempoRpc.connect({ url: node.rpcUrl, concurrency: 8, timeoutMs: 10_000 });
    const head = (await rpc.finalizedHead()).height;
    const runs = [];
    let prev: string | null = null;
    for (let first = 1; first <= head; first += RUN) {
      const r = await fetchConsistentRun(rpc, first, Math.min(head, first + RUN - 1), head, prev);
      prev = r[r.length - 1].block.hash;
      runs.push(r);
    }
    const registry = new TokenRegistry(createPublicClient({ chain: tempo, transport: http(node.rpcUrl, { batch: true }) }) as PublicClient);
    const tokens = await registry.resolve([...new Set(runs.flat().flatMap(tokenAddressesOf))]);
    const prepared = await Promise.all(runs.map((r) => processRun(r, tokens)));
    writeFileSync(values.cache, JSON.stringify(prepared));
    return prepared;
  } finally {
    await node.stop();
  }
}

/** `--vary`: the same blocks in runs of 43, 57, 48, 52 and 50 blocks in turn, as a real chain's runs vary in rows. */
function varied(runs: PreparedBlock[][]): PreparedBlock[][] {
  const blocks = runs.flat();
  const out: PreparedBlock[][] = [];
  for (let i = 0, k = 0; i < blocks.length; k++) {
    const n = [43, 57, 48, 52, 50][k % 5];
    out.push(blocks.slice(i, i + n));
    i += n;
  }
  return out;
}

const runs = values.vary ? varied(await preparedRuns()) : await preparedRuns();
const txs = runs.flat().reduce((n, b) => n + b.observations.length, 0);
process.stdout.write(`${runs.length} runs, ${runs.flat().length} blocks, ${txs} tx (${values.cache})\n`);
const perTx: number[] = [];
for (let round = 0; round < Number(values.rounds); round++) {
  const dir = mkdtempSync(join(tmpdir(), 'paywatch-write-'));
  const file = join(dir, 's.sqlite');
  const pgName = `paywatch_write_prepared_${process.pid}`;
  let target = `sqlite:${file}`;
  if (values.db === 'postgres') {
    const { benchStore } = await import('./lib/db.js');
    target = await benchStore('postgres', pgName, { fresh: true });
  }
  const store = await openStore(target);
  try {
    // Fresh copies: the write assigns attribution columns onto the rows it is given.
    const copies = runs.map((r) => structuredClone(r));
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (const b of copies) await writePreparedBlocks(store, b, { height: b[b.length - 1].height, hash: b[b.length - 1].hash });
    const cpu = process.cpuUsage(c0);
    const ms = performance.now() - t0;
    const us = (cpu.user + cpu.system) / txs;
    perTx.push(us);
    const size = values.db === 'postgres' ? '' : ` ${(statSync(file).size / txs).toFixed(0)} B/tx (file, before checkpoint)`;
    process.stdout.write(`round ${round}: ${us.toFixed(1)} µs/tx CPU, ${((ms * 1000) / txs).toFixed(1)} µs/tx wall${size}\n`);
  } finally {
    await store.close();
    if (values.db === 'postgres') await (await import('./lib/db.js')).dropBenchDatabase(pgName);
    rmSync(dir, { recursive: true, force: true });
  }
}
// Round 0 is a cold process (JIT, caches): reported, but the median is of the warm rounds.
const warm = perTx.slice(1).sort((a, b) => a - b);
const median = warm.length ? warm[Math.floor(warm.length / 2)] : perTx[0];
process.stdout.write(`cold ${perTx[0].toFixed(1)} µs/tx CPU; median of ${warm.length} warm rounds ${median.toFixed(1)} µs/tx CPU\n`);
