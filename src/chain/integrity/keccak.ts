/**
 * keccak256 for the integrity hot path (transaction hashes, trie nodes, header hashes), from the `keccak`
 * package: its native binding hashes about 8× faster than the pure-JS @noble/hashes that ox and viem use, and
 * hashing was most of integrity's cost. Without a working binding the package falls back to its own JS
 * implementation, so the answer never depends on the platform. test/unit/integrity-trie.test.ts holds it to
 * ox's Hash.keccak256.
 */
import { createRequire } from 'node:module';

/** The sponge state behind the package's hash object (its native KeccakState, or the JS one it falls back to). */
interface SpongeState {
  initialize(rate: number, capacity: number): void;
  absorb(data: Buffer): void;
  squeeze(bytes: number): Buffer;
}
// A CommonJS package without bundled types: loaded with require and typed here with what is used.
const createKeccakHash = createRequire(import.meta.url)('keccak') as (algorithm: 'keccak256') => {
  update(data: Buffer): { digest(): Buffer };
  _state?: SpongeState;
};

/**
 * One sponge reused for every hash. The package's public API builds a stream object per hash, which cost twice
 * the hashing itself on short inputs; its state object has the same initialize/absorb/squeeze calls the API
 * makes (keccak256: rate 1088, capacity 512, 32 bytes out). Safe to share: hashing is synchronous, and each
 * worker thread loads its own copy of this module. Falls back to the public API if the state is not there.
 */
const sponge: SpongeState | null = (() => {
  const s = createKeccakHash('keccak256')._state;
  return s && typeof s.initialize === 'function' && typeof s.absorb === 'function' && typeof s.squeeze === 'function' ? s : null;
})();

/** keccak256 of a Buffer (the package takes Buffers only). */
function digest(data: Buffer): Buffer {
  if (!sponge) return createKeccakHash('keccak256').update(data).digest();
  sponge.initialize(1088, 512);
  sponge.absorb(data);
  return sponge.squeeze(32);
}

/**
 * keccak256 (the pre-standard Keccak Ethereum uses, not SHA3-256) of `data`.
 * @returns the 32-byte digest
 */
export function keccak256(data: Uint8Array): Uint8Array {
  // A view on the same memory, no copy.
  return digest(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
}

/**
 * keccak256 of 0x hex data, as 0x lower-case hex.
 * @throws TypeError when `hex` is not 0x-prefixed hex of whole bytes
 */
export function keccak256Hex(hex: string): `0x${string}` {
  // A plain character class and a length check: a repeated group backtracks over every byte of long encodings.
  if (hex.length % 2 !== 0 || !/^0x[0-9a-fA-F]*$/.test(hex)) throw new TypeError(`not 0x hex of whole bytes: ${hex.slice(0, 20)}`);
  return `0x${digest(Buffer.from(hex.slice(2), 'hex')).toString('hex')}`;
}

/**
 * keccak256 of unprefixed hex that the caller built itself (./rlp.ts output), as unprefixed lower-case hex.
 * Unchecked: `hex` must be whole bytes of hex digits (Buffer's decoder stops at the first non-hex pair).
 */
export function keccak256RawHex(hex: string): string {
  return digest(Buffer.from(hex, 'hex')).toString('hex');
}
