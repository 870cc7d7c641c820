/**
 * Resolves what an offer's asset is on its network, for the "known token" and "price sanity" signals:
 * first the static list (src/trust/networks.ts), then, for a TIP-20 address on the Tempo network our RPC
 * serves, the chain itself (TIP-20 `currency()`, `symbol()`, `decimals()` through src/chain/tokens.ts).
 */
import { createPublicClient, http } from 'viem';
import { TokenRegistry } from '../chain/tokens.js';
import type { TokenInfo } from '../chain/types.js';
import { STATIC_TOKENS, tokenKey } from './networks.js';
import { isTip20Address, TEMPO_MAINNET } from '../domain/tempo.js';
import type { AssetInfo } from './types.js';
import { shortMessage, Unavailable } from '../domain/errors.js';

/**
 * Looks up one asset: unknown when it is not a token we recognise.
 * @throws Unavailable (503) when our RPC does not answer (our failure, never the target's)
 */
export type AssetResolver = (network: string | null, asset: string | null) => Promise<AssetInfo>;

/**
 * Builds a resolver.
 * @param rpcUrl Tempo JSON-RPC URL (chain id 4217) used for TIP-20 lookups on eip155:4217; null = static list only
 * @param timeoutMs per RPC request, milliseconds
 */
export function assetResolver(rpcUrl: string | null, timeoutMs = 2000): AssetResolver {
  const registry = rpcUrl
    ? new TokenRegistry(createPublicClient({ transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 0 }) }) as never)
    : null;
  return async (network, asset) => {
    const a = asset?.toLowerCase() ?? null;
    const unknown: AssetInfo = { network, asset: a, known: false, symbol: null, currency: null, decimals: null, source: null };
    if (!a) return unknown;
    const st = STATIC_TOKENS.get(tokenKey(network, a));
    if (st) return { network, asset: a, known: true, symbol: st.symbol, currency: st.currency, decimals: st.decimals, source: 'static' };
    // Our RPC serves Tempo mainnet only.
    if (network === TEMPO_MAINNET && registry && isTip20Address(a)) {
      let info: TokenInfo | undefined;
      try {
        info = (await registry.resolve([a])).get(a);
      } catch (e) {
        // The registry answers an EVM failure (no such token) as unknown values; what it throws is our RPC failing:
        // our fault, so the check fails (503, not metered) rather than blaming the target with asset_unknown.
        throw new Unavailable(`our Tempo RPC did not answer a token lookup: ${shortMessage(e)}`.slice(0, 300), { retryAfterSeconds: 10 });
      }
      if (info?.currency)
        return { network, asset: a, known: true, symbol: info.symbol, currency: info.currency, decimals: info.decimals, source: 'chain' };
    }
    return unknown;
  };
}
