/**
 * Network and asset normalisation for parsed offers.
 *
 * Networks become CAIP-2 ids (https://chainagnostic.org/CAIPs/caip-2). A value that already looks like CAIP-2
 * (`namespace:reference`) is kept as is. x402 v1 names are mapped with the x402 library's own table
 * (`EVM_NETWORK_CHAIN_ID_MAP` of `@x402/evm/v1`: "base-sepolia" → "eip155:84532", "base" → "eip155:8453"…),
 * completed by the names below that table lacks (Tempo, Solana). A bare EVM chain id number is read as
 * eip155. Anything else maps to null (unknown), never guessed.
 *
 * Decimals are known only for TIP-20 tokens on Tempo (always 6: every TIP-20 has decimals() == 6) and for the
 * default assets `@x402/evm` ships (USDC on Base, Ethereum, Polygon…); elsewhere they are null.
 */
import { EVM_NETWORK_CHAIN_ID_MAP } from '@x402/evm/v1';
import { findDefaultAsset } from '@x402/evm';
import { isTip20Address, TEMPO_MAINNET, TEMPO_NETWORKS, TEMPO_TESTNET } from '../../domain/tempo.js';

/** Names not in the x402 library's table. Sources: viem `viem/chains` (tempo 4217, tempoModerato 42431); x402 v1 Solana names. */
export const EXTRA_NETWORK_NAMES: Readonly<Record<string, string>> = {
  tempo: TEMPO_MAINNET,
  'tempo-mainnet': TEMPO_MAINNET,
  'tempo-moderato': TEMPO_TESTNET,
  'tempo-testnet': TEMPO_TESTNET,
  solana: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  'solana-devnet': 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
};

const CAIP2 = /^([-a-zA-Z0-9]{3,8}):([-_a-zA-Z0-9]{1,32})$/;

/**
 * Normalises a network name or id to CAIP-2.
 * @param network as advertised ("base-sepolia", "eip155:84532", "4217", 4217…)
 * @returns the CAIP-2 id, or null when absent or not mappable
 */
export function toCaip2(network: unknown): string | null {
  if (typeof network === 'number' && Number.isSafeInteger(network) && network > 0) return `eip155:${network}`;
  if (typeof network !== 'string') return null;
  const n = network.trim();
  if (/^\d+$/.test(n)) return `eip155:${BigInt(n).toString()}`;
  const caip = CAIP2.exec(n);
  // The namespace is lower-case by CAIP-2; the reference keeps its case (Solana genesis hashes are base58).
  if (caip) return `${caip[1].toLowerCase()}:${caip[2]}`;
  const key = n.toLowerCase();
  if (key in EXTRA_NETWORK_NAMES) return EXTRA_NETWORK_NAMES[key];
  const chainId = (EVM_NETWORK_CHAIN_ID_MAP as Record<string, number>)[key];
  return chainId ? `eip155:${chainId}` : null;
}

/**
 * The decimals of an asset on a network when they are known (see the module comment), else null.
 * @param network CAIP-2 id or null
 * @param asset token address (any case) or currency code, or null
 */
export function knownDecimals(network: string | null, asset: string | null): number | null {
  if (!network || !asset) return null;
  const a = asset.toLowerCase();
  // Every TIP-20 has 6 decimals.
  if (TEMPO_NETWORKS.has(network) && isTip20Address(a)) return 6;
  if (!network.startsWith('eip155:')) return null;
  return findDefaultAsset(a, network as `${string}:${string}`)?.decimals ?? null;
}

/** Lower-cases a 0x-hex address; other strings (currency codes, Solana keys) are returned unchanged. */
export function normaliseAddress(v: unknown): string | null {
  if (typeof v !== 'string' || v.trim() === '') return null;
  const s = v.trim();
  return /^0x[0-9a-fA-F]+$/.test(s) ? s.toLowerCase() : s;
}
