/**
 * The seams between the chain parts. The collector (src/chain/collector) fetches a FetchedBlock, resolves its
 * tokens with a TokenRegistry, evaluates integrity (src/chain/integrity) and decodes (src/chain/decode) into
 * BlockObservations, which the store (src/store/chain) writes atomically with coverage and checkpoint.
 */
import type { Integrity } from '../domain/observation.js';
import type { MetadataIssue } from './decode/metadata.js';

/** A JSON-RPC block as the node returns it for eth_getBlockByNumber(h, true): quantities are 0x hex strings. */
export type RpcBlock = Record<string, unknown> & {
  number: string;
  hash: `0x${string}`;
  parentHash: `0x${string}`;
  timestamp: string;
  transactionsRoot: `0x${string}`;
  receiptsRoot: `0x${string}`;
  transactions: RpcTransaction[];
};

/** A JSON-RPC transaction (full object) as the node returns it; a Tempo 0x76 transaction has `calls`, `nonceKey`… */
export type RpcTransaction = Record<string, unknown> & {
  hash: `0x${string}`;
  type: string;
  from: `0x${string}`;
  to?: `0x${string}` | null;
  blockHash: `0x${string}`;
  blockNumber: string;
  transactionIndex: string;
};

/** A JSON-RPC log. */
export type RpcLog = Record<string, unknown> & {
  address: `0x${string}`;
  topics: `0x${string}`[];
  data: `0x${string}`;
  logIndex: string;
};

/** A JSON-RPC receipt as the node returns it (eth_getBlockReceipts / eth_getTransactionReceipt). */
export type RpcReceipt = Record<string, unknown> & {
  transactionHash: `0x${string}`;
  transactionIndex: string;
  blockHash: `0x${string}`;
  blockNumber: string;
  status: string;
  gasUsed: string;
  effectiveGasPrice: string;
  cumulativeGasUsed: string;
  logs: RpcLog[];
  logsBloom: `0x${string}`;
  type: string;
};

/**
 * One block as read from the source, with everything needed to decode and evaluate it without more I/O.
 * `receipts[i]` belongs to `block.transactions[i]`, or is null when the node gave no receipt for it.
 */
export interface FetchedBlock {
  block: RpcBlock;
  receipts: (RpcReceipt | null)[];
  /** Height of the source's finalized head when this block was read. */
  finalizedHeight: number;
  /** The RPC URL it came from, with any credentials removed. */
  source: string;
  /** When it was fetched, ISO 8601. */
  fetchedAt: string;
}

/**
 * What the chain says about a token contract (TIP-20 `symbol()`, `currency()`, `decimals()`); null = unknown.
 * Values are already bounded and checked (src/chain/decode/metadata.ts): a refused one is null, with its issue.
 */
export interface TokenInfo {
  /** Lower-case address. */
  address: string;
  symbol: string | null;
  currency: string | null;
  decimals: number | null;
  /** Why a member is null although the contract answered (oversized, not UTF-8, bidi override, call failed); absent when none. */
  issues?: MetadataIssue[];
}

/** Token metadata by lower-case address. */
export type TokenMap = ReadonlyMap<string, TokenInfo>;

/** Integrity of each transaction of a block, by transaction index. */
export type BlockIntegrity = Integrity[];
