/**
 * The demo's x402 payment token on a local chain: a minimal ERC-20 with EIP-3009 transferWithAuthorization
 * (./contracts/Eip3009Token.sol; the x402 `exact` scheme settles with it), deployed and minted to the accounts
 * that will pay. Local chains only: anyone could mint it.
 */
import { DemoError } from './errors.js';
import { createPublicClient, createWalletClient, defineChain, http, type Abi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import artifact from './contracts/Eip3009Token.json' with { type: 'json' };

/** The local chain as viem needs it to sign and send (Tempo's chain id, anvil's URL). */
export function localChain(rpcUrl: string) {
  return defineChain({
    id: 4217,
    name: 'anvil-tempo',
    nativeCurrency: { name: 'USD', symbol: 'USD', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

/** A deployed payment token. Amounts are atomic units (6 decimals). */
export interface PaymentToken {
  address: `0x${string}`;
  /** EIP-712 domain name and version (the exact scheme signs against them), and decimals. */
  name: string;
  version: '1';
  decimals: 6;
  balanceOf(account: string): Promise<bigint>;
}

/**
 * Deploys the token named `name` (symbol `symbol`) from `deployerKey` and mints `amount` atomic units to each of
 * `holders`, waiting for every receipt.
 * @throws Error when a transaction reverts or the node refuses it
 */
export async function deployPaymentToken(
  rpcUrl: string,
  deployerKey: `0x${string}`,
  opts: { name: string; symbol: string; holders: string[]; amount: bigint },
): Promise<PaymentToken> {
  const chain = localChain(rpcUrl);
  const transport = http(rpcUrl);
  const pub = createPublicClient({ chain, transport });
  const wallet = createWalletClient({ account: privateKeyToAccount(deployerKey), chain, transport });
  const abi = artifact.abi as Abi;
  const hash = await wallet.deployContract({
    abi,
    bytecode: artifact.bytecode as `0x${string}`,
    args: [opts.name, opts.symbol],
    gas: 3_000_000n,
  });
  const address = (await pub.waitForTransactionReceipt({ hash })).contractAddress!;
  for (const to of opts.holders) {
    const mint = await wallet.writeContract({ address, abi, functionName: 'mint', args: [to, opts.amount], gas: 200_000n });
    const r = await pub.waitForTransactionReceipt({ hash: mint });
    if (r.status !== 'success') throw new DemoError(`minting the payment token to ${to} reverted`);
  }
  return {
    address,
    name: opts.name,
    version: '1',
    decimals: 6,
    balanceOf: async (a) => (await pub.readContract({ address, abi, functionName: 'balanceOf', args: [a as `0x${string}`] })) as bigint,
  };
}
