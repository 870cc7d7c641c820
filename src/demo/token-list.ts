/**
 * The token list of the local chain: the TIP-20 tokens anvil's Tempo mode deploys at genesis, plus any the demo
 * creates, in the Uniswap token-list format that `--tokenlist` reads (src/domain/token-list.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHAIN_ID } from '../domain/observation.js';
import { TokenList } from '../domain/token-list.js';

/** One token to list: lower-case contract, symbol, name (TIP-20 decimals are always 6). */
export interface LocalToken {
  address: string;
  symbol: string;
  name: string;
}

/** The pre-deployed TIP-20 tokens of anvil's Tempo mode (domain notes, "A real local node for tests": pathUSD, AlphaUSD, BetaUSD, ThetaUSD). */
export const ANVIL_TOKENS: readonly LocalToken[] = [
  { address: '0x20c0000000000000000000000000000000000000', symbol: 'PathUSD', name: 'PathUSD' },
  { address: '0x20c0000000000000000000000000000000000001', symbol: 'AlphaUSD', name: 'AlphaUSD' },
  { address: '0x20c0000000000000000000000000000000000002', symbol: 'BetaUSD', name: 'BetaUSD' },
  { address: '0x20c0000000000000000000000000000000000003', symbol: 'ThetaUSD', name: 'ThetaUSD' },
];

/**
 * A token list (Uniswap format, as JSON-ready object) of `tokens` on chain 4217.
 * @example localTokenListJson(ANVIL_TOKENS).tokens.length // 4
 */
export function localTokenListJson(tokens: readonly LocalToken[]) {
  return {
    name: 'paywatch local chain',
    timestamp: new Date().toISOString(),
    version: { major: 1, minor: 0, patch: 0 },
    tokens: tokens.map((t) => ({ chainId: CHAIN_ID, address: t.address, symbol: t.symbol, name: t.name, decimals: 6 })),
  };
}

/** The local tokens as a TokenList (validated like a file would be). */
export function localTokenList(tokens: readonly LocalToken[] = ANVIL_TOKENS): TokenList {
  return TokenList.from(localTokenListJson(tokens), 'local token list');
}

/**
 * Writes the local token list into `dir` as `tokenlist.json`.
 * @returns the file's path, for `--tokenlist`
 */
export function writeLocalTokenList(dir: string, tokens: readonly LocalToken[] = ANVIL_TOKENS): string {
  const path = join(dir, 'tokenlist.json');
  writeFileSync(path, `${JSON.stringify(localTokenListJson(tokens), null, 2)}\n`);
  return path;
}
