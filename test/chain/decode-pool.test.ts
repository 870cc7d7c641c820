/**
 * DecodePool: integrity + decode on a worker thread gives exactly what the main thread gives, for real blocks
 * fetched from a real anvil node in Tempo mode; a failing run is rejected with its error and the pool keeps
 * working; until a worker has loaded, runs are processed inline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, http, type PublicClient } from 'viem';
import { tempo } from 'viem/chains';
import { startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { TempoRpc } from '../../src/chain/rpc.js';
import { TokenRegistry } from '../../src/chain/tokens.js';
import { fetchConsistentRun } from '../../src/chain/collector/fetch.js';
import { tokenAddressesOf } from '../../src/chain/collector/deps.js';
import { processRun } from '../../src/chain/collector/process.js';
import { DecodePool } from '../../src/chain/collector/pool.js';
import { generateLoad } from '../../src/demo/activity/load.js';
import type { FetchedBlock, TokenMap } from '../../src/chain/types.js';

let anvil: AnvilNode;
let run: FetchedBlock[];
let tokens: TokenMap;

beforeAll(async () => {
  anvil = await startAnvil();
  await generateLoad(anvil.rpcUrl, { transactions: 30, perBlock: 5 });
  const rpc = await TempoRpc.connect({ url: anvil.rpcUrl, concurrency: 4, timeoutMs: 10_000 });
  const head = (await rpc.finalizedHead()).height;
  run = await fetchConsistentRun(rpc, 1, head, head, null);
  const registry = new TokenRegistry(createPublicClient({ chain: tempo, transport: http(anvil.rpcUrl) }) as PublicClient);
  tokens = await registry.resolve([...new Set(run.flatMap(tokenAddressesOf))]);
}, 120_000);

afterAll(async () => {
  await anvil?.stop();
});

/** Integrity carries the evaluation time; everything else must match to the byte. */
// Serialized rows carry integrity and detail as JSON text: parsed here so their clock members can be dropped.
const withoutTimes = (x: unknown) =>
  JSON.parse(
    JSON.stringify(x, (k, v) =>
      k === 'evaluated_at' || k === 'checked_at'
        ? undefined
        : (k === 'integrity' || k === 'detail') && typeof v === 'string'
          ? JSON.parse(v)
          : typeof v === 'bigint'
            ? `${v}n`
            : v,
    ),
  );

describe('DecodePool', () => {
  it('a worker thread decodes a run exactly as the main thread does', async () => {
    const pool = new DecodePool(1);
    try {
      await pool.whenReady();
      const onWorker = await pool.process(run, tokens);
      expect(pool.counts).toEqual({ worker: 1, inline: 0 });
      const inline = await processRun(run, tokens);
      expect(onWorker.reduce((n, b) => n + b.observations.length, 0)).toBe(30);
      expect(withoutTimes(onWorker)).toEqual(withoutTimes(inline));
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('rejects a run that cannot be decoded with its error, and goes on working', async () => {
    const pool = new DecodePool(1);
    try {
      await pool.whenReady();
      const broken = [{ ...run[0], block: { ...run[0].block, transactions: [{ nonsense: true }] } }] as unknown as FetchedBlock[];
      await expect(pool.process(broken, tokens)).rejects.toThrow(/\w/);
      const again = await pool.process(run, tokens);
      expect(again.length).toBe(run.length);
      expect(pool.counts.worker).toBe(2);
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('processes inline while no worker has loaded, and with size 0', async () => {
    const pool = new DecodePool(1);
    const none = new DecodePool(0);
    try {
      const early = await pool.process(run, tokens); // the worker takes far longer than this to load
      expect(pool.counts).toEqual({ worker: 0, inline: 1 });
      expect(early.length).toBe(run.length);
      await none.process(run, tokens);
      expect(none.counts).toEqual({ worker: 0, inline: 1 });
    } finally {
      await pool.close();
      await none.close();
    }
  }, 120_000);
});
