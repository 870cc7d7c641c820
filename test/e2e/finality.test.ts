/**
 * Finality verified end to end through the real `paywatch collect --once`: a real anvil node in Tempo mode with
 * real activity, behind a real loopback node (test/helpers/consensus-rpc.ts) that serves finalization
 * certificates signed by a generated test key whose identity is planted in a test genesis outcome
 * (`--consensus-genesis`). Then the real API (buildApp + inject) answers each observation's integrity,
 * `evidence.finality` and /api/status. Cases: verified with no witness; an agreeing witness; a lying witness
 * (an alarm, still verified); a node without `consensus_*` (unknown); a certificate over another block
 * (failed); a key change followed across an epoch boundary.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { loadConfig } from '../../src/config.js';
import { generateActivity, type GroundTruth } from '../../src/demo/activity.js';
import { localTokenList } from '../../src/demo/token-list.js';
import { openStore, type Store } from '../../src/store/db.js';
import { boundaryOutcome, testGenesisOutcome, testKey } from '../helpers/consensus.js';
import { startBadServers } from '../helpers/bad-servers.js';
import { type ConsensusRpcOptions, startConsensusRpc } from '../helpers/consensus-rpc.js';
import { runCli } from './cli.js';
import { rpcCall } from './rpc.js';

const KEY0 = testKey('finality e2e epoch 0');
const KEY1 = testKey('finality e2e epoch 1');
/** One epoch for the whole chain, unless a case says otherwise. */
const ONE_EPOCH = 1_000_000;

let anvil: AnvilNode;
let truth: GroundTruth;
let dir: string;

beforeAll(async () => {
  anvil = await startAnvil();
  truth = await generateActivity(anvil.rpcUrl);
  // Blocks past the first epochs of the key-change case (epoch length 10), so the head is certified by the new key.
  await rpcCall(anvil.rpcUrl, 'anvil_mine', ['0x18']);
  dir = mkdtempSync(join(tmpdir(), 'paywatch-finality-'));
}, 240_000);

afterAll(async () => {
  await anvil?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Collected {
  db: string;
  store: Store;
  code: number | null;
  output: string;
  status: Record<string, any>;
  detail: (hash: string) => Promise<Record<string, any>>;
  list: () => Promise<Record<string, any>[]>;
  close: () => Promise<void>;
}

let run = 0;

/** Runs `paywatch collect --once` through a consensus node built from `node`, then opens the API on its store. */
async function collect(
  node: Omit<ConsensusRpcOptions, 'upstream'>,
  extra: { epochLength?: number; args?: string[] } = {},
): Promise<Collected> {
  const rpc = await startConsensusRpc({ upstream: anvil.rpcUrl, ...node });
  const db = join(dir, `store-${++run}.sqlite`);
  const r = await runCli(
    [
      'collect',
      '--once',
      '--db',
      db,
      '--rpc',
      rpc.url,
      '--from',
      '0',
      '--consensus-genesis',
      testGenesisOutcome(KEY0),
      '--consensus-epoch-length',
      String(extra.epochLength ?? ONE_EPOCH),
      ...(extra.args ?? []),
    ],
    { PAYWATCH_FROM_SOURCE: '1' },
  );
  await rpc.close();
  const store: Store = await openStore(db, { tokenList: localTokenList() });
  const app: FastifyInstance = await buildApp(
    { store, config: loadConfig({ db, rpcUrl: anvil.rpcUrl }, {}), components: new Map() },
    { logger: false },
  );
  const get = async (url: string) => (await app.inject({ method: 'GET', url })).json();
  return {
    db,
    store,
    code: r.code,
    output: r.stdout + r.stderr,
    status: await get('/api/status'),
    detail: (hash) => get(`/api/transactions/${hash}`),
    list: async () => (await get('/api/transactions?limit=100')).rows,
    close: async () => {
      await app.close();
      await store.close();
    },
  };
}

/** A witness that calls every height finalized and reports another hash for it: a liar, or a fork. */
async function lyingWitness(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const call = JSON.parse(body) as { id: unknown };
      const result = { number: '0xffffff', hash: `0x${'66'.repeat(32)}` };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const signedBy = (key = KEY0) => ({ certify: { epochLength: ONE_EPOCH, keyFor: () => key } });

describe('paywatch collect verifies finality from the certificates', () => {
  it('verified with no witness: every observation, the detail evidence and /api/status', async () => {
    const c = await collect(signedBy());
    try {
      expect(c.code, c.output).toBe(0);
      const total = truth.transactions.length;
      expect(c.status.total_transactions).toBe(total);
      expect(c.status.finality).toMatchObject({ verified: total, failed: 0, unknown: 0, witness_alarm: null });
      expect(c.status.finality.last_verified_height).toBe(c.status.checkpoint.height);
      expect(c.status.independent_consensus_verified).toBe(true);
      for (const row of await c.list()) expect(row.integrity.independent_consensus_verified, row.hash).toBe(true);
      const t = truth.transactions.at(-1)!;
      const d = await c.detail(t.hash);
      expect(d.integrity.independent_consensus_verified).toBe(true);
      expect(d.evidence.finality).toMatchObject({
        status: 'verified',
        check: null,
        epoch: 0,
        key_from_epoch: 0,
        anchored: true,
        witnesses: { configured: 0, quorum: 0, agreeing: 0, disagreeing: 0 },
      });
      expect(d.evidence.finality.certificate_height).toBeGreaterThanOrEqual(t.height);
      expect(d.evidence.finality.view).toBe(d.evidence.finality.certificate_height + 1);
      // Printed for the record (docs/integrity.md quotes one such answer).
      console.log(JSON.stringify({ integrity: d.integrity, finality: d.evidence.finality }, null, 2));

      // `paywatch integrity verify` re-verifies the stored chain and certificates offline, then finds a tampered link.
      const args = [
        'integrity',
        'verify',
        '--db',
        c.db,
        '--consensus-genesis',
        testGenesisOutcome(KEY0),
        '--consensus-epoch-length',
        String(ONE_EPOCH),
      ];
      const ok = await runCli(args, { PAYWATCH_FROM_SOURCE: '1' });
      expect(ok.code, ok.stderr).toBe(0);
      const report = JSON.parse(ok.stdout);
      expect(report).toMatchObject({ from: 0, to: c.status.checkpoint.height, missing: 0, mismatches: [] });
      expect(report.certificates).toBeGreaterThan(1);
      expect(report.certificates_verified).toBe(report.certificates);
      await c.store.db
        .updateTable('blocks')
        .set({ parent_hash: Buffer.alloc(32, 7) })
        .where('height', '=', 5)
        .execute();
      const bad = await runCli([...args, '--from', '1', '--to', '10'], { PAYWATCH_FROM_SOURCE: '1' });
      expect(bad.code).toBe(3);
      expect(JSON.parse(bad.stdout).mismatches).toEqual([
        { height: 5, kind: 'parent', reason: expect.stringMatching(/^block 5's parent hash 0x0707/) },
      ]);
      expect(bad.stderr).toMatch(/1 stored block\(s\) do not re-verify; first: block 5/);
    } finally {
      await c.close();
    }
  }, 180_000);

  it('counts an agreeing witness', async () => {
    const c = await collect(signedBy(), { args: ['--witness', anvil.rpcUrl] });
    try {
      expect(c.code, c.output).toBe(0);
      const d = await c.detail(truth.transactions.at(-1)!.hash);
      expect(d.evidence.finality).toMatchObject({
        status: 'verified',
        witnesses: { configured: 1, quorum: 1, agreeing: 1, disagreeing: 0 },
      });
      expect(c.status.finality.witness_alarm).toBeNull();
    } finally {
      await c.close();
    }
  }, 120_000);

  it('raises an alarm for a lying witness and keeps the certificate verified', async () => {
    const liar = await lyingWitness();
    const c = await collect(signedBy(), { args: ['--witness', liar.url, '--witness', anvil.rpcUrl, '--witness-quorum', '1'] });
    try {
      expect(c.code, c.output).toBe(0);
      const d = await c.detail(truth.transactions.at(-1)!.hash);
      expect(d.integrity.independent_consensus_verified).toBe(true);
      expect(d.evidence.finality).toMatchObject({
        status: 'verified',
        witnesses: { configured: 2, quorum: 1, agreeing: 1, disagreeing: 1 },
      });
      expect(c.status.finality.witness_alarm).toMatchObject({ witness: liar.url, reported: `0x${'66'.repeat(32)}` });
      expect(c.output).toMatch(/ALARM a witness reports another block hash/);
    } finally {
      await c.close();
      await liar.close();
    }
  }, 120_000);

  it('bounds witnesses answering 50 MB or a malformed body: each is that witness’s error, the check goes on', async () => {
    const bad = await startBadServers();
    const huge = 50 * 1024 * 1024;
    const c = await collect(signedBy(), {
      args: ['--witness', `${bad.origin}/oversized?bytes=${huge}`, '--witness', `${bad.origin}/not-json`, '--witness', anvil.rpcUrl],
    });
    try {
      expect(c.code, c.output).toBe(0);
      const total = truth.transactions.length;
      expect(c.status.total_transactions).toBe(total);
      expect(c.status.finality).toMatchObject({ verified: total, failed: 0, unknown: 0, witness_alarm: null });
      const d = await c.detail(truth.transactions.at(-1)!.hash);
      expect(d.integrity.independent_consensus_verified).toBe(true);
      // The two bad witnesses are neither agreeing nor disagreeing; the honest one still counts.
      expect(d.evidence.finality).toMatchObject({
        status: 'verified',
        witnesses: { configured: 3, quorum: 3, agreeing: 1, disagreeing: 0 },
      });
      // Each read stopped at the cap: far from the 50 MB offered (what was sent is bounded by the socket buffers).
      const asked = bad.hits.get('/oversized')!;
      expect(asked).toBeGreaterThan(0);
      expect(bad.sent.get('/oversized')! / asked).toBeLessThan(huge / 4);
      // Each refusal is logged as that witness's error, named without its path or query.
      expect(c.output).toMatch(
        /a witness answer was refused[^\n]*larger than 262144 bytes|larger than 262144 bytes[^\n]*a witness answer was refused/,
      );
      expect(c.output).toMatch(/a witness answer was refused[^\n]*is not JSON|is not JSON[^\n]*a witness answer was refused/);
      expect(c.output).not.toMatch(/oversized\?bytes/);
    } finally {
      await c.close();
      await bad.stop();
    }
  }, 180_000);

  it('leaves finality unknown against a node without consensus_*, and collects everything', async () => {
    const c = await collect({ unsupported: true });
    try {
      expect(c.code, c.output).toBe(0);
      const total = truth.transactions.length;
      expect(c.status.total_transactions).toBe(total);
      expect(c.status.finality).toMatchObject({ verified: 0, failed: 0, unknown: total, last_verified_height: null });
      expect(c.status.independent_consensus_verified).toBe(false);
      const d = await c.detail(truth.transactions.at(-1)!.hash);
      expect(d.integrity.independent_consensus_verified).toBe(false);
      expect(d.evidence.finality).toMatchObject({ status: 'unknown', check: null, anchored: false });
      expect(d.evidence.finality.reason).toMatch(/does not serve consensus_getFinalization/);
    } finally {
      await c.close();
    }
  }, 120_000);

  it('fails a certificate over another block', async () => {
    const other = `0x${'ab'.repeat(32)}`;
    const c = await collect({ certify: { epochLength: ONE_EPOCH, keyFor: () => KEY0, payloadFor: () => other } });
    try {
      expect(c.code, c.output).toBe(0);
      const total = truth.transactions.length;
      expect(c.status.finality).toMatchObject({ verified: 0, failed: total, unknown: 0 });
      expect(c.status.independent_consensus_verified).toBe(false);
      const d = await c.detail(truth.transactions.at(-1)!.hash);
      expect(d.integrity.independent_consensus_verified).toBe(false);
      expect(d.evidence.finality).toMatchObject({ status: 'failed', check: 'payload' });
      expect(d.evidence.finality.reason).toContain(`the certificate finalizes ${other}`);
    } finally {
      await c.close();
    }
  }, 120_000);

  it('follows a key change at an epoch boundary certified by the old key', async () => {
    const L = 10;
    const keyFor = (epoch: number) => (epoch === 0 ? KEY0 : KEY1);
    const c = await collect({ certify: { epochLength: L, keyFor }, extraData: { [L - 1]: boundaryOutcome(1, KEY1) } }, { epochLength: L });
    try {
      expect(c.code, c.output).toBe(0);
      const total = truth.transactions.length;
      expect(c.status.finality).toMatchObject({ verified: total, failed: 0, unknown: 0 });
      expect(c.status.independent_consensus_verified).toBe(true);
      expect(c.status.finality.last_verified_height).toBe(c.status.checkpoint.height);
      const late = truth.transactions.filter((t) => t.height >= L);
      const early = truth.transactions.filter((t) => t.height < L);
      for (const t of early) expect((await c.detail(t.hash)).evidence.finality).toMatchObject({ status: 'verified', key_from_epoch: 0 });
      for (const t of late) expect((await c.detail(t.hash)).evidence.finality).toMatchObject({ status: 'verified', key_from_epoch: 1 });
      expect(late.length + early.length).toBe(total);
    } finally {
      await c.close();
    }
  }, 120_000);

  it('does not verify the new epoch without the boundary outcome (the key change is what makes it pass)', async () => {
    const L = 10;
    const keyFor = (epoch: number) => (epoch === 0 ? KEY0 : KEY1);
    const c = await collect({ certify: { epochLength: L, keyFor } }, { epochLength: L });
    try {
      expect(c.code, c.output).toBe(0);
      expect(c.status.independent_consensus_verified).toBe(false);
      const late = truth.transactions.filter((t) => t.height >= L);
      for (const t of late) {
        const f = (await c.detail(t.hash)).evidence.finality;
        expect(f).toMatchObject({ status: 'unknown', check: 'signature' });
      }
    } finally {
      await c.close();
    }
  }, 120_000);
});
