/**
 * Pays an MPP charge with the real mppx client (tempo method, charge intent) on a local chain: the demo pays its
 * own MPP service this way, and the tests pay theirs. The client signs a transferWithMemo carrying mppx's
 * attribution memo (serverId = the challenge's realm, clientId) and broadcasts it itself; the server verifies it
 * on the node and answers 200 with a Payment-Receipt naming the transaction.
 */
import { Mppx, tempo } from 'mppx/client';
import { createPublicClient, http, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { tempo as tempoChain } from 'viem/chains';
import { DemoError } from './errors.js';

/**
 * Fetches `url` (an mppx-served paid route), pays its 402 challenge and returns the settlement.
 * @param opts rpcUrl: the node the client reads and broadcasts through; payerKey: the paying account's key (a
 *   local test key); clientId: mppx's client id written into the memo (undefined: anonymous, ten zero bytes)
 * @returns the transaction hash (the receipt's `reference`) and the challenge id (the memo's nonce is
 *   keccak256(challengeId)[0..6])
 * @throws DemoError when the server does not answer 200 after payment
 */
export async function payMppCharge(
  url: string,
  opts: { rpcUrl: string; payerKey: `0x${string}`; clientId: string | undefined },
): Promise<{ hash: Hash; challengeId: string }> {
  const getClient = () => createPublicClient({ chain: tempoChain, transport: http(opts.rpcUrl) });
  const client = Mppx.create({
    // push: the client broadcasts; anvil's eth_call simulation of a 0x76 transaction with validAfter (mppx's pull check) fails.
    methods: [tempo.charge({ account: privateKeyToAccount(opts.payerKey), clientId: opts.clientId, getClient, mode: 'push' })],
    polyfill: false,
  });
  let challengeId: string | undefined;
  client.onCredentialCreated(({ challenge }) => {
    challengeId = challenge.id;
  });
  const paid = await client.fetch(url);
  if (paid.status !== 200) throw new DemoError(`the mppx server answered ${paid.status}: ${(await paid.text()).slice(0, 300)}`);
  const receipt = JSON.parse(Buffer.from(paid.headers.get('payment-receipt') ?? '', 'base64url').toString('utf8')) as { reference?: Hash };
  if (!receipt.reference || !challengeId) throw new DemoError('the mppx server answered 200 without a payment receipt');
  return { hash: receipt.reference, challengeId };
}
