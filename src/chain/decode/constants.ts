/**
 * Addresses, tags and names the decoder recognises. Addresses come from viem/tempo `Addresses` (lower-cased);
 * nothing about tokens (symbols, currencies) is hard-coded here: those come from the chain via TokenRegistry.
 */
import { keccak256, slice, toHex } from 'viem';
import { Addresses } from '../tempo-abis.js';

const lc = (a: string) => a.toLowerCase();

/** Fee manager precompile: the fee Transfer goes to it (domain notes, "Fees"); also the Fee AMM. */
export const FEE_MANAGER = lc(Addresses.feeManager);
/** The enshrined Stablecoin DEX precompile. */
export const STABLECOIN_DEX = lc(Addresses.stablecoinDex);
/** TIP-20 factory; emits TokenCreated. */
export const TIP20_FACTORY = lc(Addresses.tip20Factory);
/** TIP-20 channel reserve ("MPP" in ASCII): MPP session (payment channel) events come from it. */
export const CHANNEL_RESERVE = lc(Addresses.tip20ChannelReserve);
/** Receive-policy guard: a transfer blocked by policy is redirected here (domain notes, "TIP-20 tokens"). */
export const BLOCKED_SINK = lc(Addresses.receivePolicyGuard);
export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** TIP-20 contracts share this 12-byte prefix (domain notes, "TIP-20 tokens"). */
export { TIP20_PREFIX } from '../../domain/tempo.js';

/** Fee figures are in 6-decimal fee-token units: fee = ceil(gasUsed × effectiveGasPrice / 10^12) atomic units. */
export const FEE_DECIMALS = 6;
export const ATTO_PER_FEE_UNIT = 10n ** 12n;

/**
 * MPP attribution memo: bytes 0..3 = keccak256("mpp")[0..3], byte 4 = version 0x01
 * (source: mppx 0.11.0 `src/tempo/Attribution`, which is not exported, so the tag is derived the same way here).
 */
export const MPP_TAG = slice(keccak256(toHex('mpp')), 0, 4);
export const MPP_VERSION = '01';

/** Venue names served in `exchange` (docs/decoding.md, "exchange"). */
export const VENUES = {
  stablecoinDex: 'Tempo Stablecoin DEX',
  uniswapV2: 'Uniswap v2',
  uniswapV3: 'Uniswap v3',
  uniswapV4: 'Uniswap v4',
  propAmm: 'propAMM',
} as const;

/** The observation categories (docs/decoding.md, "category"). */
export const CATEGORIES = ['system', 'swap', 'liquidity', 'mint', 'burn', 'payment', 'transfer', 'contract_call'] as const;
export type Category = (typeof CATEGORIES)[number];

/**
 * True when a bytes32 memo carries the MPP tag and version 0x01.
 * @param memo 0x-prefixed hex, 32 bytes
 */
export function isMppMemo(memo: string | null | undefined): boolean {
  return typeof memo === 'string' && memo.toLowerCase().startsWith(MPP_TAG + MPP_VERSION);
}
