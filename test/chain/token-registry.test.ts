/**
 * TokenRegistry against hostile token contracts on a real anvil node in Tempo mode (test/fixtures/hostile):
 * each metadata call is one raw eth_call with the gas cap, its answer decoded with the byte cap; an EVM failure is
 * an unknown value with its issue, a node that does not answer (silent, or answering another JSON-RPC error) is
 * a rejection, never an unknown token.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  concat,
  createPublicClient,
  encodeAbiParameters,
  getContractAddress,
  http,
  parseAbi,
  parseAbiParameters,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { tempo } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS, startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { TokenMetadataTimeoutError, TokenRegistry } from '../../src/chain/tokens.js';
import { deployHostileToken, type HostileSymbol } from '../fixtures/hostile/hostile-token.js';

let node: AnvilNode;
let requests = 0;
let client: PublicClient;
const tokens = new Map<string, string>();

const SYMBOLS: Record<string, HostileSymbol> = {
  plain: { bytes: 'HOSTILE' },
  mib: { repeat: 'A', length: 1 << 20 },
  oversized: { repeat: 'B', length: 100_000 },
  bidi: { bytes: '\u202eDSUahplA' },
  binary: { bytes: new Uint8Array([0x41, 0xff, 0xfe, 0x42]) },
  revert: { revert: true },
  burnGas: { burnGas: true },
};

beforeAll(async () => {
  node = await startAnvil();
  client = createPublicClient({ chain: tempo, transport: http(node.rpcUrl, { onFetchRequest: () => void requests++ }) }) as PublicClient;
  for (const [name, symbol] of Object.entries(SYMBOLS)) tokens.set(name, await deployHostileToken(node.rpcUrl, ANVIL_KEYS[3], symbol));
}, 120_000);
afterAll(async () => node?.stop());

describe('TokenRegistry on hostile metadata', () => {
  it('reads a plain token whole: symbol, currency, decimals, no issues', async () => {
    const t = (await new TokenRegistry(client).resolve([tokens.get('plain')!])).get(tokens.get('plain')!)!;
    expect(t).toEqual({ address: tokens.get('plain'), symbol: 'HOSTILE', currency: 'USD', decimals: 6 });
  });

  it.each([
    ['mib', { kind: 'metadata_call_failed', reason: expect.stringMatching(/OutOfGas/) }],
    ['oversized', { kind: 'oversized_metadata', bytes: 100_000, prefix: 'B'.repeat(32) }],
    ['bidi', { kind: 'bidi_override', prefix: '\\u202eDSUahplA' }],
    ['binary', { kind: 'invalid_metadata', prefix: 'A\\xff\\xfeB' }],
    ['revert', { kind: 'metadata_call_failed', reason: expect.stringMatching(/reverted: no symbol/) }],
    ['burnGas', { kind: 'metadata_call_failed', reason: expect.stringMatching(/OutOfGas/) }],
  ] as const)('%s: symbol null with its issue; currency and decimals still read', async (name, issue) => {
    const address = tokens.get(name)!;
    const t = (await new TokenRegistry(client).resolve([address])).get(address)!;
    expect(t).toMatchObject({ symbol: null, currency: 'USD', decimals: 6 });
    expect(t.issues).toEqual([expect.objectContaining({ member: 'symbol', ...issue })]);
  });

  it('asks each member once, with no retries, even when the call fails in the EVM', async () => {
    const before = requests;
    await new TokenRegistry(client).resolve([tokens.get('burnGas')!]);
    expect(requests - before).toBe(3);
  });
});

describe('TokenRegistry and EIP-3668 (CCIP-Read)', () => {
  it('never follows an OffchainLookup revert to the URL a token names (a viem readContract, as used before, does)', async () => {
    let hits = 0;
    const server = createServer((_, res) => {
      hits++;
      res.end('{"data":"0x"}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/{sender}/{data}`;
      const from = privateKeyToAccount(ANVIL_KEYS[3]).address;
      const predicted = getContractAddress({ from, nonce: BigInt(await client.getTransactionCount({ address: from })) });
      // OffchainLookup(address sender, string[] urls, bytes callData, bytes4 callbackFunction, bytes extraData), EIP-3668.
      const lookup = concat([
        '0x556f1830',
        encodeAbiParameters(parseAbiParameters('address, string[], bytes, bytes4, bytes'), [
          predicted,
          [url],
          '0x95d89b41',
          '0x95d89b41',
          '0x',
        ]),
      ]);
      const token = await deployHostileToken(node.rpcUrl, ANVIL_KEYS[3], { revertWith: lookup });
      expect(token).toBe(predicted.toLowerCase());
      const t = (await new TokenRegistry(client).resolve([token])).get(token)!;
      expect(t).toMatchObject({ symbol: null, currency: 'USD', decimals: 6 });
      expect(t.issues).toEqual([expect.objectContaining({ kind: 'metadata_call_failed', member: 'symbol' })]);
      expect(hits).toBe(0);
      await client
        .readContract({
          address: token as `0x${string}`,
          abi: parseAbi(['function symbol() view returns (string)']),
          functionName: 'symbol',
        })
        .catch(() => null);
      expect(hits).toBeGreaterThan(0);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('TokenRegistry when the node does not answer', () => {
  let server: Server;
  let url: string;
  let mode: 'silent' | 'limited' = 'silent';

  beforeAll(async () => {
    // A real HTTP server playing a node that stalls, or one that refuses with a rate-limit error: anvil cannot be made to do either.
    server = createServer((req, res) => {
      if (mode === 'silent') return;
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const { id } = JSON.parse(body) as { id: number };
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32005, message: 'request rate exceeded' } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('rejects with TokenMetadataTimeoutError when the node stays silent past the time budget', async () => {
    mode = 'silent';
    const silent = createPublicClient({ transport: http(url, { timeout: 60_000, retryCount: 0 }) }) as PublicClient;
    const started = Date.now();
    await expect(new TokenRegistry(silent).resolve([tokens.get('plain')!])).rejects.toBeInstanceOf(TokenMetadataTimeoutError);
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 30_000);

  it('rejects when the node answers a JSON-RPC error that is not an EVM failure (not an unknown token)', async () => {
    mode = 'limited';
    const limited = createPublicClient({ transport: http(url, { retryCount: 0 }) }) as PublicClient;
    await expect(new TokenRegistry(limited).resolve([tokens.get('plain')!])).rejects.toThrow(/rate exceeded/);
  });
});
