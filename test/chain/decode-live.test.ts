/**
 * Live: generateActivity on a real anvil node in Tempo mode, blocks read over JSON-RPC, tokens resolved by
 * TokenRegistry from the chain, integrity evaluated, decoded, and compared with the ground truth.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, custom, http, type PublicClient } from 'viem';
import { tempo } from 'viem/chains';
import { startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { decodeBlock, tokenAddressesOf } from '../../src/chain/decode/index.js';
import { evaluateBlockIntegrity } from '../../src/chain/integrity/index.js';
import { TokenRegistry } from '../../src/chain/tokens.js';
import { generateActivity, generateLoad, type GroundTruth } from '../../src/demo/activity.js';
import type { Observation } from '../../src/domain/observation.js';
import { nominalOf } from '../../src/domain/listing.js';
import { localTokenList } from '../../src/demo/token-list.js';

/** The local chain's token list (every genesis token listed): the truth states nominal as served under it. */
const LOCAL = localTokenList();
import { fetchBlocks } from '../fixtures/record-chain.js';

let node: AnvilNode;
let truth: GroundTruth;
let requests = 0;
let client: PublicClient;

beforeAll(async () => {
  node = await startAnvil();
  truth = await generateActivity(node.rpcUrl);
  client = createPublicClient({ chain: tempo, transport: http(node.rpcUrl, { onFetchRequest: () => void requests++ }) }) as PublicClient;
}, 60_000);
afterAll(async () => node?.stop());

describe('generateActivity + decode on a live node', () => {
  it('leaves the finalized head past the last generated transaction', async () => {
    const finalized = await client.getBlock({ blockTag: 'finalized' });
    expect(Number(finalized.number)).toBeGreaterThanOrEqual(truth.lastTxHeight);
    expect(truth.sponsoredAccepted).toBe(true);
  });

  it('decodes every generated transaction to its ground truth, with integrity score 2', async () => {
    const blocks = await fetchBlocks(client, node.rpcUrl, 1, truth.lastTxHeight);
    const registry = new TokenRegistry(client);
    const got = new Map<string, Observation>();
    for (const f of blocks) {
      const tokens = await registry.resolve(tokenAddressesOf(f));
      for (const o of decodeBlock(f, tokens, await evaluateBlockIntegrity(f)).observations) got.set(o.hash, o);
    }
    expect(got.size).toBe(truth.transactions.length);
    for (const t of truth.transactions) {
      const o = got.get(t.hash)!;
      const { label, fee_payer, fee_token, ...fields } = t;
      const served = { ...o, nominal: nominalOf(o.nominal_parts, LOCAL) };
      expect({ label, ...Object.fromEntries(Object.keys(fields).map((k) => [k, served[k as keyof typeof served]])) }).toEqual({
        label,
        ...fields,
      });
      expect([o.detail.receipt!.fee_payer, o.detail.receipt!.fee_token, o.integrity.score]).toEqual([fee_payer, fee_token, 2]);
    }
  });
});

describe('TokenRegistry', () => {
  it('reads symbol, currency and decimals from the chain, including the EUR token created by the factory', async () => {
    const tokens = await new TokenRegistry(client).resolve([
      truth.eurToken.address.toUpperCase().replace('0X', '0x'),
      '0x20c0000000000000000000000000000000000001',
    ]);
    expect(tokens.get(truth.eurToken.address)).toEqual({ address: truth.eurToken.address, symbol: 'PWEUR', currency: 'EUR', decimals: 6 });
    expect(tokens.get('0x20c0000000000000000000000000000000000001')).toMatchObject({ symbol: 'AlphaUSD', currency: 'USD', decimals: 6 });
  });

  it('gives null members for contracts that are not tokens and addresses with no code', async () => {
    const tokens = await new TokenRegistry(client).resolve([
      '0xdec0000000000000000000000000000000000000',
      '0x1234000000000000000000000000000000000000',
    ]);
    for (const t of tokens.values()) expect([t.symbol, t.currency, t.decimals]).toEqual([null, null, null]);
  });

  it('answers repeated addresses from its cache', async () => {
    const registry = new TokenRegistry(client);
    await registry.resolve(['0x20c0000000000000000000000000000000000002']);
    const before = requests;
    const again = await registry.resolve(['0x20C0000000000000000000000000000000000002']);
    expect(requests).toBe(before);
    expect(again.get('0x20c0000000000000000000000000000000000002')?.symbol).toBe('BetaUSD');
  });

  it('rejects when the node cannot be reached (not "unknown"), and asks again next time', async () => {
    const down = createPublicClient({ chain: tempo, transport: http('http://127.0.0.1:1', { retryCount: 0 }) }) as PublicClient;
    await expect(new TokenRegistry(down).resolve(['0x20c0000000000000000000000000000000000001'])).rejects.toThrow();
    // A node that is down for the first round only: the failure must not stay in the cache.
    let up = false;
    const flaky = createPublicClient({
      chain: tempo,
      transport: custom(
        {
          request: async (args) => {
            if (!up) throw new Error('connection refused');
            return client.request(args as never);
          },
        },
        { retryCount: 0 },
      ),
    }) as PublicClient;
    const registry = new TokenRegistry(flaky);
    await expect(registry.resolve(['0x20c0000000000000000000000000000000000001'])).rejects.toThrow();
    up = true;
    const tokens = await registry.resolve(['0x20c0000000000000000000000000000000000001']);
    expect(tokens.get('0x20c0000000000000000000000000000000000001')?.symbol).toBe('AlphaUSD');
  });
});

describe('generateLoad', () => {
  it('packs the requested transactions into full blocks of decodable transfers, then finalizes them', async () => {
    const start = Number(await client.getBlockNumber({ cacheTime: 0 }));
    const res = await generateLoad(node.rpcUrl, { transactions: 25, perBlock: 10 });
    expect(res).toEqual({ hashes: 25, blocks: 3 });
    const blocks = await fetchBlocks(client, node.rpcUrl, start + 1, start + 3);
    expect(blocks.map((f) => f.block.transactions.length)).toEqual([10, 10, 5]);
    const registry = new TokenRegistry(client);
    for (const f of blocks) {
      const obs = decodeBlock(f, await registry.resolve(tokenAddressesOf(f)), await evaluateBlockIntegrity(f)).observations;
      expect(f.block.transactions.every((t) => t.type === '0x76')).toBe(true);
      expect(
        obs.every((o) => o.execution === 'success' && o.category === 'transfer' && o.amount === '0.000001' && o.integrity.score === 2),
      ).toBe(true);
    }
    const finalized = await client.getBlock({ blockTag: 'finalized' });
    expect(Number(finalized.number)).toBeGreaterThanOrEqual(start + 3);
  });
});
