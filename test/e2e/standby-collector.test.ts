/**
 * A standby collector on PostgreSQL: real `paywatch collect` processes (and one `paywatch start`) on one database
 * of the machine's PostgreSQL server, against a real anvil node in Tempo mode. While one holds the collector lock
 * the others stand by; SIGKILLing the leader mid-backfill three times hands the store over each time, and the
 * final store equals a clean run. Handover times (lock released → the standby's first write) are written to
 * bench/results/standby.md when PAYWATCH_STANDBY_RESULTS=1 (bench/standby.ts sets it). On SQLite a second
 * collector still exits with the clear message.
 */
import { writeFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { generateLoad } from '../../src/demo/activity.js';
import { getCheckpoint } from '../../src/store/chain/index.js';
import { COLLECTOR_LOCK_KEY } from '../../src/store/chain/collector-lock.js';
import { openStore, type Store } from '../../src/store/db.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { referenceCollect, runCli, snapshotStore, startCli, type StoreSnapshot } from './cli.js';
import { finalizedHeight, rpcCall } from './rpc.js';

let anvil: AnvilNode;
let head: number;
let clean: StoreSnapshot;
const dbs: TestDb[] = [];

async function freshDb(dialect: 'sqlite' | 'postgres'): Promise<TestDb> {
  const db = await createTestDb(dialect);
  dbs.push(db);
  return db;
}

/** Backend pid of the session holding the collector lock in this store's database, or null. */
async function lockHolder(store: Store): Promise<number | null> {
  const r = await sql<{ pid: number }>`select pid from pg_locks where locktype = 'advisory' and granted
    and database = (select oid from pg_database where datname = current_database())
    and ((classid::bigint << 32) | objid::bigint) = ${sql.lit(COLLECTOR_LOCK_KEY)}::bigint`.execute(store.db);
  return r.rows[0] ? Number(r.rows[0].pid) : null;
}

const height = async (s: Store) => (await getCheckpoint(s).catch(() => null))?.height ?? -1;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (polling every 5 ms, up to `ms`) until `check` is true; returns the time it became true. */
async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<number> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return performance.now();
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(5);
  }
}

beforeAll(async () => {
  anvil = await startAnvil();
  // Blocks of two real TIP-20 transfers, then empty blocks, so a slow backfill (batch 1) takes several seconds.
  await generateLoad(anvil.rpcUrl, { transactions: 300, perBlock: 2 });
  await rpcCall(anvil.rpcUrl, 'anvil_mine', ['0x1770']);
  head = await finalizedHeight(anvil.rpcUrl);
  clean = await referenceCollect((await freshDb('postgres')).url, anvil.rpcUrl);
  expect(clean.rows).toHaveLength(300);
}, 240_000);

afterAll(async () => {
  await anvil?.stop();
  for (const db of dbs) await db.drop();
});

describe('a standby collector on postgres', () => {
  it('stands by while the leader holds the store, takes over within seconds of each SIGKILL, and ends equal to the clean run', async () => {
    const db = await freshDb('postgres');
    const args = [
      '--db',
      db.url,
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
    ];
    const collect = () => startCli(['collect', ...args, '--log-level', 'info']);
    const reader = await openStore(db.url);
    const procs: ReturnType<typeof startCli>[] = [];
    const handovers: { releasedAtHeight: number; ms: number }[] = [];
    try {
      let leader = collect();
      procs.push(leader);
      await until(async () => (await height(reader)) >= 0, 60_000, 'the first write');
      let standby = collect();
      procs.push(standby);
      await until(async () => /standing by/.test(outputOf(standby)), 60_000, 'the standby');
      for (let kill = 0; kill < 3; kill++) {
        // Kill at about 20 %, 45 % and 70 % of the backfill.
        const at = Math.floor(head * (0.2 + 0.25 * kill));
        await until(async () => (await height(reader)) >= at, 120_000, `height ${at}`);
        const holder = await lockHolder(reader);
        expect(holder).not.toBeNull();
        leader.child.kill('SIGKILL');
        expect((await leader.done).signal).toBe('SIGKILL');
        const releasedAt = await until(async () => (await lockHolder(reader)) !== holder, 10_000, 'the lock release');
        const before = await height(reader);
        console.log(`kill ${kill + 1}: checkpoint ${before} of ${head}`);
        expect(before).toBeLessThan(head); // mid-backfill
        const wroteAt = await until(async () => (await height(reader)) > before, 10_000, "the standby's first write");
        handovers.push({ releasedAtHeight: before, ms: Math.round(wroteAt - releasedAt) });
        // Generously above the 5 s goal: timing is measured in bench/, not asserted tightly here.
        expect(wroteAt - releasedAt).toBeLessThan(10_000);
        leader = standby;
        // The killed one comes back as the new standby; the last time as `paywatch start`, whose API must say so.
        standby =
          kill < 2
            ? collect()
            : startCli(['start', ...args, '--port', '0', '--verify-port', '0', '--log-level', 'info'], {
                PAYWATCH_INTEL_INTERVAL_SECONDS: '86400',
                PAYWATCH_SOURCES: 'none=mpp-registry:http://127.0.0.1:1/',
              });
        procs.push(standby);
        await until(async () => /standing by/.test(outputOf(standby)), 60_000, 'the new standby');
      }
      await until(async () => (await height(reader)) >= head, 120_000, 'the head');
      // The last standby was `paywatch start`: its API answered throughout and shows `standby`.
      const url = /"url":"(http:\/\/[^"]+)"/.exec(outputOf(standby))?.[1];
      expect(url).toBeDefined();
      const status = (await (await fetch(`${url}/api/status`)).json()) as { collector: { state: string } };
      expect(status.collector.state).toBe('standby');
    } finally {
      for (const p of procs) p.child.kill('SIGTERM');
      await Promise.all(procs.map((p) => p.done));
      await reader.close();
    }
    const got = await snapshotStore(db.url);
    expect(new Set(got.hashes).size).toBe(got.hashes.length);
    expect(got.rows).toEqual(clean.rows);
    expect(got.coverage).toEqual([{ first: 0, last: head }]);
    expect(got.checkpoint).toEqual(clean.checkpoint);
    expect(handovers).toHaveLength(3);
    console.log(
      `standby handovers (lock released → first write): ${handovers.map((h) => `${h.ms} ms at height ${h.releasedAtHeight}`).join(', ')}`,
    );
    if (process.env.PAYWATCH_STANDBY_RESULTS === '1') writeHandovers(handovers);
  }, 300_000);
});

describe('a second collector on sqlite', () => {
  it('still exits with the clear message (one file, one writer)', async () => {
    const db = await freshDb('sqlite');
    const leader = startCli([
      'collect',
      '--db',
      db.url,
      '--rpc',
      anvil.rpcUrl,
      '--from',
      '0',
      '--batch-size',
      '2',
      '--rpc-concurrency',
      '1',
    ]);
    try {
      const reader = await openStore(db.url);
      await until(async () => (await height(reader)) >= 0, 60_000, 'the first write');
      await reader.close();
      const second = await runCli(['collect', '--db', db.url, '--rpc', anvil.rpcUrl, '--from', '0']);
      expect(second.code).not.toBe(0);
      expect(second.stderr).toMatch(
        /another collector \(pid \d+\) holds the store sqlite:.*; stop it first, or use serve to read the store/,
      );
    } finally {
      leader.child.kill('SIGTERM');
      await leader.done;
    }
  }, 120_000);
});

/** Everything a started process has printed so far (stdout and stderr). */
const outputs = new WeakMap<object, string>();
function outputOf(p: ReturnType<typeof startCli>): string {
  if (!outputs.has(p)) {
    outputs.set(p, '');
    const add = (d: Buffer) => outputs.set(p, outputs.get(p)! + d.toString());
    p.child.stdout!.on('data', add);
    p.child.stderr!.on('data', add);
  }
  return outputs.get(p)!;
}

function writeHandovers(h: { releasedAtHeight: number; ms: number }[]): void {
  const lines = [
    '# Standby collector handover',
    '',
    `Measured by test/e2e/standby-collector.test.ts (run with PAYWATCH_STANDBY_RESULTS=1, or \`node bin/run-ts.js bench/standby.ts\`): two \`paywatch collect\` processes on one PostgreSQL database (the machine's server), a real anvil node with ${head} finalized blocks (300 transfers), \`--batch-size 1 --rpc-concurrency 1\`; the leader is SIGKILLed at about 20 %, 45 % and 70 % of the backfill and restarted as the next standby. Handover = from the moment the test sees the advisory lock released (pg_locks, polled every 5 ms) to the moment it sees the checkpoint advance (polled every 5 ms). The standby polls the lock every 1 s (STANDBY_POLL_MS), so a handover is at most about 1 s plus the new leader's first fetch and write.`,
    '',
    `Measured ${new Date().toISOString().slice(0, 10)}, ${process.platform} ${process.arch}, Node ${process.version}.`,
    '',
    '| kill | checkpoint at release | handover (ms) |',
    '|---|---|---|',
    ...h.map((x, i) => `| ${i + 1} | ${x.releasedAtHeight} | ${x.ms} |`),
    '',
  ];
  writeFileSync(new URL('../../bench/results/standby.md', import.meta.url), lines.join('\n'));
}
