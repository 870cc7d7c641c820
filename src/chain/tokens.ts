/**
 * Token metadata read from the chain: TIP-20 `symbol()`, `currency()` and `decimals()`, cached in memory per
 * address. Nothing is hard-coded: a call that fails (not a token, reverted, out of its gas budget, not deployed)
 * gives null for that member, which the decoder treats as unknown (amounts stay atomic, nominal stays null).
 *
 * The token is outside data: each call is a raw eth_call with an explicit gas cap and a time budget, and its
 * return bytes are decoded here with a byte cap (./decode/metadata.ts), never by viem, so a symbol() answering
 * 1 MiB costs one bounded read and is refused, not copied into every observation (docs/decoding.md, "Token metadata").
 */
import { BaseError, RpcRequestError, toFunctionSelector, toHex, type PublicClient } from 'viem';
import { LRUCache } from 'lru-cache';
import { PaywatchError } from '../domain/errors.js';
import { CHAIN_DATA_LIMITS } from './decode/limits.js';
import { callFailed, decodeMetadataDecimals, decodeMetadataString, type MetadataIssue, type MetadataValue } from './decode/metadata.js';
import type { TokenInfo, TokenMap } from './types.js';
import { RpcCallError, TempoRpc } from './rpc.js';

/** eth_calls in flight at once (each address costs three). */
const CONCURRENCY = 8;

type Member = 'symbol' | 'currency' | 'decimals';
const MEMBERS: Member[] = ['symbol', 'currency', 'decimals'];
const SELECTORS: Record<Member, `0x${string}`> = {
  symbol: toFunctionSelector('symbol()'),
  currency: toFunctionSelector('currency()'),
  decimals: toFunctionSelector('decimals()'),
};
const GAS = toHex(CHAIN_DATA_LIMITS.metadata_gas.value);
const TIMEOUT_MS = CHAIN_DATA_LIMITS.metadata_timeout_ms.value;

/**
 * JSON-RPC errors by which a node says the call itself failed in the EVM (the contract answered, badly): code 3
 * (execution reverted, EIP-1474 as geth and reth use it), or a message naming a revert or an EVM halt (anvil
 * answers -32603 "EVM error OutOfGas"; reth -32000 "out of gas"). Anything else means the node did not answer.
 */
const EVM_FAILURE = /revert|out of gas|outofgas|evm error|invalid opcode|invalidfeopcode|stack (under|over)flow|invalid jump/i;

/** A metadata call got no answer within its time budget (CHAIN_DATA_LIMITS.metadata_timeout_ms); the caller retries later. */
export class TokenMetadataTimeoutError extends PaywatchError {
  constructor(address: string, member: string) {
    super(`the node did not answer ${member}() of ${address} within ${TIMEOUT_MS} ms`, { code: 'token_metadata_timeout', retryable: true });
  }
}

/**
 * Resolves and caches token metadata.
 * @example
 * const registry = new TokenRegistry(createPublicClient({ chain: tempo, transport: http(url) }));
 * const tokens = await registry.resolve(['0x20c0000000000000000000000000000000000001']);
 * tokens.get('0x20c0000000000000000000000000000000000001') // { symbol: 'AlphaUSD', currency: 'USD', decimals: 6, … }
 */
export class TokenRegistry {
  private readonly cache = new LRUCache<string, Promise<TokenInfo>>({ max: CHAIN_DATA_LIMITS.token_cache_entries.value });

  /**
   * @param client the collector's TempoRpc (its reads then share the node's batch size and pace, src/chain/rpc.ts),
   *   or a viem PublicClient on the source chain
   */
  constructor(private readonly client: PublicClient | TempoRpc) {}

  /**
   * Metadata for every address (lower-cased; duplicates collapse). Addresses seen before come from the cache.
   * A member whose call fails in the EVM, or whose answer is refused, is null (with its issue in `issues`); a
   * node that does not answer rejects (and is not cached) so a later call retries.
   * @param addresses contract addresses, any case
   * @returns a map keyed by lower-case address
   * @throws the RPC error when the node cannot be reached; TokenMetadataTimeoutError when it does not answer in time
   */
  async resolve(addresses: string[]): Promise<TokenMap> {
    const wanted = [...new Set(addresses.map((a) => a.toLowerCase()))];
    // Promises held here, so entries the LRU drops while this resolve runs are still answered.
    const pending = new Map<string, Promise<TokenInfo>>();
    const fresh: string[] = [];
    for (const a of wanted) {
      const hit = this.cache.get(a);
      if (hit) pending.set(a, hit);
      else fresh.push(a);
    }
    if (fresh.length) {
      const read = this.read(fresh);
      fresh.forEach((a, j) => {
        const p = read.then((infos) => infos[j]);
        this.cache.set(a, p);
        pending.set(a, p);
        // A failed read is forgotten so the next resolve() asks again.
        p.catch(() => {
          if (this.cache.peek(a) === p) this.cache.delete(a);
        });
      });
    }
    const out = new Map<string, TokenInfo>();
    for (const a of wanted) out.set(a, await pending.get(a)!);
    return out;
  }

  /**
   * Reads the three members of each address with parallel eth_calls, at most CONCURRENCY in flight. The Tempo
   * chain definition declares no multicall3, so multicall is not assumed.
   */
  private async read(addresses: string[]): Promise<TokenInfo[]> {
    const client = this.client;
    const results =
      client instanceof TempoRpc
        ? await this.readBatched(client, addresses)
        : await inPool(
            addresses.flatMap((address) => MEMBERS.map((member) => () => this.call(client, address, member))),
            CONCURRENCY,
          );
    return addresses.map((address, i) => {
      const [symbol, currency, decimals] = results.slice(i * 3, i * 3 + 3) as [
        MetadataValue<string>,
        MetadataValue<string>,
        MetadataValue<number>,
      ];
      const issues = [symbol.issue, currency.issue, decimals.issue].filter((x): x is MetadataIssue => x !== null);
      const info: TokenInfo = { address, symbol: symbol.value, currency: currency.value, decimals: decimals.value };
      if (issues.length) info.issues = issues;
      return info;
    });
  }

  /**
   * Every member of every address in one TempoRpc batch (split as the node's batch size wants, paced with every
   * other request to the node), raced against one time budget; each answer decoded as `call` decodes it.
   */
  private async readBatched(rpc: TempoRpc, addresses: string[]): Promise<MetadataValue<string | number>[]> {
    const jobs = addresses.flatMap((address) => MEMBERS.map((member) => ({ address, member })));
    const calls = jobs.map(({ address, member }) => ({
      method: 'eth_call',
      params: [{ to: address, data: SELECTORS[member], gas: GAS }, 'latest'],
    }));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TokenMetadataTimeoutError(jobs[0].address, jobs[0].member)), TIMEOUT_MS);
    });
    try {
      const answers = await Promise.race([rpc.batch(calls, { answerIsFinal: true }), timeout]);
      return jobs.map(({ member }, i) => {
        const a = answers[i];
        if (!(a instanceof RpcCallError)) return decodeMember(member, a);
        const failure = evmFailure(a);
        if (failure === null) throw a;
        return { value: null, issue: member === 'symbol' ? callFailed(member, failure) : null };
      });
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * One raw eth_call with the gas cap, raced against the time budget; its answer decoded with the member's byte
   * cap. An EVM failure is an unknown value (with a metadata_call_failed issue for symbol(): a token without a
   * symbol is odd; without currency(), an ordinary ERC-20).
   */
  private async call(client: PublicClient, address: string, member: Member): Promise<MetadataValue<string | number>> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TokenMetadataTimeoutError(address, member)), TIMEOUT_MS);
    });
    try {
      const params = [{ to: address as `0x${string}`, data: SELECTORS[member], gas: GAS }, 'latest'] as const;
      const hex = await Promise.race([
        client.request(
          { method: 'eth_call', params: [...params] },
          // No retries here: an EVM failure answers the same each time, and a down node fails the run, which is retried.
          { retryCount: 0 },
        ),
        timeout,
      ]);
      return decodeMember(member, hex);
    } catch (error) {
      const failure = evmFailure(error);
      if (failure === null) throw error;
      return { value: null, issue: member === 'symbol' ? callFailed(member, failure) : null };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A member's eth_call answer decoded with its byte cap (anything but a hex string reads as empty). */
function decodeMember(member: Member, hex: unknown): MetadataValue<string | number> {
  const answer = typeof hex === 'string' ? hex : '0x';
  if (member === 'decimals') return decodeMetadataDecimals(answer);
  return decodeMetadataString(answer, member, CHAIN_DATA_LIMITS[member === 'symbol' ? 'symbol_bytes' : 'currency_bytes'].value);
}

/** The node's message when `error` is a JSON-RPC answer saying the call failed in the EVM; else null. */
function evmFailure(error: unknown): string | null {
  if (error instanceof RpcCallError && error.rpcCode !== null) {
    const message = error.message.replace(/^eth_call failed: /, '').replace(/ \(code -?\d+\)$/, '');
    return error.rpcCode === 3 || EVM_FAILURE.test(message) ? message || 'execution reverted' : null;
  }
  if (!(error instanceof BaseError)) return null;
  const rpc = error.walk((e) => e instanceof RpcRequestError) as RpcRequestError | null;
  if (!rpc) return null;
  const message = `${rpc.details ?? ''}`;
  return rpc.code === 3 || EVM_FAILURE.test(message) ? message || 'execution reverted' : null;
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
