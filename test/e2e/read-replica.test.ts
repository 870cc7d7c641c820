/**
 * Public reads from a real PostgreSQL streaming replica (`--db-read`): a throwaway primary and a replica made
 * from it by pg_basebackup -R (test/helpers/pg-cluster.ts), a real anvil node in Tempo mode, `paywatch collect`
 * into the primary, and two real `paywatch serve` processes, one reading the replica and one the primary. The
 * answers agree once the replica has replayed; while replay is paused the lag is reported, and a detail the
 * replica lacks is still served (from the primary); with the replica stopped the reads fail over to the primary
 * and come back when it returns. Last, the primary restarts in the middle of a collection, which must resume
 * with nothing lost or duplicated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { generateLoad } from '../../src/demo/activity.js';
import { getCheckpoint } from '../../src/store/chain/index.js';
import { STATS_REUSE_MS } from '../../src/store/cache.js';
import { openStore } from '../../src/store/db.js';
import { finishCollectRun, startCollectRun, upsertService } from '../../src/store/intel/index.js';
import { createPgPair, type PgPair } from '../helpers/pg-cluster.js';
import { runCli, snapshotStore, startCli } from './cli.js';
import { finalizedHeight, rpcCall } from './rpc.js';

let pair: PgPair;
let anvil: AnvilNode;
let primaryUrl: string;
let replicaUrl: string;
const procs: ReturnType<typeof startCli>[] = [];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, compared whole
type Json = Record<string, any>;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function get(base: string, path: string): Promise<{ status: number; body: Json; headers: Headers }> {
  const r = await fetch(`${base}${path}`);
  return { status: r.status, body: (await r.json()) as Json, headers: r.headers };
}

/** Starts `paywatch serve` on a free port and waits until /readyz answers; returns its base URL. */
async function serve(extra: string[]): Promise<string> {
  const port = await freePort();
  const p = startCli(['serve', '--db', primaryUrl, '--port', String(port), ...extra], { PAYWATCH_RATE_LIMIT: '100000' });
  procs.push(p);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    const ok = await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return base;
    await pause(100);
  }
  throw new Error(`serve ${extra.join(' ')} did not become ready`);
}

/** Polls `check` every 100 ms for up to `ms`; returns its last value once truthy. */
async function eventually<T>(check: () => Promise<T>, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(100);
  }
}

async function collectOnce(): Promise<void> {
  const r = await runCli(['collect', '--once', '--db', primaryUrl, '--rpc', anvil.rpcUrl, '--from', '0']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
}

beforeAll(async () => {
  [pair, anvil] = await Promise.all([createPgPair(), startAnvil()]);
  const name = await pair.createDb('pw_replica');
  primaryUrl = pair.primary.url(name);
  replicaUrl = pair.replica.url(name);
  await generateLoad(anvil.rpcUrl, { transactions: 60, perBlock: 2 });
  await collectOnce();
  // A provider and a finished intelligence collection run (provider reads answer 503 before one), written to the primary.
  const primary = await openStore(primaryUrl);
  try {
    await upsertService(primary, {
      service_id: 'a'.repeat(64),
      domain: 'api.alpha.example',
      method: 'GET',
      url: 'https://api.alpha.example/quote',
      tool: null,
      description: 'quotes',
      source: 'test',
      seen_at: '2026-01-01T00:00:00Z',
    });
    await finishCollectRun(primary, await startCollectRun(primary), { services: 1, snapshots: 0, changes: 0, error: null });
  } finally {
    await primary.close();
  }
  await pair.waitCaughtUp();
}, 240_000);

afterAll(async () => {
  for (const p of procs) p.child.kill('SIGTERM');
  await Promise.all(procs.map((p) => p.done));
  await anvil?.stop();
  pair?.destroy();
});

describe('reads from a streaming replica', () => {
  let onReplica: string;
  let onPrimary: string;

  it('refuses --db-read with a SQLite --db', async () => {
    const r = await runCli([
      'serve',
      '--db',
      'sqlite:/tmp/paywatch-never.sqlite',
      '--db-read',
      'postgres://postgres@127.0.0.1:1/x',
      '--port',
      '0',
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('invalid --db-read: needs a PostgreSQL --db');
  });

  it('answers list, detail, metrics and status as a server reading the primary does', async () => {
    [onReplica, onPrimary] = await Promise.all([serve(['--db-read', replicaUrl]), serve([])]);
    const list = await get(onReplica, '/api/transactions?limit=100');
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(60);
    expect(list.body).toEqual((await get(onPrimary, '/api/transactions?limit=100')).body);
    const hash = list.body.rows[7].hash as string;
    expect((await get(onReplica, `/api/transactions/${hash}`)).body).toEqual((await get(onPrimary, `/api/transactions/${hash}`)).body);
    expect((await get(onReplica, '/api/metrics')).body).toEqual((await get(onPrimary, '/api/metrics')).body);
    // The provider search answers from the replica too; as_of is the time asked.
    const providers = async (base: string) => {
      const r = await get(base, '/api/providers');
      expect(r.status).toBe(200);
      return { ...r.body, as_of: null } as Json;
    };
    const listed = await providers(onReplica);
    expect(listed.total).toBe(1);
    expect(listed).toEqual(await providers(onPrimary));
    const csv = async (base: string) => (await fetch(`${base}/api/export`)).text();
    const exported = await csv(onReplica);
    expect(exported.trim().split('\n')).toHaveLength(61); // the header and 60 rows
    expect(exported).toBe(await csv(onPrimary));
    const [a, b] = [(await get(onReplica, '/api/status')).body, (await get(onPrimary, '/api/status')).body];
    for (const k of ['total_transactions', 'checkpoint', 'collector', 'coverage']) expect(a[k]).toEqual(b[k]);
    expect(a.replica).toEqual({ serving: 'replica', replay_lag_seconds: 0, replay_lag_bytes: 0, replay_paused: false });
    expect(b.replica).toBeNull();
  });

  it('reports the lag while replay is paused, serves a fresh detail from the primary, and catches up after', async () => {
    await pair.setReplayPaused(true);
    try {
      const before = (await get(onReplica, '/api/transactions?limit=100')).body; // remembered at the replica's version
      await generateLoad(anvil.rpcUrl, { transactions: 10, perBlock: 2 });
      await collectOnce();
      const primaryList = (await get(onPrimary, '/api/transactions?limit=100')).body;
      expect(primaryList.total).toBe(70);
      const status = (await get(onReplica, '/api/status')).body;
      expect(status.replica.serving).toBe('replica');
      expect(status.replica.replay_paused).toBe(true);
      expect(status.replica.replay_lag_bytes).toBeGreaterThan(0);
      expect(status.replica.replay_lag_seconds).toBeGreaterThanOrEqual(0);
      expect(status.total_transactions).toBe(60); // what the replica has replayed
      expect((await get(onReplica, '/api/transactions?limit=100')).body).toEqual(before);
      // A detail the replica has not replayed yet is served (from the primary), not a 404.
      const fresh = primaryList.rows.find((r: Json) => !before.rows.some((o: Json) => o.hash === r.hash)).hash as string;
      const detail = await get(onReplica, `/api/transactions/${fresh}`);
      expect(detail.status).toBe(200);
      expect(detail.body).toEqual((await get(onPrimary, `/api/transactions/${fresh}`)).body);
      // A hash neither has is still a 404.
      expect((await get(onReplica, `/api/transactions/0x${'ab'.repeat(32)}`)).status).toBe(404);
    } finally {
      await pair.setReplayPaused(false);
    }
    await pair.waitCaughtUp();
    await pause(STATS_REUSE_MS + 50); // the store version read is reused this long (src/store/cache.ts)
    // The remembered answers key on the replica's version: once replayed, the new rows show.
    expect((await get(onReplica, '/api/transactions?limit=100')).body).toEqual((await get(onPrimary, '/api/transactions?limit=100')).body);
    expect((await get(onReplica, '/api/status')).body.replica).toEqual({
      serving: 'replica',
      replay_lag_seconds: 0,
      replay_lag_bytes: 0,
      replay_paused: false,
    });
  }, 120_000);

  it('fails over to the primary while the replica is down and goes back when it returns', async () => {
    pair.replica.stop('fast');
    try {
      for (const path of ['/api/transactions?limit=100', '/api/metrics', '/api/coverage']) {
        const r = await get(onReplica, path);
        expect(r.status).toBe(200);
        expect(r.body).toEqual((await get(onPrimary, path)).body);
      }
      const status = (await get(onReplica, '/api/status')).body;
      expect(status.replica).toEqual({ serving: 'primary', replay_lag_seconds: null, replay_lag_bytes: null, replay_paused: null });
      expect((await get(onReplica, '/readyz')).status).toBe(200);
    } finally {
      pair.replica.start();
    }
    const back = await eventually(
      async () => {
        const s = (await get(onReplica, '/api/status')).body;
        return s.replica?.serving === 'replica' ? s : undefined;
      },
      30_000,
      'reads back on the replica',
    );
    expect(back!.replica.replay_paused).toBe(false);
  }, 120_000);
});

describe('a primary restarting during collection', () => {
  it('the collector resumes: no lost or duplicated blocks', async () => {
    for (const p of procs.splice(0)) {
      p.child.kill('SIGTERM');
      await p.done;
    }
    await rpcCall(anvil.rpcUrl, 'anvil_mine', ['0x7d0']);
    const head = await finalizedHeight(anvil.rpcUrl);
    const name = await pair.createDb('pw_restart');
    const url = pair.primary.url(name);
    const collector = startCli([
      'collect',
      '--db',
      url,
      '--rpc',
      anvil.rpcUrl,
      '--from',
      '0',
      '--batch-size',
      '1',
      '--rpc-concurrency',
      '1',
      '--poll-interval-ms',
      '200',
    ]);
    procs.push(collector);
    const height = async () => {
      const s = await openStore(url, { migrate: false });
      try {
        return (await getCheckpoint(s))?.height ?? -1;
      } finally {
        await s.close();
      }
    };
    await eventually(async () => (await height()) >= head / 4, 120_000, 'a quarter of the backfill');
    pair.primary.stop('immediate'); // as a crash
    await pause(2000);
    pair.primary.start();
    const stopped = await height();
    expect(stopped).toBeLessThan(head); // it was mid-backfill
    await eventually(async () => (await height()) >= head, 180_000, 'the head after the restart');
    collector.child.kill('SIGTERM');
    await collector.done;
    await collectOnce(); // the clean reference, in the first database
    const clean = await snapshotStore(primaryUrl);
    const got = await snapshotStore(url);
    expect(new Set(got.hashes).size).toBe(got.hashes.length);
    expect(got.rows).toEqual(clean.rows);
    expect(got.coverage).toEqual([{ first: 0, last: head }]);
    expect(got.checkpoint).toEqual(clean.checkpoint);
  }, 300_000);
});
