/**
 * Decodes receipt logs against the known ABIs (./abi.ts). A log no ABI decodes strictly is "unknown" and kept
 * raw in the detail's `unknown` member.
 *
 * A log is only decoded as an event when it has exactly that event's number of topics (topic0 plus one per
 * indexed input, as Solidity emits them): ERC-721's Transfer shares topic0 with TIP-20's but indexes tokenId
 * as a fourth topic, and must never read as a TIP-20 transfer (docs/decoding.md, "Logs").
 */
import { parseAbi, toEventSelector, type AbiEvent } from 'viem';
import type { RpcLog } from '../types.js';
import { EVENTS_BY_TOPIC } from './abi.js';
import { decodeEventStrict } from './event.js';
import { plain, quantity } from './json.js';

/** A receipt log with its decoding, if any. `args` are the ABI-decoded values, raw (bigint; addresses in any case). */
export interface DecodedLog {
  log_index: number;
  /** Lower-case emitter. */
  address: string;
  topics: `0x${string}`[];
  data: `0x${string}`;
  /** Event name, or null when no known ABI decodes it. */
  event: string | null;
  /** Which ABI decoded it (tip20, stablecoinDex, uniswapV3, …), or null. */
  abi: string | null;
  args: Record<string, unknown> | null;
}

/** ERC-721 Transfer (EIP-721): not a TIP-20 value movement; decoded so that it is described, never a leg. */
const ERC721_TRANSFER = parseAbi(['event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)'])[0];

/**
 * The number of topics a non-anonymous log of `event` carries: topic0 and one per indexed input.
 * @param event an ABI event
 */
export function topicCountOf(event: AbiEvent): number {
  return 1 + event.inputs.filter((i) => i.indexed).length;
}

/** Candidate events by topic0 (EVENTS_BY_TOPIC plus ERC-721 Transfer last), each with its topic count, built once. */
const CANDIDATES: ReadonlyMap<string, { source: string; event: AbiEvent; topics: number }[]> = (() => {
  const m = new Map<string, { source: string; event: AbiEvent; topics: number }[]>();
  for (const [topic, list] of EVENTS_BY_TOPIC)
    m.set(
      topic,
      list.map((c) => ({ ...c, topics: topicCountOf(c.event) })),
    );
  const erc721 = toEventSelector(ERC721_TRANSFER).toLowerCase();
  m.set(erc721, [...(m.get(erc721) ?? []), { source: 'erc721', event: ERC721_TRANSFER, topics: topicCountOf(ERC721_TRANSFER) }]);
  return m;
})();

/**
 * Decodes one log. Never throws: an undecodable log comes back with `event: null`.
 * @param log a JSON-RPC log
 * @param position its position in the receipt, used when `logIndex` is missing
 */
export function decodeLog(log: RpcLog, position: number): DecodedLog {
  const topics = Array.isArray(log.topics) ? log.topics : [];
  const log_index = Number(quantity(log.logIndex) ?? BigInt(position));
  const address = String(log.address).toLowerCase();
  const data = typeof log.data === 'string' ? log.data : '0x';
  const topic0 = topics.length ? String(topics[0]).toLowerCase() : null;
  const candidates = topic0 !== null ? (CANDIDATES.get(topic0) ?? []) : [];
  // Literals with every member, not a spread of a shared base (one fixed object shape; see decodeTransaction).
  for (const { source, event, topics: count } of candidates) {
    // Another topic count is another event with the same signature hash, even when its data would decode.
    if (topics.length !== count) continue;
    try {
      const d = decodeEventStrict(event, topic0!, topics, data);
      return { log_index, address, topics, data, event: d.eventName, abi: source, args: (d.args ?? {}) as Record<string, unknown> };
    } catch {
      /* next candidate: same topic0 can have a different indexed layout */
    }
  }
  return { log_index, address, topics, data, event: null, abi: null, args: null };
}

/** The JSON form of a decoded log for the receipt detail. */
export function logDetail(l: DecodedLog): Record<string, unknown> {
  return {
    log_index: l.log_index,
    address: l.address,
    event: l.event,
    args: l.args ? plain(l.args) : null,
    topics: l.topics,
    data: l.data,
  };
}

/** True when the log is a TIP-20 (ERC-20 layout) Transfer: three topics, the amount in data (never an ERC-721 Transfer). */
export const isTransfer = (l: DecodedLog) => l.abi === 'tip20' && l.event === 'Transfer';
