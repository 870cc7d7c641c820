/**
 * The consensus_* reader against real loopback HTTP nodes (test/helpers/consensus-rpc.ts): a certificate read and
 * verified; a node without the namespace (method not found) is `unsupported`; nothing stored is `missing`; a
 * hanging node, an oversized or malformed answer, an answer for another height and a throwing transport are
 * `failed`; none of them throws. Then the test kit end to end: the loopback node in front of a real anvil node
 * certifies anvil's own blocks, and what it serves verifies against the block hash recomputed by integrity
 * stage 2, or fails when it certifies another block; and a boundary block served with the next key's outcome
 * (hashes of it and later blocks recomputed) is followed to the key that signs the next epoch.
 */
import { encodeFunctionData, erc20Abi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import {
  acceptBoundary,
  anchorKeyChain,
  boundaryBlock,
  type ConsensusRequest,
  coverByParentChain,
  finalityBlock,
  type KeyChain,
  readFinalization,
  readLatestFinalized,
  verifyFinality,
} from '../../src/chain/consensus/index.js';
import { checkBlockHash, findInconsistencies, readConsensusContext } from '../../src/chain/integrity/index.js';
import type { RpcBlock, RpcReceipt } from '../../src/chain/types.js';
import { boundaryOutcome, signFinalization, testGenesisOutcome, testKey } from '../helpers/consensus.js';
import {
  type CertifiedBlockJson,
  certifiedBlockJson,
  type ConsensusRpc,
  fetchRequest,
  startConsensusRpc,
} from '../helpers/consensus-rpc.js';

const KEY = testKey('reader');
const HASH = `0x${'ab'.repeat(32)}`;
const header = (height: number) => ({ number: `0x${height.toString(16)}`, extraData: '0x' }) as unknown as RpcBlock;
/** A served CertifiedBlock for `height` (epoch 0). */
const served = (height: number): CertifiedBlockJson =>
  certifiedBlockJson(
    { ...header(height), hash: HASH } as RpcBlock,
    signFinalization({ key: KEY, epoch: 0, view: height + 1, parentView: height, payload: HASH }),
    {
      epoch: 0,
      view: height + 1,
    },
  );

const nodes: ConsensusRpc[] = [];
async function node(opts: Parameters<typeof startConsensusRpc>[0]): Promise<ConsensusRpc> {
  const n = await startConsensusRpc(opts);
  nodes.push(n);
  return n;
}
afterAll(async () => {
  await Promise.all(nodes.map((n) => n.close()));
});

describe('readFinalization', () => {
  it('reads a certificate by height and as the latest, with its height and certificate normalised', async () => {
    const n = await node({ finalization: (q) => served(q === 'latest' ? 9 : q.height) });
    const request = fetchRequest(n.url);
    const a = await readFinalization(request, { height: 7 });
    expect(a.kind).toBe('certified');
    if (a.kind !== 'certified') return;
    expect(a.block).toMatchObject({ height: 7, epoch: 0, view: 8, digest: HASH });
    expect(a.block.certificate).toMatch(/^0x[0-9a-f]{262}$/);
    expect(n.calls.at(-1)).toEqual({ method: 'consensus_getFinalization', params: [{ height: 7 }] });
    const latest = await readFinalization(request, 'latest');
    expect(latest.kind === 'certified' && latest.block.height).toBe(9);
    expect(n.calls.at(-1)).toEqual({ method: 'consensus_getFinalization', params: ['latest'] });
    const viaLatest = await readLatestFinalized(request);
    expect(viaLatest.kind === 'certified' && viaLatest.block.height).toBe(9);
    // What it read verifies.
    const keyChain = anchorKeyChain(testGenesisOutcome(KEY), 'test');
    const v = verifyFinality(
      { certificate: a.block.certificate, height: 7, blockHash: HASH, context: null },
      { keyChain, epochLength: 100 },
    );
    expect(v.status).toBe('verified');
  });

  it('says unsupported for a node without consensus_* (method not found), missing when nothing is stored', async () => {
    const shared = await node({ unsupported: true });
    expect(await readFinalization(fetchRequest(shared.url), { height: 7 })).toEqual({
      kind: 'unsupported',
      reason: 'the node does not serve consensus_getFinalization (the method consensus_getFinalization does not exist/is not available)',
    });
    expect((await readLatestFinalized(fetchRequest(shared.url))).kind).toBe('unsupported');
    // A service that words it differently, with another code.
    const worded: ConsensusRequest = async () => {
      throw Object.assign(new Error('Unsupported method: consensus_getFinalization. See available methods at https://docs.example'), {
        code: -32600,
      });
    };
    expect((await readFinalization(worded, 'latest')).kind).toBe('unsupported');
    const empty = await node({ finalization: () => null });
    const missing = await readFinalization(fetchRequest(empty.url), { height: 7 });
    expect(missing).toMatchObject({ kind: 'missing' });
    expect((await readLatestFinalized(fetchRequest(empty.url))).kind).toBe('missing');
  });

  it('fails, within its time budget and without throwing, on a node that hangs', async () => {
    const hanging = await node({ finalization: () => served(1), hang: true });
    const started = Date.now();
    const a = await readFinalization(fetchRequest(hanging.url), { height: 1 }, { timeoutMs: 300 });
    expect(a).toEqual({ kind: 'failed', reason: 'consensus_getFinalization did not answer within 300 ms' });
    expect(Date.now() - started).toBeLessThan(5_000);
    // A transport that ignores the signal still does not hold the caller.
    const deaf: ConsensusRequest = () => new Promise(() => {});
    expect((await readFinalization(deaf, 'latest', { timeoutMs: 100 })).kind).toBe('failed');
  });

  it('fails an answer over the size cap, a malformed answer, an answer for another height and a throwing transport', async () => {
    const big = await node({
      finalization: (q) => ({
        ...served(q === 'latest' ? 1 : q.height),
        block: { ...served(1).block, body: { transactions: ['x'.repeat(200_000)], ommers: [], withdrawals: null } },
      }),
    });
    const tooBig = await readFinalization(fetchRequest(big.url), { height: 1 }, { maxBytes: 100_000 });
    expect(tooBig).toEqual({ kind: 'failed', reason: 'consensus_getFinalization failed: answer larger than 100000 bytes' });
    expect((await readFinalization(fetchRequest(big.url), { height: 1 })).kind).toBe('certified');

    const answers: unknown[] = [
      null,
      { ...served(1), digest: '0x12' },
      { ...served(1), epoch: -1 },
      { ...served(1), certificate: 'zz' },
      { ...served(1), certificate: 'ab'.repeat(200) },
      { ...served(1), block: { body: {} } },
      { ...served(1), block: { header: { number: 7 } } },
    ];
    for (const result of answers) {
      const a = await readFinalization(async () => result, { height: 1 });
      expect(a.kind, JSON.stringify(result)?.slice(0, 80)).toBe('failed');
    }
    const other = await readFinalization(async () => served(8), { height: 1 });
    expect(other).toEqual({ kind: 'failed', reason: 'consensus_getFinalization answered block 8 for height 1' });
    const throwing: ConsensusRequest = () => {
      throw new Error('socket hang up\nat somewhere');
    };
    expect(await readFinalization(throwing, 'latest')).toEqual({
      kind: 'failed',
      reason: 'consensus_getFinalization failed: socket hang up',
    });
    expect((await readFinalization(throwing, { height: -1 })).kind).toBe('failed');
  });

  it('never reads a notarized block as finality', async () => {
    const notarizedOnly: ConsensusRequest = async () => ({ finalized: null, notarized: served(3) });
    expect((await readLatestFinalized(notarizedOnly)).kind).toBe('missing');
  });
});

describe('the test kit in front of anvil', () => {
  let anvil: AnvilNode;
  const L = 4;
  const keyChain = anchorKeyChain(testGenesisOutcome(KEY), 'test genesis');
  let rpcId = 0;
  const rpc = async <T>(url: string, method: string, params: unknown[]): Promise<T> => {
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
    });
    return ((await r.json()) as { result: T }).result;
  };

  beforeAll(async () => {
    anvil = await startAnvil();
    await rpc(anvil.rpcUrl, 'anvil_mine', ['0x8']);
    // Block 9 holds a TIP-20 transfer, so the receipts and transactions of rewritten blocks are exercised too.
    const [from, to] = await rpc<string[]>(anvil.rpcUrl, 'eth_accounts', []);
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to as `0x${string}`, 5n] });
    await rpc(anvil.rpcUrl, 'eth_sendTransaction', [{ from, to: '0x20c0000000000000000000000000000000000001', data, gas: '0x30d40' }]);
    await rpc(anvil.rpcUrl, 'anvil_mine', ['0x4']);
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  it("serves certificates over anvil's own blocks that verify against the recomputed hash, and forwards other calls", async () => {
    const n = await node({ upstream: anvil.rpcUrl, certify: { epochLength: L, keyFor: () => KEY } });
    expect(await rpc(n.url, 'eth_chainId', [])).toBe('0x1079');
    const latest = await readFinalization(fetchRequest(n.url), 'latest');
    expect(latest.kind).toBe('certified');
    if (latest.kind !== 'certified') return;
    const height = latest.block.height;
    const block = await rpc<RpcBlock>(n.url, 'eth_getBlockByNumber', [`0x${height.toString(16)}`, true]);
    const check = checkBlockHash(block);
    expect(check.match).toBe(true);
    const v = verifyFinality(
      { certificate: latest.block.certificate, height, blockHash: check.expected, context: readConsensusContext(block) },
      { keyChain, epochLength: L },
    );
    expect(v, v.reason).toMatchObject({ status: 'verified', epoch: Math.floor(height / L), view: height + 1, key_from_epoch: 0 });
    // Above the finalized head there is no certificate yet.
    expect((await readFinalization(fetchRequest(n.url), { height: height + 100 })).kind).toBe('missing');
  });

  it('serves a failing certificate when told to certify another block', async () => {
    const other = `0x${'cd'.repeat(32)}`;
    const n = await node({ upstream: anvil.rpcUrl, certify: { epochLength: L, keyFor: () => KEY, payloadFor: () => other } });
    const a = await readFinalization(fetchRequest(n.url), { height: 3 });
    if (a.kind !== 'certified') throw new Error(a.reason);
    const block = await rpc<RpcBlock>(n.url, 'eth_getBlockByNumber', ['0x3', false]);
    const v = verifyFinality(
      { certificate: a.block.certificate, height: 3, blockHash: checkBlockHash(block).expected, context: null },
      { keyChain, epochLength: L },
    );
    expect(v).toMatchObject({ status: 'failed', check: 'payload', block_hash: other });
  });

  it('serves a boundary block carrying the next key, certified by the old key, and the later epoch certified by the new one', async () => {
    const next = testKey('reader epoch 2');
    const outcome = boundaryOutcome(2, next);
    // Epoch length 4: block 7 is epoch 1's last block; epoch 2 (blocks 8 to 11) is signed by the next key.
    const n = await node({
      upstream: anvil.rpcUrl,
      extraData: { 7: outcome },
      certify: { epochLength: L, keyFor: (e) => (e < 2 ? KEY : next) },
    });
    const request = fetchRequest(n.url);
    const get = (h: number) => rpc<RpcBlock>(n.url, 'eth_getBlockByNumber', [`0x${h.toString(16)}`, true]);
    const [b6, b7, b8, b9] = await Promise.all([get(6), get(7), get(8), get(9)]);
    // The served chain is consistent: rewritten hashes recompute, parents link, receipts name the served block.
    expect(b7.extraData).toBe(outcome);
    for (const b of [b7, b8, b9]) expect(checkBlockHash(b).match).toBe(true);
    expect(b8.parentHash).toBe(b7.hash);
    const receipts = await rpc<RpcReceipt[]>(n.url, 'eth_getBlockReceipts', ['0x9']);
    expect(b9.transactions).toHaveLength(1);
    expect(findInconsistencies({ block: b9, receipts, finalizedHeight: 9, source: n.url, fetchedAt: '' }, 9)).toEqual([]);
    expect(await rpc<RpcBlock>(n.url, 'eth_getBlockByHash', [b7.hash, false])).toMatchObject({ number: '0x7', hash: b7.hash });

    const verify = async (h: number, b: RpcBlock, chain: KeyChain) => {
      const a = await readFinalization(request, { height: h });
      if (a.kind !== 'certified') throw new Error(a.reason);
      return verifyFinality({ certificate: a.block.certificate, ...finalityBlock(b) }, { keyChain: chain, epochLength: L });
    };
    const boundary = await verify(7, b7, keyChain);
    expect(boundary, boundary.reason).toMatchObject({ status: 'verified', epoch: 1, key_from_epoch: 0 });
    expect((await verify(9, b9, keyChain)).status).toBe('unknown'); // the key changed at the boundary not yet followed
    const followed = acceptBoundary(keyChain, boundaryBlock(b7)!, boundary, L);
    expect(followed, followed.reason).toMatchObject({ accepted: true, keyChanged: true, epoch: 2 });
    const after = await verify(9, b9, followed.chain);
    expect(after, after.reason).toMatchObject({ status: 'verified', epoch: 2, key_from_epoch: 2, anchored: true });
    expect(
      coverByParentChain(
        b9.hash,
        [b9, b8, b7, b6].map((b) => ({ height: Number(b.number), hash: b.hash, parentHash: b.parentHash })),
      ),
    ).toMatchObject({
      coveredFrom: 6,
      brokenAt: null,
    });
  });
});
