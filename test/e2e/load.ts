/**
 * Test load for the crash and fault tests: real TIP-20 transfers (each mined in its own block by anvil's
 * automine) interleaved with runs of empty blocks, so a backfill spans a few hundred blocks quickly.
 */
import { createClient, http, publicActions, walletActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { tempo } from 'viem/chains';
import { Actions } from 'viem/tempo';
import { ANVIL_KEYS } from '../../src/chain/anvil.js';

const ALPHA_USD = '0x20c0000000000000000000000000000000000001';

/** Sends one JSON-RPC call to the node. */
export async function rpcCall<T = unknown>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const r = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const j = (await r.json()) as { result?: T; error?: { message: string } };
  if (j.error) throw new Error(`${method}: ${j.error.message}`);
  return j.result as T;
}

/**
 * Sends `transfers` AlphaUSD transfers from three dev accounts in parallel and mines `emptyBlocksBetween` empty
 * blocks after each round, then two more so the finalized head (latest − 2) covers the last transfer.
 * @returns the latest height when done
 */
export async function fillChain(rpcUrl: string, opts: { transfers: number; emptyBlocksBetween: number }): Promise<number> {
  const senders = ANVIL_KEYS.slice(0, 3).map((k) =>
    createClient({ account: privateKeyToAccount(k), chain: tempo.extend({ feeToken: ALPHA_USD }), transport: http(rpcUrl) })
      .extend(publicActions)
      .extend(walletActions),
  );
  const to = privateKeyToAccount(ANVIL_KEYS[4]).address;
  for (let sent = 0; sent < opts.transfers; ) {
    const round = senders.slice(0, Math.min(senders.length, opts.transfers - sent));
    await Promise.all(round.map((c, i) => Actions.token.transfer(c, { token: ALPHA_USD, to, amount: BigInt(1 + sent + i), gas: 200_000n })));
    sent += round.length;
    if (opts.emptyBlocksBetween > 0) await rpcCall(rpcUrl, 'anvil_mine', [`0x${opts.emptyBlocksBetween.toString(16)}`]);
  }
  await rpcCall(rpcUrl, 'anvil_mine', ['0x2']);
  return Number.parseInt(await rpcCall<string>(rpcUrl, 'eth_blockNumber'), 16);
}
