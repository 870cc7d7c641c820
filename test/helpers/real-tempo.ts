/**
 * Recorded answers of real Tempo nodes, read from `../shared/real-tempo` beside the repository (never copied
 * into it; see that folder's README.md for where each file comes from): blocks and receipts as FetchedBlocks,
 * and Tempo mainnet's public token list as a TokenMap.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { FetchedBlock, RpcBlock, RpcReceipt, TokenInfo, TokenMap } from '../../src/chain/types.js';

/** The folder of recordings: `../shared/real-tempo` from the repository root. */
export const REAL_TEMPO_DIR = new URL('../../../shared/real-tempo/', import.meta.url);

/** The recorded blocks: mainnet 4217 and Moderato testnet 42431. */
export const RECORDED_BLOCKS = ['mainnet-17708868', 'mainnet-20660166', 'mainnet-25403305', 'moderato-6000178', 'moderato-6541'] as const;
export type RecordedBlock = (typeof RECORDED_BLOCKS)[number];

/** Parses one file of the recordings. */
export function readRecorded<T = unknown>(file: string): T {
  return JSON.parse(readFileSync(new URL(file, REAL_TEMPO_DIR), 'utf8')) as T;
}

/**
 * A recorded block as the collector would have fetched it: the node's block with full transactions, its
 * receipts (`[]` for a recording without receipts, which only the empty block 25403305 is), and the block itself
 * as the finalized head when read.
 * @param name a RECORDED_BLOCKS member
 */
export function recordedBlock(name: RecordedBlock): FetchedBlock {
  const block = readRecorded<RpcBlock>(`${name}.block.json`);
  const receiptsFile = new URL(`${name}.receipts.json`, REAL_TEMPO_DIR);
  const receipts = existsSync(receiptsFile) ? (JSON.parse(readFileSync(receiptsFile, 'utf8')) as RpcReceipt[]) : [];
  return { block, receipts, finalizedHeight: Number(BigInt(block.number)), source: 'recorded', fetchedAt: '2026-01-01T00:00:00.000Z' };
}

/** One entry of a Uniswap-format token list, the members read here. */
interface ListedToken {
  address: string;
  symbol: string;
  decimals: number;
  chainId: number;
  extensions?: Record<string, unknown>;
}

/** Tempo mainnet's public token list (tempoxyz/tempo-apps `apps/tokenlist/data/4217/tokenlist.json`). */
export function mainnetTokenList(): ListedToken[] {
  return readRecorded<{ tokens: ListedToken[] }>('tokenlist-4217.json').tokens;
}

/**
 * The token list as the decoder's TokenMap: symbol and decimals as listed. `currency` is the list's
 * `extensions.currency` when it has one; the recorded list has none, so it is null (unknown), never guessed.
 */
export function mainnetTokens(): TokenMap {
  return new Map(
    mainnetTokenList().map((t): [string, TokenInfo] => {
      const currency = t.extensions?.currency;
      return [
        t.address.toLowerCase(),
        {
          address: t.address.toLowerCase(),
          symbol: t.symbol,
          currency: typeof currency === 'string' ? currency : null,
          decimals: t.decimals,
        },
      ];
    }),
  );
}
