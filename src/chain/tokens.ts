/**
 * Token metadata read from the chain: TIP-20 `symbol()`, `currency()` and `decimals()`, cached in memory per
 * address. Nothing is hard-coded: a call that fails (not a token, reverted, not deployed) gives null for that
 * member, which the decoder treats as unknown (amounts stay atomic, nominal stays null).
 */
import { BaseError, ContractFunctionRevertedError, ContractFunctionZeroDataError, type PublicClient } from 'viem';
import { Abis } from './tempo-abis.js';
import type { TokenInfo, TokenMap } from './types.js';

/** eth_calls in flight at once (each address costs three). */
const CONCURRENCY = 8;

type Member = 'symbol' | 'currency' | 'decimals';
const MEMBERS: Member[] = ['symbol', 'currency', 'decimals'];

/**
 * Resolves and caches TIP-20 metadata.
 * @example
 * const registry = new TokenRegistry(createPublicClient({ chain: tempo, transport: http(url) }));
 * const tokens = await registry.resolve(['0x20c0000000000000000000000000000000000001']);
 * tokens.get('0x20c0000000000000000000000000000000000001') // { symbol: 'AlphaUSD', currency: 'USD', decimals: 6, … }
 */
export class TokenRegistry {
  private readonly cache = new Map<string, Promise<TokenInfo>>();

  /** @param client a viem PublicClient on the source chain. */
  constructor(private readonly client: PublicClient) {}

  /**
   * Metadata for every address (lower-cased; duplicates collapse). Addresses seen before come from the cache.
   * A member whose call fails is null; a transport failure rejects (and is not cached) so a later call retries.
   * @param addresses contract addresses, any case
   * @returns a map keyed by lower-case address
   * @throws the RPC error when the node cannot be reached
   */
  async resolve(addresses: string[]): Promise<TokenMap> {
    const wanted = [...new Set(addresses.map((a) => a.toLowerCase()))];
    const fresh = wanted.filter((a) => !this.cache.has(a));
    if (fresh.length) {
      const read = this.read(fresh);
      fresh.forEach((a, j) => {
        const p = read.then((infos) => infos[j]);
        this.cache.set(a, p);
        // A failed read is forgotten so the next resolve() asks again.
        p.catch(() => this.cache.delete(a));
      });
    }
    const out = new Map<string, TokenInfo>();
    for (const a of wanted) out.set(a, await this.cache.get(a)!);
    return out;
  }

  /**
   * Reads the three members of each address with parallel eth_call, at most CONCURRENCY in flight. The Tempo
   * chain definition declares no multicall3, so multicall is not assumed.
   */
  private async read(addresses: string[]): Promise<TokenInfo[]> {
    const jobs = addresses.flatMap((address) =>
      MEMBERS.map(
        (functionName) => () =>
          this.client.readContract({ address: address as `0x${string}`, abi: Abis.tip20, functionName }).then(
            (result): unknown => result,
            (error: unknown) => {
              if (isContractFailure(error)) return null;
              throw error;
            },
          ),
      ),
    );
    const results = await inPool(jobs, CONCURRENCY);
    return addresses.map((address, i) => {
      const [symbol, currency, decimals] = results.slice(i * 3, i * 3 + 3);
      return {
        address,
        symbol: typeof symbol === 'string' ? symbol : null,
        currency: typeof currency === 'string' ? currency : null,
        decimals: typeof decimals === 'number' ? decimals : typeof decimals === 'bigint' ? Number(decimals) : null,
      };
    });
  }
}

/**
 * True when the contract answered but not as a TIP-20 (reverted, or no code / empty return data). Anything else
 * (HTTP failure, timeout, node error) means the node did not answer and must not be cached as "unknown".
 */
function isContractFailure(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return Boolean(error.walk((e) => e instanceof ContractFunctionRevertedError || e instanceof ContractFunctionZeroDataError));
}

/** Runs async jobs with at most `limit` in flight; results keep the jobs' order. Rejects on the first failure. */
async function inPool<T>(jobs: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const out = new Array<T>(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return out;
}
