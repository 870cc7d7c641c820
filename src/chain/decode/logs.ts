/**
 * Decodes receipt logs against the known ABIs (./abi.ts). A log no ABI decodes strictly is "unknown" and kept
 * raw in the detail's `unknown` member.
 */
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
  const candidates = topic0 !== null ? EVENTS_BY_TOPIC.get(topic0) ?? [] : [];
  // Literals with every member, not a spread of a shared base (one fixed object shape; see decodeTransaction).
  for (const { source, event } of candidates) {
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

/** True when the log is a TIP-20 (ERC-20 layout) Transfer. */
export const isTransfer = (l: DecodedLog) => l.abi === 'tip20' && l.event === 'Transfer';
