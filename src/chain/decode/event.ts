/**
 * Strict decoding of one log against one known event, without hashing the event's signature again: viem's
 * decodeEventLog finds the ABI item by recomputing keccak256 of every candidate's signature on every call, which
 * made it the decoder's top cost. The caller already matched topic0 (./abi.ts EVENTS_BY_TOPIC); the rest is
 * viem's strict algorithm, step for step (viem 2.57 utils/abi/decodeEventLog.ts), on viem's decodeAbiParameters.
 * test/chain/decode-event.test.ts holds it to decodeEventLog's answers.
 */
import { PaywatchError } from '../../domain/errors.js';
import { decodeAbiParameters, type AbiEvent, type AbiParameter, type Hex } from 'viem';
import { decodeStaticWords } from './words.js';

/** Thrown when a log does not fit the event strictly (where decodeEventLog with strict: true throws). */
export class EventMismatchError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'event_mismatch' });
  }
}

const WORD = /^0x[0-9a-fA-F]{64}$/;

/**
 * An indexed member's topic: dynamic types (string, bytes, tuple, arrays) are only hashed, so kept raw. The
 * commonest static types of a 32-byte topic are read directly, giving what decodeAbiParameters gives (address:
 * last 20 bytes, lower-case rather than checksummed, see ./words.ts; uint256: unsigned integer; bytes32:
 * lower-case hex) without its cursor and byte copies; anything else goes through viem.
 */
function decodeTopic(param: AbiParameter, topic: Hex): unknown {
  if (param.type === 'string' || param.type === 'bytes' || param.type === 'tuple' || /^(.*)\[(\d+)?\]$/.test(param.type)) return topic;
  if (WORD.test(topic)) {
    if (param.type === 'address') return `0x${topic.slice(26).toLowerCase()}`;
    if (param.type === 'uint256') return BigInt(topic);
    if (param.type === 'bytes32') return topic.toLowerCase();
  }
  return (decodeAbiParameters([param], topic) || [])[0];
}

/**
 * Decodes a log as `event`, as viem's `decodeEventLog({ abi: [event], topics, data, strict: true })` does (same
 * values and errors; addresses of the common shapes lower-case, others as viem gives them).
 * @param event the ABI event; `topic0` must be its selector (lower-case 0x hex, keccak256 of its signature)
 * @param topic0 the event's selector, computed once by the caller
 * @param topics the log's topics; topics[0] must equal `topic0` exactly (viem compares case-sensitively)
 * @param data the log's data (0x hex)
 * @returns the event name and its arguments (raw values: bigint; addresses in any case, compare them lower-cased), by name, or by
 *   position when an input is unnamed; `args` undefined when there are none
 * @throws EventMismatchError when topic0 differs or an indexed topic is missing; viem's decoding errors when the
 *   data does not fit the non-indexed inputs or is empty while some are expected
 */
export function decodeEventStrict(
  event: AbiEvent,
  topic0: string,
  topics: readonly Hex[],
  data: Hex,
): { eventName: string; args: Record<string, unknown> | unknown[] | undefined } {
  const [signature, ...argTopics] = topics;
  if (!signature || signature !== topic0) throw new EventMismatchError(`topic0 ${String(signature)} is not ${event.name}'s selector`);
  const { inputs } = event;
  const isUnnamed = inputs.some((x) => !x.name);
  const args: Record<string | number, unknown> = isUnnamed ? ([] as unknown as Record<number, unknown>) : {};

  let t = 0;
  inputs.forEach((param, argIndex) => {
    if (!param.indexed) return;
    const topic = argTopics[t++];
    if (!topic) throw new EventMismatchError(`${event.name}: topic for indexed ${param.name ?? argIndex} is missing`);
    args[isUnnamed ? argIndex : param.name || argIndex] = decodeTopic(param, topic);
  });

  const nonIndexed = inputs.filter((x) => !x.indexed);
  if (nonIndexed.length > 0) {
    if (!data || data === '0x')
      throw new EventMismatchError(`${event.name}: data is empty but ${nonIndexed.length} non-indexed input(s) are expected`);
    const decoded = decodeStaticWords(nonIndexed, data) ?? (decodeAbiParameters(nonIndexed, data) as readonly unknown[]);
    let d = 0;
    if (isUnnamed) {
      for (let i = 0; i < inputs.length; i++) if (args[i] === undefined && d < decoded.length) args[i] = decoded[d++];
    } else for (const p of nonIndexed) args[p.name!] = decoded[d++];
  }
  return { eventName: event.name, args: Object.values(args).length > 0 ? (args as Record<string, unknown>) : undefined };
}
