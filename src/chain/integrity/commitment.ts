/**
 * The block commitment check of integrity stage 2: rebuild each transaction's canonical encoding, hash it, and
 * rebuild the block's transactions and receipts tries (Merkle-Patricia, key rlp(index), value the canonical
 * encoding; Ethereum Yellow Paper §4.3, which Tempo keeps; built by ./trie.ts, checked against @ethereumjs/mpt)
 * to compare their roots with the header's.
 * Computed once per block; the result is also the `evidence` a decoder puts into each observation.
 */
import { Hex } from 'ox';
import type { FetchedBlock, RpcReceipt } from '../types.js';
import { encodeReceipt, encodeTransaction, UnsupportedEncodingError } from './encoding.js';
import { checkBlockHash, type HeaderCheck } from './header.js';
import { keccak256Hex } from './keccak.js';
import { lowerHex } from './rpc-values.js';
import { orderedTrieRoot } from './trie.js';

/** One recomputed root beside the header's. `computed` and `match` are null when it could not be recomputed. */
export interface RootCheck {
  /** The root the header states (lower-case hex). */
  expected: string;
  /** The root rebuilt from the transactions or receipts; null when some item could not be encoded. */
  computed: string | null;
  /** expected === computed; null when not computed. */
  match: boolean | null;
  /** Why it was not computed; absent when it was. */
  reason?: string;
}

/** The hash check of one transaction: keccak256 of its rebuilt canonical encoding against its stated hash. */
export interface TransactionHashCheck {
  /** keccak256 of the rebuilt encoding (lower-case hex); null when it could not be rebuilt. */
  computed: string | null;
  /** computed === the transaction's `hash`; null when not computed. */
  match: boolean | null;
  /** Why it was not computed; absent when it was. */
  reason?: string;
}

/**
 * What stage 2 needs of a block, computed once: both roots, the block hash recomputed from the header (which
 * binds those roots to the hash the chain references; informational, see ./header.ts) and, by transaction
 * index, each hash check.
 */
export interface BlockCommitment {
  transactionsRoot: RootCheck;
  receiptsRoot: RootCheck;
  blockHash: HeaderCheck;
  transactions: TransactionHashCheck[];
}

/** The Merkle-Patricia root (lower-case hex) of items keyed by rlp(index) (./trie.ts). */
function trieRoot(items: readonly Hex.Hex[]): string {
  // Buffer's hex decoder: ox's Hex.toBytes goes character by character and showed in profiles.
  return Hex.fromBytes(orderedTrieRoot(items.map((x) => Buffer.from(x.slice(2), 'hex'))));
}

/** The header's root as stated, lower-cased for comparison. */
function stated(root: unknown): string {
  return lowerHex(root) ?? String(root);
}

/** A RootCheck that could not be computed, with the reason. */
function uncomputed(expected: unknown, reason: string): RootCheck {
  return { expected: stated(expected), computed: null, match: null, reason };
}

/** Builds a RootCheck from the header's root and the rebuilt items (an Error item = not computable). */
function checkRoot(expected: unknown, items: (Hex.Hex | Error)[], what: string): RootCheck {
  const failed = items.findIndex((x) => x instanceof Error);
  if (failed >= 0) return uncomputed(expected, `${what} ${failed}: ${(items[failed] as Error).message}`);
  const exp = stated(expected);
  const computed = trieRoot(items as Hex.Hex[]);
  return { expected: exp, computed, match: computed === exp };
}

/** Calls `encode`, turning an UnsupportedEncodingError (or any other throw) into the returned Error. */
function attempt(encode: () => Hex.Hex): Hex.Hex | Error {
  try {
    return encode();
  } catch (e) {
    return e instanceof UnsupportedEncodingError ? e : new UnsupportedEncodingError((e as Error).message);
  }
}

/**
 * Recomputes the block commitment of a fetched block: every transaction's hash from its canonical encoding,
 * the transactionsRoot from all transactions, the receiptsRoot from all receipts, and the block hash from the
 * header.
 *
 * A root is left uncomputed (computed: null, match: null, with `reason`) when any item cannot be rebuilt —
 * an unknown transaction type, a missing receipt — because a partial trie proves nothing.
 *
 * @param f the block with full transactions and its receipts, in block order
 * @returns roots (lower-case hex) and per-index hash checks; never throws for malformed items (async for its
 *   callers only: it does no I/O)
 */
export async function blockCommitment(f: FetchedBlock): Promise<BlockCommitment> {
  const txs = f.block.transactions;
  const encodedTxs = txs.map((tx) => attempt(() => encodeTransaction(tx)));
  const transactions: TransactionHashCheck[] = encodedTxs.map((enc, i) => {
    if (enc instanceof Error) return { computed: null, match: null, reason: enc.message };
    const computed = keccak256Hex(enc);
    return { computed, match: computed === lowerHex(txs[i]!.hash) };
  });
  const encodedReceipts = txs.map((_, i) => {
    const r: RpcReceipt | null | undefined = f.receipts[i];
    return r ? attempt(() => encodeReceipt(r)) : new UnsupportedEncodingError('no receipt from the node');
  });
  const transactionsRoot = checkRoot(f.block.transactionsRoot, encodedTxs, 'transaction');
  const receiptsRoot =
    f.receipts.length === txs.length
      ? checkRoot(f.block.receiptsRoot, encodedReceipts, 'receipt')
      : uncomputed(f.block.receiptsRoot, `receipt count ${f.receipts.length} differs from transaction count ${txs.length}`);
  return { transactionsRoot, receiptsRoot, blockHash: checkBlockHash(f.block), transactions };
}
