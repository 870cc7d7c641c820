/**
 * The ABIs the decoder knows, all from viem/tempo `Abis` except the Uniswap swap events, which viem does not
 * ship: they are given as their canonical Solidity event signatures (parseAbi), the published interfaces of
 * Uniswap v2 (IUniswapV2Pair), v3 (IUniswapV3PoolEvents) and v4 (IPoolManager).
 */
import { parseAbi, type Abi, type AbiEvent, type AbiFunction, toEventSelector, toFunctionSelector } from 'viem';
import { Abis } from 'viem/tempo';
import { CHANNEL_RESERVE, FEE_MANAGER, STABLECOIN_DEX, TIP20_FACTORY } from './constants.js';

export const uniswapV2 = parseAbi(['event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)']);
export const uniswapV3 = parseAbi(['event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)']);
export const uniswapV4 = parseAbi(['event Swap(bytes32 indexed id, address indexed sender, int128 amount0, int128 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint24 fee)']);

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

/** Functions by 4-byte selector for calls to a target with no specific ABI. */
const FUNCTIONS_BY_SELECTOR: ReadonlyMap<string, AbiFunction[]> = (() => {
  const m = new Map<string, AbiFunction[]>();
  for (const item of Abis.all as Abi) {
    if (item.type !== 'function') continue;
    const sel = toFunctionSelector(item).toLowerCase();
    m.set(sel, [...(m.get(sel) ?? []), item]);
  }
  return m;
})();

/**
 * The ABI to decode calldata sent to `target` with: the precompile's own ABI for known addresses, TIP-20 for
 * addresses with the TIP-20 prefix, else the Tempo functions whose selector matches (may be empty).
 * @param target lower-case address
 * @param selector lower-case 4-byte selector
 */
export function abiForCall(target: string, selector: string, isTip20: boolean): Abi {
  if (target === STABLECOIN_DEX) return Abis.stablecoinDex;
  if (target === TIP20_FACTORY) return Abis.tip20Factory;
  if (target === FEE_MANAGER) return [...Abis.feeManager, ...Abis.feeAmm];
  if (target === CHANNEL_RESERVE) return Abis.tip20ChannelReserve;
  if (isTip20) return Abis.tip20;
  return FUNCTIONS_BY_SELECTOR.get(selector) ?? [];
}
