/**
 * Venue, protocol and category of a decoded transaction (docs/decoding.md).
 */
import type { Leg } from '../../domain/observation.js';
import type { DecodedCall } from './calls.js';
import { CHANNEL_RESERVE, FEE_MANAGER, STABLECOIN_DEX, VENUES, isMppMemo, type Category } from './constants.js';
import type { DecodedLog } from './logs.js';

const DEX_SWAPS = new Set(['swapExactAmountIn', 'swapExactAmountOut']);
const DEX_LIQUIDITY = new Set(['place', 'placeFlip', 'cancel', 'cancelStaleOrder', 'withdraw']);
const AMM_LIQUIDITY = new Set(['mint', 'burn']);

/**
 * The trading venue, or null. Stablecoin DEX: a call to 0xdec0… with swapExactAmountIn/Out AND at least one
 * OrderFilled log from it (the DEX has no Swap event). Other venues by their swap events: Uniswap v2/v3/v4
 * `Swap`, propAMM `TradeExecuted`. When several venues appear, the first in log order is named.
 */
export function exchangeOf(calls: DecodedCall[], logs: DecodedLog[]): string | null {
  const dexSwapCall = calls.some((c) => c.target === STABLECOIN_DEX && c.function !== null && DEX_SWAPS.has(c.function));
  for (const l of logs) {
    if (dexSwapCall && l.address === STABLECOIN_DEX && l.abi === 'stablecoinDex' && l.event === 'OrderFilled') return VENUES.stablecoinDex;
    if (l.event === 'Swap' && (l.abi === 'uniswapV2' || l.abi === 'uniswapV3' || l.abi === 'uniswapV4')) return VENUES[l.abi];
    if (l.abi === 'propAmm' && l.event === 'TradeExecuted') return VENUES.propAmm;
  }
  return null;
}

/**
 * "mpp" when a leg's memo carries the MPP tag and version (0xef1ed712 01…), when a log comes from the TIP-20
 * channel reserve (MPP sessions), or — for a transaction without legs (e.g. reverted) — when a call's `memo`
 * argument carries the tag. Else "x402" when a leg was settled through one of x402's own Permit2 proxies
 * (./settlement.ts); an EIP-3009 settlement alone is not x402 (x402ProtocolOf applies the pay_to rule when
 * offers are known). Else null: chain activity alone does not establish a protocol.
 */
export function protocolOf(legs: Leg[], calls: DecodedCall[], logs: DecodedLog[]): string | null {
  if (legs.some((g) => isMppMemo(g.memo))) return 'mpp';
  if (logs.some((l) => l.address === CHANNEL_RESERVE)) return 'mpp';
  if (legs.length === 0 && calls.some((c) => isMppMemo(c.args?.memo as string | undefined))) return 'mpp';
  if (legs.some((g) => g.x402_proxy)) return 'x402';
  return null;
}

/**
 * The category, first rule that applies:
 * system → swap (a venue was identified) → liquidity (DEX order place/cancel/withdraw or Fee AMM mint/burn call)
 * → by the primary leg: mint / burn / payment (some leg has a memo) / transfer → when there is no leg (reverted
 * or value-free), by the calls: any DEX swap call → swap, else the first TIP-20 value call (mint*, burn*,
 * transfer(From)WithMemo → payment, transfer(From)) → contract_call.
 */
export function categoryOf(p: {
  system: boolean;
  exchange: string | null;
  calls: DecodedCall[];
  legs: Leg[];
  primary: Leg | null;
}): Category {
  if (p.system) return 'system';
  if (p.exchange) return 'swap';
  if (p.calls.some(isLiquidityCall)) return 'liquidity';
  if (p.primary) {
    if (p.primary.kind === 'mint') return 'mint';
    if (p.primary.kind === 'burn') return 'burn';
    return p.legs.some((g) => g.memo) ? 'payment' : 'transfer';
  }
  // No leg (reverted, or nothing moved): what the calls meant to do.
  if (p.calls.some((c) => c.target === STABLECOIN_DEX && c.function !== null && DEX_SWAPS.has(c.function))) return 'swap';
  for (const c of p.calls) {
    const intent = c.target === FEE_MANAGER || !c.function ? null : valueCallCategory(c.function);
    if (intent) return intent;
  }
  return 'contract_call';
}

/** Category of a TIP-20 value-moving function name (mint*, burn*, transfer*), else null (approve, roles…). */
function valueCallCategory(fn: string): Category | null {
  if (/^mint/.test(fn)) return 'mint';
  if (/^burn/.test(fn)) return 'burn';
  if (/^transfer(From)?WithMemo$/.test(fn)) return 'payment';
  if (/^transfer(From)?$/.test(fn)) return 'transfer';
  return null;
}

function isLiquidityCall(c: DecodedCall): boolean {
  if (!c.function) return false;
  if (c.target === STABLECOIN_DEX) return DEX_LIQUIDITY.has(c.function);
  if (c.target === FEE_MANAGER) return AMM_LIQUIDITY.has(c.function);
  return false;
}
