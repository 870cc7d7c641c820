/**
 * The root of a block's transactions or receipts trie, built in one pass from all its items (Ethereum Yellow
 * Paper §4.3 and Appendix D: Merkle-Patricia trie; Appendix C: hex-prefix encoding; key rlp(index)).
 *
 * Why not @ethereumjs/mpt: putting items one by one into it re-hashed and re-stored every node on the path of
 * each insert, and it was the collector's largest single cost. A trie whose items are all known up front needs
 * each node hashed once. Values are byte arrays (views of ./rlp-writer.ts's buffer, not copied); a node is a list
 * of byte parts whose concatenation is its RLP, hashed once. Keys are kept as hex (a key's hex digits are its
 * nibbles, so paths are substrings). The library stays the reference:
 * test/chain/integrity-trie.test.ts checks this root against @ethereumjs/mpt for every size from 0 to 140 items
 * and the key-length edges up to 300 and for random values.
 */
import { keccak256 } from './keccak.js';
import { rlpString } from './rlp.js';

/** An item: its key's nibbles (the hex digits of rlp(index)) and its value. */
interface Item {
  nibbles: string;
  value: Uint8Array;
}

/** A node's RLP as byte parts whose concatenation is the encoding (a leaf's value, often kilobytes, is not copied). */
type Parts = Uint8Array[];

const EMPTY_STRING = Uint8Array.of(0x80);

/** Hex-prefix encoding of a nibble path (Yellow Paper Appendix C), as the RLP string of it: flag 2 for a leaf, +1 for odd length. */
function pathString(path: string, leaf: boolean): Uint8Array {
  const flag = leaf ? 2 : 0;
  return Buffer.from(rlpString(path.length % 2 ? `${flag + 1}${path}` : `${flag}0${path}`), 'hex');
}

/** An RLP length prefix for `length` payload bytes: `offset` 0x80 for a byte string, 0xc0 for a list. */
function header(length: number, offset: 0x80 | 0xc0): Uint8Array {
  if (length < 56) return Uint8Array.of(offset + length);
  const bytes: number[] = [];
  for (let l = length; l > 0; l = Math.floor(l / 256)) bytes.unshift(l % 256);
  return Uint8Array.from([offset + 55 + bytes.length, ...bytes]);
}

/** Length in bytes of the concatenation of `parts`. */
function partsLength(parts: Parts): number {
  let n = 0;
  for (const p of parts) n += p.length;
  return n;
}

/** Where a node's parts are joined to be hashed: grown on demand, reused (hashing is synchronous). */
let scratch = Buffer.allocUnsafe(1 << 16);

/** keccak256 of the concatenation of `parts`, joined in the reused buffer (one hash call per node). */
function hashParts(parts: Parts): Uint8Array {
  const n = partsLength(parts);
  if (n > scratch.length) scratch = Buffer.allocUnsafe(n * 2);
  let at = 0;
  for (const p of parts) {
    scratch.set(p, at);
    at += p.length;
  }
  return keccak256(scratch.subarray(0, n));
}

/** How a parent refers to a child (Appendix D, c(J, i)): the node itself when its RLP is under 32 bytes, else rlp(keccak256). */
function reference(parts: Parts): Parts {
  if (partsLength(parts) < 32) return parts;
  const ref = new Uint8Array(33);
  ref[0] = 0xa0;
  ref.set(hashParts(parts), 1);
  return [ref];
}

/** `members` (each already RLP, as parts) as one list's parts. */
function list(members: Parts): Parts {
  return [header(partsLength(members), 0xc0), ...members];
}

/** The RLP string of `value`: a single byte below 0x80 is itself, anything else is prefixed by its length. */
function stringParts(value: Uint8Array): Parts {
  return value.length === 1 && value[0]! < 0x80 ? [value] : [header(value.length, 0x80), value];
}

/** The RLP (as Parts) of the node holding `items` (non-empty, distinct keys) whose keys agree on their first `depth` nibbles. */
function node(items: Item[], depth: number): Parts {
  if (items.length === 1) {
    const { nibbles, value } = items[0]!;
    return list([pathString(nibbles.slice(depth), true), ...stringParts(value)]);
  }
  // Extension: the nibbles every key shares from `depth` on.
  const first = items[0]!.nibbles;
  let shared = 0;
  for (;;) {
    const at = depth + shared;
    if (at >= first.length || items.some((it) => it.nibbles.length <= at || it.nibbles[at] !== first[at])) break;
    shared++;
  }
  if (shared > 0) return list([pathString(first.slice(depth, depth + shared), false), ...reference(node(items, depth + shared))]);
  // Branch: one slot per next nibble, and the value of a key that ends here.
  const buckets: Item[][] = Array.from({ length: 16 }, () => []);
  let value: Uint8Array | null = null;
  for (const it of items) {
    if (it.nibbles.length === depth) value = it.value;
    else buckets[Number.parseInt(it.nibbles[depth]!, 16)]!.push(it);
  }
  const members: Parts = [];
  for (const b of buckets) {
    if (b.length) members.push(...reference(node(b, depth + 1)));
    else members.push(EMPTY_STRING);
  }
  members.push(...(value ? stringParts(value) : [EMPTY_STRING]));
  return list(members);
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
 * @param values the items in block order (canonical encodings); each must be non-empty (an empty value is a
 *   deletion in a trie)
 * @returns the 32-byte root; for no items the empty-trie root keccak256(rlp("")) = 56e81f…b421
 */
export function orderedTrieRoot(values: readonly Uint8Array[]): Uint8Array {
  if (values.length === 0) return keccak256(EMPTY_STRING);
  return hashParts(
    node(
      values.map((value, i) => ({ nibbles: rlpIndex(i), value })),
      0,
    ),
  );
}
