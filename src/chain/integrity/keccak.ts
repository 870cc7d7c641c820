/**
 * keccak256 for the integrity hot path (transaction hashes, trie nodes, header hashes), from the `keccak`
 * package: its native binding hashes about 8× faster than the pure-JS @noble/hashes that ox and viem use, and
 * hashing was most of integrity's cost. Without a working binding the package falls back to its own JS
 * implementation, so the answer never depends on the platform. test/unit/integrity-trie.test.ts holds it to
 * ox's Hash.keccak256.
 */
import { createRequire } from 'node:module';

// A CommonJS package without bundled types: loaded with require and typed here with what is used.
const createKeccakHash = createRequire(import.meta.url)('keccak') as (algorithm: 'keccak256') => {
  update(data: Buffer): { digest(): Buffer };
};

/**
 * keccak256 (the pre-standard Keccak Ethereum uses, not SHA3-256) of `data`.
 * @returns the 32-byte digest
 */
export function keccak256(data: Uint8Array): Uint8Array {
  // The package takes Buffers only: a view on the same memory, no copy.
  return createKeccakHash('keccak256').update(Buffer.from(data.buffer, data.byteOffset, data.byteLength)).digest();
}

/**
 * keccak256 of 0x hex data, as 0x lower-case hex.
 * @throws TypeError when `hex` is not 0x-prefixed hex of whole bytes
 */
export function keccak256Hex(hex: string): `0x${string}` {
  // A plain character class and a length check: a repeated group backtracks over every byte of long encodings.
  if (hex.length % 2 !== 0 || !/^0x[0-9a-fA-F]*$/.test(hex)) throw new TypeError(`not 0x hex of whole bytes: ${hex.slice(0, 20)}`);
  return `0x${createKeccakHash('keccak256').update(Buffer.from(hex.slice(2), 'hex')).digest().toString('hex')}`;
}
