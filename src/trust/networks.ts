/**
 * Facts about payment networks and their well-known tokens, used by the trust check's "mainnet or testnet"
 * and "known asset" signals. Sources: viem/chains (chain ids), tempoxyz/tempo-apps tokenlist 4217 (Tempo
 * tokens), Circle's published USDC addresses (Base, Ethereum), x402 CAIP-2 network ids.
 */
import { TEMPO_MAINNET, TEMPO_TESTNET } from '../domain/tempo.js';

/** Networks whose tokens carry real value. CAIP-2. */
const MAINNETS = new Set([
  TEMPO_MAINNET,
  'eip155:1',
  'eip155:8453',
  'eip155:10',
  'eip155:137',
  'eip155:42161',
  'eip155:43114',
  'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
]);
/** Test networks (no real value) and local development chains. CAIP-2. */
const TESTNETS = new Set([
  TEMPO_TESTNET,
  'eip155:84532',
  'eip155:11155111',
  'eip155:80002',
  'eip155:11155420',
  'eip155:421614',
  'eip155:43113',
  'eip155:31337',
  'eip155:1337',
  'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
]);

/** mainnet, testnet or unknown for a CAIP-2 id (null → unknown). */
export function networkKind(network: string | null): 'mainnet' | 'testnet' | 'unknown' {
  if (!network) return 'unknown';
  if (MAINNETS.has(network)) return 'mainnet';
  if (TESTNETS.has(network)) return 'testnet';
  return 'unknown';
}

/** A token known without asking a chain. */
export interface StaticToken {
  symbol: string;
  currency: string;
  decimals: number;
}

/** Well-known tokens by `${network}|${lower-case address}`. */
export const STATIC_TOKENS: ReadonlyMap<string, StaticToken> = new Map([
  [`${TEMPO_MAINNET}|0x20c0000000000000000000000000000000000000`, { symbol: 'pathUSD', currency: 'USD', decimals: 6 }],
  [`${TEMPO_MAINNET}|0x20c000000000000000000000b9537d11c60e8b50`, { symbol: 'USDC.e', currency: 'USD', decimals: 6 }],
  [`${TEMPO_MAINNET}|0x20c00000000000000000000014f22ca97301eb73`, { symbol: 'USDT0', currency: 'USD', decimals: 6 }],
  [`${TEMPO_TESTNET}|0x20c0000000000000000000000000000000000000`, { symbol: 'pathUSD', currency: 'USD', decimals: 6 }],
  ['eip155:8453|0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', { symbol: 'USDC', currency: 'USD', decimals: 6 }],
  ['eip155:84532|0x036cbd53842c5426634e7929541ec2318f3dcf7e', { symbol: 'USDC', currency: 'USD', decimals: 6 }],
  ['eip155:1|0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', { symbol: 'USDC', currency: 'USD', decimals: 6 }],
  ['eip155:11155111|0x1c7d4b196cb0c7b01d743fbc6116a902379c7238', { symbol: 'USDC', currency: 'USD', decimals: 6 }],
]);

/** The key of STATIC_TOKENS for an offer's network and asset. */
export function tokenKey(network: string | null, asset: string | null): string {
  return `${network ?? ''}|${(asset ?? '').toLowerCase()}`;
}
