/**
 * The decoder: pure functions from a fetched finalized block to its observations (docs/decoding.md; every rule
 * and choice is written down in docs/decoding.md). No I/O: token metadata comes in as a TokenMap, integrity as
 * already-evaluated stages.
 *
 * @example
 * const tokens = await registry.resolve(tokenAddressesOf(fetched));
 * const observations = decodeBlock(fetched, tokens, evaluateBlockIntegrity(fetched));
 */
import { toEventSelector, type AbiEvent } from 'viem';
import { Abis } from '../tempo-abis.js';
import type { BlockObservations, Integrity } from '../../domain/observation.js';
import type { BlockIntegrity, FetchedBlock, TokenMap } from '../types.js';
import { quantity } from './json.js';
import { topicCountOf } from './logs.js';
import { decodeTransaction } from './transaction.js';

export { decodeTransaction, nominalPartsOf, isSystem } from './transaction.js';
export { feeAtomic } from './fee.js';
export { isMppMemo, MPP_TAG, VENUES, CATEGORIES, type Category } from './constants.js';
export { decodeMppAttribution, mppFingerprint, type MppAttribution } from './attribution.js';
export { x402ProtocolOf, type SettlementKind } from './settlement.js';
export { X402_EVM_VERSION, X402_PERMIT2_PROXIES } from './x402.js';
export { CHAIN_DATA_LIMITS, type ChainDataLimit, type ChainDataLimitName } from './limits.js';

/**
 * Every log emitter of the block's receipts that may be a token (lower-case, unique, in first-seen order):
 * emitters of logs with the TIP-20/ERC-20 Transfer or TransferWithMemo topic0 AND that event's topic count
 * (3 and 4). Others (DEX, nonce manager…, and ERC-721 Transfers, which carry tokenId as a fourth topic) are left
 * out so the registry does not eth_call them.
 */
export function tokenAddressesOf(fetched: FetchedBlock): string[] {
  const out = new Set<string>();
  for (const r of fetched.receipts)
    for (const l of r?.logs ?? []) {
      const topics = Array.isArray(l.topics) ? l.topics : [];
      if (typeof topics[0] === 'string' && TOKEN_TOPICS.get(topics[0].toLowerCase()) === topics.length)
        out.add(String(l.address).toLowerCase());
    }
  return [...out];
}

/** topic0 → topic count of Transfer(address,address,uint256) and TransferWithMemo(address,address,uint256,bytes32). */
const TOKEN_TOPICS: ReadonlyMap<string, number> = new Map(
  (Abis.tip20 as readonly { type: string; name?: string }[])
    .filter((i) => i.type === 'event' && (i.name === 'Transfer' || i.name === 'TransferWithMemo'))
    .map((e) => [toEventSelector(e as AbiEvent).toLowerCase(), topicCountOf(e as AbiEvent)]),
);

/**
 * Decodes every transaction of a block (failed ones included) into one Observation each, in block order.
 * @param fetched the block, its receipts (null = no receipt → execution unknown), source and fetch time
 * @param tokens metadata for (at least) tokenAddressesOf(fetched); a missing entry is unknown, never guessed
 * @param integrity integrity of each transaction by index; a missing entry becomes score 0 with unknown stages
 */
export function decodeBlock(fetched: FetchedBlock, tokens: TokenMap, integrity: BlockIntegrity): BlockObservations {
  const { block } = fetched;
  return {
    height: Number(quantity(block.number)),
    hash: block.hash.toLowerCase() as `0x${string}`,
    time: Number(quantity(block.timestamp)),
    observations: block.transactions.map((_, i) => decodeTransaction(fetched, i, tokens, integrity[i] ?? notEvaluated())),
  };
}

/** The integrity of a transaction nobody evaluated: both stages unknown, score 0 (never a pass). */
function notEvaluated(): Integrity {
  const stage = (level: number, label: string) => ({
    level,
    label,
    status: 'unknown' as const,
    reason: 'integrity was not evaluated for this transaction',
  });
  return {
    score: 0,
    maximum: 5,
    version: '1',
    scope: 'transaction-in-finalized-block',
    stages: [stage(1, 'finalized receipt'), stage(2, 'block commitment')],
    independent_consensus_verified: false,
  };
}
