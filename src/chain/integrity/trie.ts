/**
 * The root of a block's transactions or receipts trie, built in one pass from all its items (Ethereum Yellow
 * Paper §4.3 and Appendix D: Merkle-Patricia trie; Appendix C: hex-prefix encoding; key rlp(index)).
 *
 * Why not @ethereumjs/mpt: putting items one by one into it re-hashed and re-stored every node on the path of
 * each insert, and it was the collector's largest single cost. A trie whose items are all known up front needs
 * each node hashed once. Nodes are built as hex strings (./rlp.ts): a key's hex digits are its nibbles, so paths
 * are substrings, and each node is converted to bytes once, when it is hashed. The library stays the reference:
 * test/chain/integrity-trie.test.ts checks this root against @ethereumjs/mpt for every size from 0 to 140 items
 * and the key-length edges up to 300 and for random values.
 */
import { keccak256RawHex, keccak256RawHexParts } from './keccak.js';
import { rlpList, rlpListHeader, rlpString, rlpStringHeader } from './rlp.js';

/** An item: its key's nibbles (the hex digits of rlp(index)) and its value (unprefixed hex). */
interface Item {
  nibbles: string;
  value: string;
}

/** Hex-prefix encoding of a nibble path (Yellow Paper Appendix C): flag 2 for a leaf, +1 for odd length. */
function hexPrefix(path: string, leaf: boolean): string {
  const flag = leaf ? 2 : 0;
  return path.length % 2 ? `${flag + 1}${path}` : `${flag}0${path}`;
}

/**
 * A node's RLP as hex parts whose concatenation is the encoding: a leaf keeps its value (a whole transaction or
 * receipt, often kilobytes) apart, so it is hashed without being copied into one long string first.
 */
type Parts = readonly string[];

/** Length in hex digits of the concatenation of `parts`. */
function partsLength(parts: Parts): number {
  let n = 0;
  for (const p of parts) n += p.length;
  return n;
}

/** How a parent refers to a child (Appendix D, c(J, i)): the node itself when its RLP is under 32 bytes, else its keccak256. */
function reference(parts: Parts): string {
  return partsLength(parts) < 64 ? parts.join('') : `a0${keccak256RawHexParts(parts)}`;
}

/** The RLP (as Parts) of the node holding `items` (non-empty, distinct keys) whose keys agree on their first `depth` nibbles. */
function node(items: Item[], depth: number): Parts {
  if (items.length === 1) {
    const { nibbles, value } = items[0]!;
    const path = rlpString(hexPrefix(nibbles.slice(depth), true));
    const valueHeader = rlpStringHeader(value);
    return [rlpListHeader((path.length + valueHeader.length + value.length) / 2) + path + valueHeader, value];
  }
  // Extension: the nibbles every key shares from `depth` on.
  const first = items[0]!.nibbles;
  let shared = 0;
  for (;;) {
    const at = depth + shared;
    if (at >= first.length || items.some((it) => it.nibbles.length <= at || it.nibbles[at] !== first[at])) break;
    shared++;
  }
  if (shared > 0)
    return [rlpList([rlpString(hexPrefix(first.slice(depth, depth + shared), false)), reference(node(items, depth + shared))])];
  // Branch: one slot per next nibble, and the value of a key that ends here.
  const buckets: Item[][] = Array.from({ length: 16 }, () => []);
  let value = '';
  for (const it of items) {
    if (it.nibbles.length === depth) value = it.value;
    else buckets[Number.parseInt(it.nibbles[depth]!, 16)]!.push(it);
  }
  return [rlpList([...buckets.map((b) => (b.length ? reference(node(b, depth + 1)) : '80')), rlpString(value)])];
}

/** The hex of rlp(i) for a non-negative integer index. */
function rlpIndex(i: number): string {
  if (i === 0) return '80';
  let h = i.toString(16);
  if (h.length % 2) h = `0${h}`;
  return rlpString(h);
}

/**
 * The Merkle-Patricia root of `values` keyed by rlp(index), as the header's transactionsRoot and receiptsRoot
 * commit to them.
 * @param values the items in block order (canonical encodings) as unprefixed lower-case hex; each must be
 *   non-empty (an empty value is a deletion in a trie)
 * @returns the 32-byte root as unprefixed lower-case hex; for no items the empty-trie root
 *   keccak256(rlp("")) = 56e81f…b421
 */
export function orderedTrieRootHex(values: readonly string[]): string {
  if (values.length === 0) return keccak256RawHex('80');
  return keccak256RawHexParts(
    node(
      values.map((value, i) => ({ nibbles: rlpIndex(i), value })),
      0,
    ),
  );
}

/**
 * orderedTrieRootHex for byte arrays.
 * @returns the 32-byte root
 */
export function orderedTrieRoot(values: readonly Uint8Array[]): Uint8Array {
  return Buffer.from(orderedTrieRootHex(values.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex'))), 'hex');
}
