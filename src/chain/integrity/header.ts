/**
 * Recomputes a block's hash from the header fields the node served, which ties the transactionsRoot and
 * receiptsRoot that stage 2 checks to the block hash that the finalized chain references.
 *
 * Two encodings are tried, because they differ between the real chain and the local test node:
 * - Tempo: keccak256(rlp([generalGasLimit, sharedGasLimit, timestampMillisPart, ethereumHeader,
 *   consensusContext?])) — tempoxyz/tempo `crates/primitives/src/header.rs` (TempoHeader, RlpEncodable field
 *   order, `#[rlp(trailing(no_gaps))]`). consensusContext exists from the T4 upgrade on and is then the fifth
 *   member, rlp([epoch, view, parentView, proposer]) (u64, u64, u64, 32-byte Ed25519 key); before T4 the list
 *   has four members. Reproduces real mainnet blocks 1, 17708868 (before T4), 20660166 and 25403305 (after) and
 *   Moderato blocks (test/chain/real-tempo-integrity.test.ts).
 * - Ethereum: keccak256(rlp(ethereumHeader)) — what anvil's Tempo mode hashes (seen on @foundry-rs/anvil).
 * ethereumHeader = [parentHash, sha3Uncles, miner, stateRoot, transactionsRoot, receiptsRoot, logsBloom,
 * difficulty, number, gasLimit, gasUsed, timestamp, extraData, mixHash, nonce] followed by the optional
 * members of later forks in order: baseFeePerGas (EIP-1559), withdrawalsRoot (EIP-4895), blobGasUsed and
 * excessBlobGas (EIP-4844), parentBeaconBlockRoot (EIP-4788), requestsHash (EIP-7685).
 */
import { PaywatchError, shortMessage } from '../../domain/errors.js';
import { keccak256RawHex } from './keccak.js';
import type { RpcBlock } from '../types.js';
import { lowerHex } from './rpc-values.js';
import { dataHex, quantityHex, rlpList, rlpString } from './rlp.js';

/** A block header member that is present but malformed. */
export class HeaderFieldError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'header_field' });
  }
}

/** The result of recomputing a block hash from its header. */
export interface HeaderCheck {
  /** The block hash the node stated (lower-case hex). */
  expected: string;
  /** The header encoding whose hash equals `expected`; null when none did. */
  encoding: 'tempo' | 'ethereum' | null;
  /** True when one encoding reproduces the stated hash; null when the header could not be encoded. */
  match: boolean | null;
  /** Why it did not match or could not be encoded; absent on a match. */
  reason?: string;
}

const QUANTITY = 'q';
const DATA = 'd';
/** Ethereum header members in RLP order, with their JSON-RPC names; the `optional` ones appear by fork. */
const BASE: [string, typeof QUANTITY | typeof DATA][] = [
  ['parentHash', DATA],
  ['sha3Uncles', DATA],
  ['miner', DATA],
  ['stateRoot', DATA],
  ['transactionsRoot', DATA],
  ['receiptsRoot', DATA],
  ['logsBloom', DATA],
  ['difficulty', QUANTITY],
  ['number', QUANTITY],
  ['gasLimit', QUANTITY],
  ['gasUsed', QUANTITY],
  ['timestamp', QUANTITY],
  ['extraData', DATA],
  ['mixHash', DATA],
  ['nonce', DATA],
];
const OPTIONAL: [string, typeof QUANTITY | typeof DATA][] = [
  ['baseFeePerGas', QUANTITY],
  ['withdrawalsRoot', DATA],
  ['blobGasUsed', QUANTITY],
  ['excessBlobGas', QUANTITY],
  ['parentBeaconBlockRoot', DATA],
  ['requestsHash', DATA],
];

/** The encoding that reproduced the last block hash checked (an ordering hint only). */
let lastMatched: 'tempo' | 'ethereum' = 'tempo';

/** A JSON-RPC value as an RLP-encoded item (./rlp.ts): quantities minimal big-endian (zero empty), data as is. */
function item(block: RpcBlock, name: string, kind: string): string {
  const v = block[name];
  if (
    typeof v !== 'string' ||
    !/^0x[0-9a-fA-F]*$/.test(v) ||
    (kind === DATA && v.length % 2 !== 0) ||
    (kind === QUANTITY && v.length < 3)
  ) {
    throw new HeaderFieldError(`header member ${name} is missing or not hex`);
  }
  return rlpString(kind === DATA ? dataHex(v) : quantityHex(v));
}

/** The trailing Tempo header member from T4 on (TempoConsensusContext), its integers exact. */
export interface ConsensusContext {
  epoch: bigint;
  view: bigint;
  parentView: bigint;
  /** The proposer's 32-byte Ed25519 key, 0x hex as served. */
  proposer: string;
}

/**
 * A consensusContext integer: the node serves epoch, view and parentView as JSON numbers; a hex quantity string
 * is read too. A number beyond 2^53 has lost precision in JSON parsing, so it is refused.
 */
function contextInteger(ctx: Record<string, unknown>, name: string): bigint {
  const v = ctx[name];
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && /^0x[0-9a-fA-F]+$/.test(v)) return BigInt(v);
  throw new HeaderFieldError(`header member consensusContext.${name} is missing or not a non-negative safe integer`);
}

/**
 * The block's consensusContext, `{epoch, view, parentView, proposer}` (tempoxyz/tempo
 * `crates/primitives/src/header.rs` TempoConsensusContext), or null when the node served none (a pre-T4 block,
 * or anvil). The finality check compares it with a certificate's round (src/chain/consensus/verify.ts).
 * @example readConsensusContext(block) // { epoch: 1176n, view: 1706n, parentView: 1705n, proposer: '0x9a2b…' }
 * @throws HeaderFieldError naming the member when it is present but malformed
 */
export function readConsensusContext(block: RpcBlock): ConsensusContext | null {
  const ctx = block.consensusContext;
  if (ctx === undefined || ctx === null) return null;
  if (typeof ctx !== 'object' || Array.isArray(ctx)) throw new HeaderFieldError('header member consensusContext is not an object');
  const c = ctx as Record<string, unknown>;
  const proposer = c.proposer;
  if (typeof proposer !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(proposer))
    throw new HeaderFieldError('header member consensusContext.proposer is missing or not 32 bytes of hex');
  return { epoch: contextInteger(c, 'epoch'), view: contextInteger(c, 'view'), parentView: contextInteger(c, 'parentView'), proposer };
}

/** The RLP of a consensusContext integer (u64, minimal big-endian). */
function contextItem(v: bigint): string {
  return rlpString(quantityHex(`0x${v.toString(16)}`));
}

/**
 * The trailing Tempo header member from T4 on, rlp([epoch, view, parentView, proposer]), or null when the node
 * served none.
 * @throws HeaderFieldError naming the member when it is present but malformed
 */
function consensusContext(block: RpcBlock): string | null {
  const c = readConsensusContext(block);
  if (c === null) return null;
  return rlpList([contextItem(c.epoch), contextItem(c.view), contextItem(c.parentView), rlpString(dataHex(c.proposer))]);
}

/** The Ethereum header list of a block (members RLP-encoded); optional members stop at the first one the node left out. */
function ethereumHeader(block: RpcBlock): string[] {
  const list = BASE.map(([name, kind]) => item(block, name, kind));
  for (const [name, kind] of OPTIONAL) {
    if (block[name] === undefined || block[name] === null) break;
    list.push(item(block, name, kind));
  }
  return list;
}

/**
 * Recomputes the block hash from the header members the node served and compares it with the stated hash,
 * under the Tempo header encoding (with the trailing consensusContext when the node served one) and the plain
 * Ethereum one (see the module comment).
 *
 * @param block the node's block (eth_getBlockByNumber)
 * @returns which encoding matched, or match false with the reason, or match null when a member is missing or
 *   malformed (an Ethereum header member, or a consensusContext member that is present but not encodable);
 *   never throws
 */
export function checkBlockHash(block: RpcBlock): HeaderCheck {
  const expected = lowerHex(block.hash) ?? String(block.hash);
  let encoders: Record<'tempo' | 'ethereum', () => string>;
  try {
    encoders = headerEncoders(block);
  } catch (e) {
    return { expected, encoding: null, match: null, reason: shortMessage(e) };
  }
  // A source keeps one encoding: try the one that matched last first, saving a keccak256 per block. The answer
  // is the same in either order (two different preimages cannot both hash to the stated hash).
  const order: ('tempo' | 'ethereum')[] = lastMatched === 'tempo' ? ['tempo', 'ethereum'] : ['ethereum', 'tempo'];
  for (const encoding of order) {
    try {
      if (`0x${keccak256RawHex(encoders[encoding]())}` === expected) {
        lastMatched = encoding;
        return { expected, encoding, match: true };
      }
    } catch {
      /* a Tempo member is missing: try the next encoding */
    }
  }
  return { expected, encoding: null, match: false, reason: 'neither the Tempo nor the Ethereum header encoding reproduces the block hash' };
}

/**
 * The header's RLP under each encoding, built lazily (the Tempo one needs Tempo's members).
 * @throws HeaderFieldError when an Ethereum member or a present consensusContext is missing or malformed
 */
function headerEncoders(block: RpcBlock): Record<'tempo' | 'ethereum', () => string> {
  const inner = rlpList(ethereumHeader(block));
  const context = consensusContext(block);
  const tempo = (): string[] => [
    item(block, 'mainBlockGeneralGasLimit', QUANTITY),
    item(block, 'sharedGasLimit', QUANTITY),
    item(block, 'timestampMillisPart', QUANTITY),
    inner,
  ];
  return {
    // From T4 on the consensusContext is the trailing fifth member; absent (not an empty item) before it.
    tempo: () => rlpList(context === null ? tempo() : [...tempo(), context]),
    ethereum: () => inner,
  };
}

/**
 * The block hash its header members give under one encoding, whatever hash the node stated: what a test node
 * that rewrites a header (test/helpers/consensus.ts) serves as the new hash.
 * @example headerHash(block, 'tempo') === block.hash // for a real Tempo block
 * @throws HeaderFieldError when a member the encoding needs is missing or malformed
 */
export function headerHash(block: RpcBlock, encoding: 'tempo' | 'ethereum'): `0x${string}` {
  return `0x${keccak256RawHex(headerEncoders(block)[encoding]())}`;
}
