/**
 * Bulk load for the ingest benchmark: many small TIP-20 transfers packed into many blocks, fast. Automine is
 * switched off; each round signs `perBlock` Tempo (0x76) transfers locally (explicit nonce, gas and fees, so no
 * per-transaction RPC), submits them in one JSON-RPC batch, and mines one block with `evm_mine`.
 */
import { createClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { tempo } from 'viem/chains';
import { Actions } from 'viem/tempo';
import { ANVIL_KEYS } from '../../chain/anvil.js';

export interface LoadOptions {
  /** Total transactions to send (≥ 1). */
  transactions: number;
  /** Transactions per mined block (≥ 1). */
  perBlock: number;
}

/** Fee token of the load (AlphaUSD, pre-deployed and funded by anvil's genesis). */
const FEE_TOKEN = '0x20c0000000000000000000000000000000000001';
/** A single-call TIP-20 transfer uses about 35,000 gas on anvil; this leaves room. */
const GAS = 100_000n;

/**
 * Fills blocks with signed TIP-20 transfers between anvil's dev accounts (ANVIL_KEYS), round-robin senders.
 * Leaves automine on again and mines two empty blocks at the end so the finalized head (latest − 2) covers all.
 * @param rpcUrl an anvil node in Tempo mode
 * @returns how many transactions were sent and how many blocks they fill (ceil(transactions / perBlock))
 * @throws Error when the node rejects a transaction or a mined block holds fewer transactions than sent
 */
export async function generateLoad(rpcUrl: string, opts: LoadOptions): Promise<{ hashes: number; blocks: number }> {
  if (!(opts.transactions >= 1 && opts.perBlock >= 1)) throw new Error('generateLoad: transactions and perBlock must be ≥ 1');
  const accounts = ANVIL_KEYS.map((k) => privateKeyToAccount(k));
  const client = createClient({ chain: tempo, transport: http(rpcUrl, { batch: { batchSize: 1000 }, timeout: 60_000 }) });
  const rpc = <T>(method: string, params: unknown[] = []) => client.request({ method: method as never, params: params as never }) as Promise<T>;
  const gasPrice = BigInt(await rpc<Hex>('eth_gasPrice'));
  const nonces = await Promise.all(accounts.map(async (a) => Number(BigInt(await rpc<Hex>('eth_getTransactionCount', [a.address, 'latest'])))));
  const serializer = tempo.serializers!.transaction!;
  const sign = (first: number, n: number) =>
    Promise.all(
      Array.from({ length: n }, (_, k) => {
        const i = first + k;
        const s = i % accounts.length;
        const to = accounts[(s + 1 + (i % (accounts.length - 1))) % accounts.length].address;
        return accounts[s].signTransaction(
          {
            chainId: tempo.id,
            calls: [Actions.token.transfer.call({ token: FEE_TOKEN, to, amount: 1n })],
            feeToken: FEE_TOKEN,
            nonce: nonces[s]++,
            gas: GAS,
            maxFeePerGas: gasPrice * 3n,
            maxPriorityFeePerGas: 0n,
          } as never,
          { serializer: serializer as never },
        );
      }),
    );
  const submitAndMine = async (raws: Hex[]) => {
    await Promise.all(raws.map((raw) => rpc('eth_sendRawTransaction', [raw])));
    await rpc('evm_mine');
    const block = await rpc<{ transactions: unknown[] }>('eth_getBlockByNumber', ['latest', false]);
    if (block.transactions.length !== raws.length) throw new Error(`generateLoad: mined block holds ${block.transactions.length} transactions, ${raws.length} were sent`);
  };
  let sent = 0;
  let blocks = 0;
  await rpc('evm_setAutomine', [false]);
  try {
    let raws = await sign(0, Math.min(opts.perBlock, opts.transactions));
    while (raws.length) {
      // The node mines this block while the next one is signed here.
      const mined = submitAndMine(raws);
      sent += raws.length;
      blocks++;
      const next = sign(sent, Math.min(opts.perBlock, opts.transactions - sent));
      await mined;
      raws = await next;
    }
  } finally {
    await rpc('evm_setAutomine', [true]);
  }
  await rpc('evm_mine');
  await rpc('evm_mine');
  return { hashes: sent, blocks };
}
