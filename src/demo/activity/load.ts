/**
 * Bulk load for the ingest benchmark: many small TIP-20 transfers packed into many blocks, fast. Automine is
 * switched off; each round submits `perBlock` Tempo (0x76) transfers from anvil's unlocked dev accounts with
 * `eth_sendTransaction` in one JSON-RPC batch (anvil signs and assigns nonces, so the client does no per-
 * transaction signing or nonce bookkeeping), then mines one block with `evm_mine`.
 */
import { DemoError } from '../errors.js';
import { createClient, encodeFunctionData, http, numberToHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { tempo } from 'viem/chains';
import { Abis } from 'viem/tempo';
import { ANVIL_KEYS } from '../../chain/anvil.js';

export interface LoadOptions {
  /** Total transactions to send (≥ 1). */
  transactions: number;
  /** Transactions per mined block (≥ 1). */
  perBlock: number;
}

/** The transferred token and fee token (AlphaUSD, pre-deployed and funded by anvil's genesis). */
const TOKEN = '0x20c0000000000000000000000000000000000001';
/** A single-call TIP-20 transfer uses about 35,000 gas on anvil; this leaves room. */
const GAS = numberToHex(100_000);

/**
 * Fills blocks with single-call 0x76 TIP-20 transfers (1 atomic unit each) between anvil's dev accounts,
 * round-robin senders. Turns automine back on and mines two empty blocks at the end, so the finalized head
 * (latest − 2) covers every loaded block.
 * @param rpcUrl an anvil node in Tempo mode (its dev accounts must be unlocked, as they are by default)
 * @returns how many transactions were sent and how many blocks they fill (ceil(transactions / perBlock))
 * @throws Error when the node rejects a transaction or a mined block holds fewer transactions than sent
 */
export async function generateLoad(rpcUrl: string, opts: LoadOptions): Promise<{ hashes: number; blocks: number }> {
  if (!(opts.transactions >= 1 && opts.perBlock >= 1)) throw new DemoError('generateLoad: transactions and perBlock must be ≥ 1');
  const senders = ANVIL_KEYS.map((k) => privateKeyToAccount(k).address);
  const client = createClient({ chain: tempo, transport: http(rpcUrl, { batch: { batchSize: 1000 }, timeout: 60_000 }) });
  const rpc = <T>(method: string, params: unknown[] = []) =>
    client.request({ method: method as never, params: params as never }) as Promise<T>;
  const transfer = (i: number) => {
    const from = senders[i % senders.length];
    const to = senders[(i + 1 + (i % (senders.length - 1))) % senders.length];
    const data = encodeFunctionData({ abi: Abis.tip20, functionName: 'transfer', args: [to, 1n] });
    // Anvil turns a 0x76 request's to/data into its single call.
    return { from, type: '0x76', feeToken: TOKEN, to: TOKEN, data, gas: GAS };
  };
  let sent = 0;
  let blocks = 0;
  await rpc('evm_setAutomine', [false]);
  try {
    while (sent < opts.transactions) {
      const n = Math.min(opts.perBlock, opts.transactions - sent);
      await Promise.all(Array.from({ length: n }, (_, k) => rpc('eth_sendTransaction', [transfer(sent + k)])));
      await rpc('evm_mine');
      const count = Number(await rpc<string>('eth_getBlockTransactionCountByNumber', ['latest']));
      if (count !== n) throw new DemoError(`generateLoad: mined block holds ${count} transactions, ${n} were sent`);
      sent += n;
      blocks++;
    }
  } finally {
    await rpc('evm_setAutomine', [true]);
  }
  await rpc('evm_mine');
  await rpc('evm_mine');
  return { hashes: sent, blocks };
}
