/**
 * The ABIs the decoder knows, all from viem/tempo `Abis` except the Uniswap swap events, which viem does not
 * ship: they are given as their canonical Solidity event signatures (parseAbi), the published interfaces of
 * Uniswap v2 (IUniswapV2Pair), v3 (IUniswapV3PoolEvents) and v4 (IPoolManager); and the settlement events of
 * EIP-3009 and of x402's Permit2 proxies (./x402.ts).
 */
import { parseAbi, type Abi, type AbiEvent, type AbiFunction, toEventSelector, toFunctionSelector } from 'viem';
import { Abis } from '../tempo-abis.js';
import { CHANNEL_RESERVE, FEE_MANAGER, STABLECOIN_DEX, TIP20_FACTORY } from './constants.js';
import { eip3009Events, x402ProxyEvents } from './x402.js';

export const uniswapV2 = parseAbi([
  'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
]);
export const uniswapV3 = parseAbi([
  'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
]);
export const uniswapV4 = parseAbi([
  'event Swap(bytes32 indexed id, address indexed sender, int128 amount0, int128 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint24 fee)',
]);

/** ABIs tried for logs, most specific first; the first that decodes a log strictly wins. */
const EVENT_ABIS: { source: string; abi: Abi }[] = [
  { source: 'tip20', abi: Abis.tip20 },
  { source: 'stablecoinDex', abi: Abis.stablecoinDex },
  { source: 'tip20Factory', abi: Abis.tip20Factory },
  { source: 'feeManager', abi: Abis.feeManager },
  { source: 'feeAmm', abi: Abis.feeAmm },
  { source: 'nonce', abi: Abis.nonce },
  { source: 'tip20ChannelReserve', abi: Abis.tip20ChannelReserve },
  { source: 'propAmm', abi: Abis.propAmm },
  { source: 'uniswapV2', abi: uniswapV2 },
  { source: 'uniswapV3', abi: uniswapV3 },
  { source: 'uniswapV4', abi: uniswapV4 },
  { source: 'tempo', abi: Abis.all },
  { source: 'eip3009', abi: eip3009Events },
  { source: 'x402Permit2Proxy', abi: x402ProxyEvents },
];

/** Candidate events by topic0 (lower-case selector), in priority order. */
export const EVENTS_BY_TOPIC: ReadonlyMap<string, { source: string; event: AbiEvent }[]> = (() => {
  const m = new Map<string, { source: string; event: AbiEvent }[]>();
  for (const { source, abi } of EVENT_ABIS)
    for (const item of abi) {
      if (item.type !== 'event' || item.anonymous) continue;
      const topic = toEventSelector(item).toLowerCase();
      const list = m.get(topic) ?? [];
      list.push({ source, event: item });
      m.set(topic, list);
    }
  return m;
})();

/** Selector → the first function of `abi` with that selector (what viem's decodeFunctionData would pick). */
function functionsBySelector(abi: Abi): ReadonlyMap<string, AbiFunction> {
  const m = new Map<string, AbiFunction>();
  for (const item of abi) {
    if (item.type !== 'function') continue;
    const sel = toFunctionSelector(item).toLowerCase();
    if (!m.has(sel)) m.set(sel, item);
  }
  return m;
}

// Hashed once at module load: hashing every ABI signature on each decode was the decoder's top cost.
const STABLECOIN_DEX_FUNCTIONS = functionsBySelector(Abis.stablecoinDex);
const TIP20_FACTORY_FUNCTIONS = functionsBySelector(Abis.tip20Factory);
const FEE_MANAGER_FUNCTIONS = functionsBySelector([...Abis.feeManager, ...Abis.feeAmm]);
const CHANNEL_RESERVE_FUNCTIONS = functionsBySelector(Abis.tip20ChannelReserve);
const TIP20_FUNCTIONS = functionsBySelector(Abis.tip20);
/** Functions by 4-byte selector for calls to a target with no specific ABI. */
const TEMPO_FUNCTIONS = functionsBySelector(Abis.all);

/**
 * The function to decode calldata sent to `target` with: looked up by selector in the precompile's own ABI for
 * known addresses, in TIP-20 for addresses with the TIP-20 prefix (or known tokens), else among all Tempo
 * functions; the first item of that ABI with the selector, as viem's decodeFunctionData picks it.
 * @param target lower-case address
 * @param selector lower-case 4-byte selector (0x + 8 hex digits)
 * @param isTip20 the target is a TIP-20 token
 * @returns the ABI function, or null when that ABI has no function with this selector
 */
export function functionForCall(target: string, selector: string, isTip20: boolean): AbiFunction | null {
  const table =
    target === STABLECOIN_DEX
      ? STABLECOIN_DEX_FUNCTIONS
      : target === TIP20_FACTORY
        ? TIP20_FACTORY_FUNCTIONS
        : target === FEE_MANAGER
          ? FEE_MANAGER_FUNCTIONS
          : target === CHANNEL_RESERVE
            ? CHANNEL_RESERVE_FUNCTIONS
            : isTip20
              ? TIP20_FUNCTIONS
              : TEMPO_FUNCTIONS;
  return table.get(selector) ?? null;
}
