/**
 * Real payments on a real anvil node in Tempo mode, made with the real protocol libraries, for the decoding
 * tests: an MPP charge paid by an mppx client to an mppx server (the client writes mppx's attribution memo), and
 * an x402 `exact` payment paid with @x402/fetch to an @x402/hono resource server whose local facilitator
 * (src/demo/paid-services/facilitator.ts) settles it with EIP-3009. Then the transaction's block, decoded as the
 * collector decodes it (TokenRegistry + decodeBlock).
 */
import { Hono } from 'hono';
import { createClient, createPublicClient, http, publicActions, walletActions, type Hash, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { tempo as tempoChain } from 'viem/chains';
import { Mppx as MppxServer, tempo as tempoServer } from 'mppx/hono';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { ExactEvmScheme as ExactServer } from '@x402/evm/exact/server';
import { ExactEvmScheme as ExactClient } from '@x402/evm/exact/client';
import { paymentMiddleware, x402ResourceServer } from '@x402/hono';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { decodeBlock, tokenAddressesOf } from '../../src/chain/decode/index.js';
import { evaluateBlockIntegrity } from '../../src/chain/integrity/index.js';
import { TokenRegistry } from '../../src/chain/tokens.js';
import type { FetchedBlock } from '../../src/chain/types.js';
import { mountFacilitator } from '../../src/demo/paid-services/facilitator.js';
import { payMppCharge } from '../../src/demo/pay-mpp.js';
import { listen } from '../../src/demo/paid-services/listen.js';
import type { Observation } from '../../src/domain/observation.js';
import { fetchBlocks } from '../fixtures/record-chain.js';

export const PATH_USD = '0x20c0000000000000000000000000000000000000';
const ALPHA_USD = '0x20c0000000000000000000000000000000000001';

/** A viem client on the node that also signs for `key` (fee in AlphaUSD). */
export function walletOn(rpcUrl: string, key: `0x${string}`) {
  return createClient({
    account: privateKeyToAccount(key),
    chain: tempoChain.extend({ feeToken: ALPHA_USD }),
    transport: http(rpcUrl),
    pollingInterval: 20,
  })
    .extend(publicActions)
    .extend(walletActions);
}

/** Mines two empty blocks, so the finalized head (latest − 2 in anvil's Tempo mode) covers what came before. */
export async function finalize(rpcUrl: string): Promise<void> {
  const c = createPublicClient({ transport: http(rpcUrl) });
  for (let i = 0; i < 2; i++) await c.request({ method: 'evm_mine' as never, params: [] as never });
}

/**
 * Pays an MPP charge with the real mppx client: the server (mppx/hono, tempo method, charge intent, `realm`)
 * answers 402 with a challenge; the client (src/demo/pay-mpp.ts) signs a transferWithMemo carrying its attribution
 * memo (serverId = the challenge's realm, clientId), the server broadcasts and verifies it on the node.
 * @returns the transaction hash and the challenge id (the memo's nonce is keccak256(challengeId)[0..6])
 */
export async function payMpp(
  rpcUrl: string,
  opts: { realm: string; clientId: string | undefined; payerKey: `0x${string}`; recipient: string; amount: string },
): Promise<{ hash: Hash; challengeId: string }> {
  const getClient = () => createPublicClient({ chain: tempoChain, transport: http(rpcUrl) });
  const server = MppxServer.create({
    methods: [tempoServer.charge({ currency: PATH_USD, recipient: opts.recipient as `0x${string}`, getClient })],
    secretKey: 'paywatch-test-mpp-secret-0123456789abcdef',
    realm: opts.realm,
  });
  const app = new Hono();
  app.get('/paid', server.charge({ amount: opts.amount, description: 'a test charge' }), (c) => c.json({ ok: true }));
  const site = await listen(app);
  try {
    return await payMppCharge(`${site.origin}/paid`, { rpcUrl, payerKey: opts.payerKey, clientId: opts.clientId });
  } finally {
    await site.close();
  }
}

/** An x402 resource server listening on loopback: its paid URL (GET) and how to stop it and its facilitator. */
export interface X402Resource {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts an @x402/hono resource server (x402 v2, eip155:4217) asking `price` atomic units of an EIP-3009 token
 * (src/demo/payment-token.ts) paid to `payTo`, whose local facilitator, signing with `facilitatorKey`, settles.
 */
export async function startX402Resource(
  rpcUrl: string,
  opts: { token: string; tokenName: string; payTo: string; price: string; facilitatorKey: `0x${string}` },
): Promise<X402Resource> {
  const facilitatorApp = new Hono();
  mountFacilitator(facilitatorApp, { rpcUrl, privateKey: opts.facilitatorKey });
  const facilitator = await listen(facilitatorApp);
  const resource = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitator.origin })).register(
    'eip155:4217',
    new ExactServer(),
  );
  const app = new Hono();
  const accepts = [
    {
      scheme: 'exact',
      network: 'eip155:4217',
      payTo: opts.payTo,
      price: { amount: opts.price, asset: opts.token, extra: { name: opts.tokenName, version: '1' } },
    },
  ];
  app.use(paymentMiddleware({ 'GET /paid': { accepts, description: 'a test resource', mimeType: 'application/json' } } as never, resource));
  app.get('/paid', (c) => c.json({ ok: true }));
  const site = await listen(app);
  return {
    url: `${site.origin}/paid`,
    close: async () => {
      await site.close();
      await facilitator.close();
    },
  };
}

/**
 * Pays the x402 resource at `url` with @x402/fetch (exact EVM scheme on eip155:4217, at most `price` atomic units
 * of `token`).
 * @returns the settlement transaction hash (PAYMENT-RESPONSE `transaction`)
 */
export async function payX402At(url: string, opts: { token: string; price: string; payerKey: `0x${string}` }): Promise<Hash> {
  const client = x402Client.fromConfig({
    schemes: [{ network: 'eip155:4217', client: new ExactClient(privateKeyToAccount(opts.payerKey)) }],
    spendControls: { allowedAssets: [{ network: 'eip155:4217', asset: opts.token, maxAmountPerPayment: opts.price }] },
  });
  const res = await wrapFetchWithPayment(fetch, client)(url);
  if (res.status !== 200) throw new Error(`the x402 resource answered ${res.status}: ${await res.text()}`);
  const settled = decodePaymentResponseHeader(res.headers.get('payment-response')!);
  if (!settled.success) throw new Error(`settlement failed: ${JSON.stringify(settled)}`);
  return settled.transaction as Hash;
}

/**
 * Pays `price` atomic units of an EIP-3009 token (src/demo/payment-token.ts) with @x402/fetch to an @x402/hono
 * resource server (x402 v2, eip155:4217) whose local facilitator, signing with `facilitatorKey`, settles it.
 * @returns the settlement transaction hash (PAYMENT-RESPONSE `transaction`)
 */
export async function payX402(
  rpcUrl: string,
  opts: { token: string; tokenName: string; payTo: string; price: string; payerKey: `0x${string}`; facilitatorKey: `0x${string}` },
): Promise<Hash> {
  const site = await startX402Resource(rpcUrl, opts);
  try {
    return await payX402At(site.url, opts);
  } finally {
    await site.close();
  }
}

/** The block holding `hash`, fetched as the collector fetches it (the node must have finalized it). */
export async function blockOf(rpcUrl: string, hash: Hash): Promise<{ block: FetchedBlock; index: number }> {
  const client = createPublicClient({ chain: tempoChain, transport: http(rpcUrl) }) as PublicClient;
  const receipt = await client.getTransactionReceipt({ hash });
  const height = Number(receipt.blockNumber);
  const [block] = await fetchBlocks(client, rpcUrl, height, height);
  return { block, index: receipt.transactionIndex };
}

/** Decodes the transaction `hash` as the collector does: tokens read from the chain by TokenRegistry, integrity evaluated. */
export async function decodeLive(rpcUrl: string, hash: Hash): Promise<Observation> {
  const client = createPublicClient({ chain: tempoChain, transport: http(rpcUrl) }) as PublicClient;
  const { block, index } = await blockOf(rpcUrl, hash);
  const tokens = await new TokenRegistry(client).resolve(tokenAddressesOf(block));
  return decodeBlock(block, tokens, await evaluateBlockIntegrity(block)).observations[index];
}
