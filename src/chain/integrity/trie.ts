/**
 * The root of a block's transactions or receipts trie, built in one pass from all its items (Ethereum Yellow
 * Paper §4.3 and Appendix D: Merkle-Patricia trie; Appendix C: hex-prefix encoding; key rlp(index)).
 *
 * Why not @ethereumjs/mpt: putting items one by one into it re-hashed and re-stored every node on the path of
 * each insert, and it was the collector's largest single cost. A trie whose items are all known up front needs
 * each node hashed once. The library stays the reference: test/unit/integrity-trie.test.ts checks this root
 * against @ethereumjs/mpt for every size from 0 to 140 items and the key-length edges up to 300 and for random values.
 */
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from './keccak.js';

/** A trie node as an RLP item: a byte string, or a list (leaf/extension: 2 members; branch: 17). */
type RlpNode = Uint8Array | RlpNode[];
interface Item {
  nibbles: Uint8Array;
  value: Uint8Array;
}

const EMPTY = new Uint8Array(0);

/** Hex-prefix encoding of a nibble path (Yellow Paper Appendix C): flag 2 for a leaf, +1 for odd length. */
function hexPrefix(nibbles: Uint8Array, from: number, to: number, leaf: boolean): Uint8Array {
  const len = to - from;
  const odd = len % 2;
  const out = new Uint8Array(1 + (len >> 1));
  const flag = (leaf ? 2 : 0) + odd;
  out[0] = odd ? (flag << 4) | nibbles[from]! : flag << 4;
  for (let i = from + odd, j = 1; i < to; i += 2, j++) out[j] = (nibbles[i]! << 4) | nibbles[i + 1]!;
  return out;
}

/** How a parent refers to a child (Appendix D, c(J, i)): the node itself when its RLP is under 32 bytes, else its keccak256. */
function reference(node: RlpNode[]): RlpNode {
  const encoded = RLP.encode(node);
  return encoded.length < 32 ? node : keccak256(encoded);
}

/** The node holding `items` (non-empty, distinct keys) whose keys agree on their first `depth` nibbles. */
function node(items: Item[], depth: number): RlpNode[] {
  if (items.length === 1) {
    const { nibbles, value } = items[0]!;
    return [hexPrefix(nibbles, depth, nibbles.length, true), value];
  }
  // Extension: the nibbles every key shares from `depth` on.
  const first = items[0]!.nibbles;
  let shared = 0;
  for (;;) {
    const at = depth + shared;
    if (at >= first.length || items.some((it) => it.nibbles.length <= at || it.nibbles[at] !== first[at])) break;
    shared++;
  }
  if (shared > 0) return [hexPrefix(first, depth, depth + shared, false), reference(node(items, depth + shared))];
  // Branch: one slot per next nibble, and the value of a key that ends here.
  const buckets: Item[][] = Array.from({ length: 16 }, () => []);
  let value: Uint8Array = EMPTY;
  for (const it of items) {
    if (it.nibbles.length === depth) value = it.value;
    else buckets[it.nibbles[depth]!]!.push(it);
  }
  return [...buckets.map((b) => (b.length ? reference(node(b, depth + 1)) : EMPTY)), value];
}

/** The nibbles (half-bytes, high first) of a key. */
function nibblesOf(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  key.forEach((b, i) => ((out[2 * i] = b >> 4), (out[2 * i + 1] = b & 15)));
  return out;
}

/**
 * The Merkle-Patricia root of `values` keyed by rlp(index), as the header's transactionsRoot and receiptsRoot
 * commit to them.
 * @param values the items in block order (canonical encodings); each must be non-empty (an empty value is a
 *   deletion in a trie)
 * @returns the 32-byte root; for no items the empty-trie root keccak256(rlp("")) = 0x56e81f…b421
 */
export function orderedTrieRoot(values: readonly Uint8Array[]): Uint8Array {
  if (values.length === 0) return keccak256(RLP.encode(EMPTY));
  const items = values.map((value, i) => ({ nibbles: nibblesOf(RLP.encode(i)), value }));
  return keccak256(RLP.encode(node(items, 0)));
}
