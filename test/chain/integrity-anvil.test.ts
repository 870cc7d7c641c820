/**
 * Integrity on a real anvil node in Tempo mode: legacy, EIP-2930, EIP-1559, EIP-7702 and 0x76 transactions
 * (batches across two tokens, fee-sponsored, reverted), one per block and many in one block, fetched as the
 * collector fetches them. Every transaction must score 2 with both roots recomputed and matching; the shared
 * tamper cases then run on the many-transaction block.
 * With INTEGRITY_RECORD=1 it rewrites the recorded fixtures used by integrity.test.ts.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, encodeFunctionData, erc20Abi, http, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { tempo } from 'viem/chains';
import { ANVIL_KEYS, startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { blockCommitment, evaluateBlockIntegrity, findInconsistencies } from '../../src/chain/integrity/index.js';
import type { FetchedBlock, RpcBlock, RpcReceipt } from '../../src/chain/types.js';
import { integrityCases } from '../fixtures/integrity/cases.js';

const TOKENS = ['0x20c0000000000000000000000000000000000001', '0x20c0000000000000000000000000000000000002'] as const;
const chain = { ...tempo, id: 4217 };

let node: AnvilNode;
let rpcId = 0;
async function rpc<T>(method: string, params: unknown[]): Promise<T> {
  const res = await fetch(node.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/** Fetches a block the way the collector does: full transactions, block receipts, the finalized head. */
async function fetchBlock(height: number): Promise<FetchedBlock> {
  const tag = `0x${height.toString(16)}`;
  const [block, receipts, finalized] = await Promise.all([
    rpc<RpcBlock>('eth_getBlockByNumber', [tag, true]),
    rpc<RpcReceipt[]>('eth_getBlockReceipts', [tag]),
    rpc<{ number: string }>('eth_getBlockByNumber', ['finalized', false]),
  ]);
  return { block, receipts, finalizedHeight: Number(BigInt(finalized.number)), source: node.rpcUrl, fetchedAt: new Date().toISOString() };
}

/** Sends one of each kind of transaction from `wallets`; returns their hashes, in the order sent. */
async function sendVariety(round: number): Promise<Hex[]> {
  const wallets = ANVIL_KEYS.map((k) => createWalletClient({ chain, transport: http(node.rpcUrl), account: privateKeyToAccount(k) }));
  const to = privateKeyToAccount(ANVIL_KEYS[(round + 1) % ANVIL_KEYS.length]).address;
  const transfer = (amount: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] });
  const [w0, w1, w2, w3, w4] = wallets as [
    (typeof wallets)[0],
    (typeof wallets)[0],
    (typeof wallets)[0],
    (typeof wallets)[0],
    (typeof wallets)[0],
  ];
  const hashes: Hex[] = [];
  const send = async (w: typeof w0, tx: Record<string, unknown>) => hashes.push(await (w.sendTransaction(tx as never) as Promise<Hex>));
  await send(w0, { type: 'legacy', to: TOKENS[0], data: transfer(1000n + BigInt(round)), gas: 200_000n });
  await send(w1, { type: 'eip1559', to: TOKENS[1], data: transfer(2000n), gas: 200_000n });
  await send(w2, {
    type: 'eip2930',
    to: TOKENS[0],
    data: transfer(3000n),
    gas: 200_000n,
    accessList: [{ address: TOKENS[0], storageKeys: [] }],
  });
  const stranger = privateKeyToAccount(generatePrivateKey());
  const authorization = await stranger.signAuthorization({ contractAddress: TOKENS[0], chainId: 4217, nonce: 0 });
  await send(w0, { type: 'eip7702', to: TOKENS[0], data: transfer(4000n), gas: 300_000n, authorizationList: [authorization] });
  // 0x76 batch across two tokens (explicit gas: viem's estimate can be too low for batches)
  await send(w3, {
    calls: [
      { to: TOKENS[0], data: transfer(5000n) },
      { to: TOKENS[1], data: transfer(6000n) },
      { to: TOKENS[1], data: transfer(7000n) },
    ],
    gas: 600_000n,
  });
  // reverted: more than any balance; a legacy one and a 0x76 one
  await send(w4, { type: 'legacy', to: TOKENS[0], data: transfer(10n ** 30n), gas: 200_000n });
  await send(w4, { calls: [{ to: TOKENS[1], data: transfer(10n ** 30n) }], gas: 400_000n });
  // fee-sponsored 0x76 (the fee payer's signature is part of the encoding), from a fresh unfunded account:
  // (seen on anvil: a second sponsored, expiring-nonce transaction of the same sender in one block is dropped)
  const sponsored = createWalletClient({ chain, transport: http(node.rpcUrl), account: privateKeyToAccount(generatePrivateKey()) });
  await send(sponsored, { calls: [{ to: TOKENS[0], data: transfer(0n) }], gas: 400_000n, feePayer: privateKeyToAccount(ANVIL_KEYS[5]) });
  return hashes;
}

/** The receipt of `hash`, polled until the node has one (bounded: 10 s). */
async function waitForReceipt(hash: Hex): Promise<RpcReceipt> {
  for (let i = 0; i < 200; i++) {
    const r = await rpc<RpcReceipt | null>('eth_getTransactionReceipt', [hash]);
    if (r) return r;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no receipt for ${hash} after 10 s`);
}

let singles: number[] = [];
let many: FetchedBlock;
let emptyBlock: FetchedBlock;

beforeAll(async () => {
  node = await startAnvil();
  // Automine: one transaction per block. The blocks are read from the receipts: anvil may answer a send before
  // it has mined the block, so the head right after the last send can still lag by one.
  const sent = await sendVariety(0);
  const receipts = await Promise.all(sent.map((hash) => waitForReceipt(hash)));
  singles = [...new Set(receipts.map((r) => Number(BigInt(r.blockNumber))))].sort((a, b) => a - b);
  await rpc('evm_setAutomine', [false]);
  for (let round = 1; round <= 4; round++) await sendVariety(round);
  await rpc('evm_mine', []);
  const manyHeight = Number(BigInt(await rpc<string>('eth_blockNumber', [])));
  await rpc('evm_mine', []); // an empty block
  await rpc('evm_mine', []);
  await rpc('evm_mine', []); // finalized = latest − 2: now the empty block is finalized too
  many = await fetchBlock(manyHeight);
  emptyBlock = await fetchBlock(manyHeight + 1);
  if (process.env.INTEGRITY_RECORD === '1') {
    const dir = new URL('../fixtures/integrity/', import.meta.url);
    writeFileSync(new URL('block-many.json', dir), `${JSON.stringify(many, null, 1)}\n`);
    writeFileSync(new URL('block-empty.json', dir), `${JSON.stringify(emptyBlock, null, 1)}\n`);
  }
});

afterAll(async () => {
  await node?.stop();
});

describe('integrity on blocks fetched from a real anvil node in Tempo mode', () => {
  it('one-transaction blocks of every type (0, 1, 2, 4, 0x76; reverted; sponsored) all score 2 with both roots and the header hash matching', async () => {
    const types = new Set<string>();
    const statuses = new Set<string>();
    expect(singles.length).toBe(8);
    for (const h of singles) {
      const f = await fetchBlock(h);
      expect(findInconsistencies(f, h)).toEqual([]);
      const c = await blockCommitment(f);
      expect([c.transactionsRoot.match, c.receiptsRoot.match, c.blockHash.match]).toEqual([true, true, true]);
      const integrity = await evaluateBlockIntegrity(f, new Date(), c);
      expect(integrity.map((i) => i.score)).toEqual(f.block.transactions.map(() => 2));
      for (const tx of f.block.transactions) types.add(tx.type);
      for (const r of f.receipts) statuses.add(r!.status);
    }
    expect([...types].sort()).toEqual(['0x0', '0x1', '0x2', '0x4', '0x76']);
    expect([...statuses].sort()).toEqual(['0x0', '0x1']);
  });

  it('a block of many transactions of every type scores 2 on each', async () => {
    expect(many.block.transactions.length).toBe(32);
    expect(new Set(many.block.transactions.map((t) => t.type)).size).toBe(5);
    expect(many.receipts.some((r) => r!.status === '0x0')).toBe(true);
    expect(many.block.transactions.some((t) => t.feePayerSignature)).toBe(true);
    const integrity = await evaluateBlockIntegrity(many);
    expect(integrity.map((i) => i.score)).toEqual(many.block.transactions.map(() => 2));
  });

  it('an empty block: no integrity entries, and both empty-trie roots recompute and match', async () => {
    expect(emptyBlock.block.transactions).toEqual([]);
    const c = await blockCommitment(emptyBlock);
    expect([c.transactionsRoot.match, c.receiptsRoot.match]).toEqual([true, true]);
    expect(await evaluateBlockIntegrity(emptyBlock)).toEqual([]);
  });

  describe('tampered copies of the many-transaction block', () => {
    integrityCases(() => many);
  });
});
