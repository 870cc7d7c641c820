/**
 * A real loopback JSON-RPC server (node:http on 127.0.0.1) that replays one block recorded from a real Tempo
 * node as if it were the node's finalized head: the only way to run the collector on real mainnet blocks
 * offline. It answers what the collector asks:
 * - `eth_chainId`: the chain id given;
 * - `eth_getBlockByNumber`: the block for its own number and for the `finalized`, `safe` and `latest` tags (with
 *   full transactions or only their hashes), null for any other height;
 * - `eth_getBlockReceipts` (by number, tag or hash) and `eth_getTransactionReceipt`: the recorded receipts;
 * - `eth_call` of TIP-20 `symbol()` and `decimals()` on the listed tokens, ABI-encoded with viem from the token
 *   list; every other call reverts (an unlisted address, and `currency()`, which the list does not record:
 *   unknown, never guessed);
 * - anything else: JSON-RPC error -32601.
 * Single calls and batches (JSON arrays) both work. It counts the calls by method and the eth_call targets.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeFunctionData, encodeFunctionResult, type Hex } from 'viem';
import { Abis } from 'viem/tempo';
import type { RpcBlock, RpcReceipt } from '../../src/chain/types.js';
import { readBody } from './rpc-proxy.js';

/** A token the replayed node knows: its TIP-20 symbol() and decimals() answers. */
export interface ReplayToken {
  address: string;
  symbol: string;
  decimals: number;
}

export interface ReplayRpcOptions {
  /** eth_chainId's answer, 0x hex. */
  chainId: string;
  block: RpcBlock;
  /** The block's receipts, in transaction order. */
  receipts: RpcReceipt[];
  tokens: ReplayToken[];
}

export interface ReplayRpc {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Calls answered so far, by method. */
  calls: Record<string, number>;
  /** Lower-case targets of every eth_call, in order. */
  callTargets: string[];
  close(): Promise<void>;
}

interface Request {
  id: unknown;
  method: string;
  params?: unknown[];
}

/** The JSON-RPC error a node gives for a call that reverts without data (viem reads code 3 as a revert). */
const REVERTED = { code: 3, message: 'execution reverted', data: '0x' };

/** Starts the replay node on a free loopback port. */
export async function startReplayRpc(opts: ReplayRpcOptions): Promise<ReplayRpc> {
  const { block, receipts } = opts;
  const number = BigInt(block.number);
  const tokens = new Map(opts.tokens.map((t) => [t.address.toLowerCase(), t]));
  const calls: Record<string, number> = {};
  const callTargets: string[] = [];

  /** True when a block parameter (tag, 0x height or block hash) names the replayed block. */
  const isOurs = (ref: unknown): boolean => {
    if (ref === 'finalized' || ref === 'safe' || ref === 'latest') return true;
    if (typeof ref !== 'string' || !/^0x[0-9a-fA-F]+$/.test(ref)) return false;
    return ref.length === 66 ? ref.toLowerCase() === block.hash.toLowerCase() : BigInt(ref) === number;
  };

  /** The answer to a TIP-20 read, or null to revert. */
  const ethCall = (tx: { to?: string; data?: Hex; input?: Hex }): Hex | null => {
    const to = String(tx.to ?? '').toLowerCase();
    callTargets.push(to);
    const token = tokens.get(to);
    if (!token) return null;
    try {
      const { functionName } = decodeFunctionData({ abi: Abis.tip20, data: (tx.data ?? tx.input ?? '0x') as Hex });
      if (functionName === 'symbol') return encodeFunctionResult({ abi: Abis.tip20, functionName, result: token.symbol });
      if (functionName === 'decimals') return encodeFunctionResult({ abi: Abis.tip20, functionName, result: token.decimals });
    } catch {
      /* not a TIP-20 function: reverts */
    }
    return null;
  };

  const answer = (r: Request): Record<string, unknown> => {
    const p = r.params ?? [];
    calls[r.method] = (calls[r.method] ?? 0) + 1;
    const ok = (result: unknown) => ({ jsonrpc: '2.0', id: r.id, result });
    switch (r.method) {
      case 'eth_chainId':
        return ok(opts.chainId);
      case 'eth_blockNumber':
        return ok(block.number);
      case 'eth_getBlockByNumber':
        if (!isOurs(p[0])) return ok(null);
        return ok(p[1] === true ? block : { ...block, transactions: block.transactions.map((t) => t.hash) });
      case 'eth_getBlockReceipts':
        return ok(isOurs(p[0]) ? receipts : null);
      case 'eth_getTransactionReceipt':
        return ok(receipts.find((x) => x.transactionHash.toLowerCase() === String(p[0]).toLowerCase()) ?? null);
      case 'eth_call': {
        const result = ethCall((p[0] ?? {}) as { to?: string; data?: Hex });
        return result === null ? { jsonrpc: '2.0', id: r.id, error: REVERTED } : ok(result);
      }
      default:
        return { jsonrpc: '2.0', id: r.id, error: { code: -32601, message: `the method ${r.method} does not exist/is not available` } };
    }
  };

  const server: Server = createServer((req, res) => {
    readBody(req)
      .then((body) => {
        const parsed = JSON.parse(body) as Request | Request[];
        const out = Array.isArray(parsed) ? parsed.map(answer) : answer(parsed);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
      })
      .catch((e: Error) => {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: e.message } }));
      });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    callTargets,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
