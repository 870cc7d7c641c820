/**
 * The block commitment check of integrity stage 2: rebuild each transaction's canonical encoding, hash it, and
 * rebuild the block's transactions and receipts tries (Merkle-Patricia, key rlp(index), value the canonical
 * encoding; Ethereum Yellow Paper §4.3, which Tempo keeps; built by ./trie.ts, checked against @ethereumjs/mpt)
 * to compare their roots with the header's.
 * Computed once per block; the result is also the `evidence` a decoder puts into each observation.
 */
import type { FetchedBlock, RpcReceipt, RpcTransaction } from '../types.js';
import { encodeTransaction, UnsupportedEncodingError, writeReceipt, writeTempoTransaction } from './encoding.js';
import { checkBlockHash, type HeaderCheck } from './header.js';
import { keccak256 } from './keccak.js';
import { RlpWriter } from './rlp-writer.js';
import { lowerHex } from './rpc-values.js';
import { orderedTrieRoot } from './trie.js';
import { shortMessage } from '../../domain/errors.js';

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

/** A 32-byte digest as 0x lower-case hex. */
function hex0x(digest: Uint8Array): string {
  return `0x${Buffer.from(digest.buffer, digest.byteOffset, digest.byteLength).toString('hex')}`;
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
function checkRoot(expected: unknown, items: (Uint8Array | Error)[], what: string): RootCheck {
  const failed = items.findIndex((x) => x instanceof Error);
  if (failed >= 0) return uncomputed(expected, `${what} ${failed}: ${shortMessage(items[failed])}`);
  const exp = stated(expected);
  const computed = hex0x(orderedTrieRoot(items as Uint8Array[]));
  return { expected: exp, computed, match: computed === exp };
}

/** Where a block's encodings are written, back to front, and kept (as views) until its tries are built. */
const writer = new RlpWriter();

/**
 * Writes `encode`'s item to `writer` (and returns a view of it), turning an UnsupportedEncodingError (or any other
 * throw) into the returned Error, with nothing left written.
 */
function attempt(encode: () => void): Uint8Array | Error {
  const mark = writer.size();
  try {
    encode();
    return writer.view().subarray(0, writer.size() - mark);
  } catch (e) {
    writer.rewind(mark);
    return e instanceof UnsupportedEncodingError ? e : new UnsupportedEncodingError(shortMessage(e));
  }
}

/**
 * A transaction's canonical encoding (a view into `writer`) and its keccak256 (0x hex): from the fast Tempo
 * encoder when its hash reproduces the stated one (then the encoding is exactly the canonical one, keccak256 being
 * collision-resistant), else from the reference encoder (ox), whose answer is final either way.
 */
function encodedWithHash(tx: RpcTransaction): { encoding: Uint8Array; hash: string } | Error {
  const stated = lowerHex(tx.hash);
  const mark = writer.size();
  try {
    if (writeTempoTransaction(writer, tx)) {
      const encoding = writer.view().subarray(0, writer.size() - mark);
      const hash = hex0x(keccak256(encoding));
      if (hash === stated) return { encoding, hash };
    }
  } catch {
    /* a member the fast path cannot read: the reference encoder decides */
  }
  writer.rewind(mark);
  const reference = attempt(() => writer.hex(encodeTransaction(tx).slice(2)));
  return reference instanceof Error ? reference : { encoding: reference, hash: hex0x(keccak256(reference)) };
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
 * @returns roots (lower-case hex) and per-index hash checks; never throws for malformed items
 */
export function blockCommitment(f: FetchedBlock): BlockCommitment {
  const txs = f.block.transactions;
  writer.begin();
  // Back to front (the writer prepends), so each item is a view that later writes leave alone.
  const hashed: ReturnType<typeof encodedWithHash>[] = new Array(txs.length);
  for (let i = txs.length - 1; i >= 0; i--) hashed[i] = encodedWithHash(txs[i]!);
  const encodedTxs = hashed.map((h) => (h instanceof Error ? h : h.encoding));
  const transactions: TransactionHashCheck[] = hashed.map((h, i) => {
    if (h instanceof Error) return { computed: null, match: null, reason: h.message };
    return { computed: h.hash, match: h.hash === lowerHex(txs[i]!.hash) };
  });
  const encodedReceipts: (Uint8Array | Error)[] = new Array(txs.length);
  for (let i = txs.length - 1; i >= 0; i--) {
    const r: RpcReceipt | null | undefined = f.receipts[i];
    encodedReceipts[i] = r ? attempt(() => writeReceipt(writer, r)) : new UnsupportedEncodingError('no receipt from the node');
  }
  const transactionsRoot = checkRoot(f.block.transactionsRoot, encodedTxs, 'transaction');
  const receiptsRoot =
    f.receipts.length === txs.length
      ? checkRoot(f.block.receiptsRoot, encodedReceipts, 'receipt')
      : uncomputed(f.block.receiptsRoot, `receipt count ${f.receipts.length} differs from transaction count ${txs.length}`);
  return { transactionsRoot, receiptsRoot, blockHash: checkBlockHash(f.block), transactions };
}
