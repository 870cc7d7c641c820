/**
 * Tempo's payment networks and TIP-20 addresses, declared once for the decoder, the challenge parsers and the trust
 * check. Sources: viem `viem/chains` (tempo 4217, tempoModerato 42431); domain notes, "TIP-20 tokens".
 */
import { CHAIN_ID } from './observation.js';

/** Tempo mainnet as a CAIP-2 id: `eip155:4217`, the chain this service observes. */
export const TEMPO_MAINNET = `eip155:${CHAIN_ID}` as const;

/**
 * Tempo mainnet's public JSON-RPC endpoint (viem `viem/chains`, `tempo.rpcUrls`), the default `--rpc`. Its batch and
 * rate limits are not published (docs/collector.md, "Public Tempo endpoints"); the RPC client finds them as it goes.
 */
export const TEMPO_PUBLIC_RPC = 'https://rpc.tempo.xyz';

/**
 * What is known of TEMPO_PUBLIC_RPC's limits and what the collector does about them, one line for people (the demo
 * prints it; docs/collector.md says the same at length).
 */
export const TEMPO_PUBLIC_RPC_LIMITS =
  'its batch and rate limits are not published: the collector halves its batches when the node refuses them, probes back up to its cap, and paces itself to 429 answers (docs/collector.md#rpc-limits); --rpc-rate N holds a known quota';

/** Tempo's test network Moderato as a CAIP-2 id. */
export const TEMPO_TESTNET = 'eip155:42431';

/** Tempo networks, where tokens are TIP-20 precompiles. CAIP-2. */
export const TEMPO_NETWORKS: ReadonlySet<string> = new Set([TEMPO_MAINNET, TEMPO_TESTNET]);

/** Every TIP-20 contract address starts with this 12-byte prefix (lower-case 0x hex). */
export const TIP20_PREFIX = '0x20c0000000000000000000';

/**
 * True when `address` (lower-case 0x hex) is a whole address in the TIP-20 range.
 * @example isTip20Address('0x20c0000000000000000000000000000000000001') // true
 */
export function isTip20Address(address: string): boolean {
  return address.length === 42 && address.startsWith(TIP20_PREFIX) && /^0x[0-9a-f]{40}$/.test(address);
}
