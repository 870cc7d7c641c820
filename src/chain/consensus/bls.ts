/**
 * BLS12-381 for Tempo's certificates, MinSig variant (signatures in G1, 48 bytes compressed; the group key in
 * G2, 96 bytes compressed), through ox's `Bls` (its `noble` member is @noble/curves' bls12_381).
 *
 * A certificate carries two signatures by the same key: the vote over the proposal and the seed over the round.
 * Tempo's reference verifier accepts a certificate only when both verify (tempoxyz/tempo
 * `crates/consensus/src/finalization_verifier/mod.rs` → commonware `Finalization::verify` →
 * `bls12381_threshold/vrf.rs` `verify_certificate`, one batch `verify_same_signer`). They are checked here the same
 * way, in one pairing product with a random 128-bit weight r:
 *   e(H(vote) + r·H(seed), key) · e(vote_sig + r·seed_sig, −G2) == 1
 * which costs about one plain verification; only when it fails is the vote checked alone, to name the failing
 * signature. test/chain/consensus-vectors.test.ts holds the answers to ox's `Bls.verify`.
 *
 * Points are decoded with their checks (on the curve, in the prime-order subgroup) and the point at infinity is
 * refused, as commonware's `group.rs` does. Parsed keys are kept (the 32 last used), so @noble/curves' memoized pairing
 * precomputation for the key is reused across certificates.
 */
import { shortMessage } from '../../domain/errors.js';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as Bls from 'ox/Bls';
import { bytesOf, hexOf } from './codec.js';
import { ConsensusDecodeError } from './errors.js';
import { MINSIG_DST, signedMessage } from './messages.js';

/** @noble/curves' bls12_381 on first use (required: callers are synchronous): its import costs ~0.3 s of CPU. */
let curve: typeof Bls.noble | undefined;
const bls = (): typeof Bls.noble => (curve ??= (createRequire(import.meta.url)('ox/Bls') as typeof Bls).noble);
/** A G1 point (a signature or a hashed message). */
export type G1Point = ReturnType<typeof Bls.noble.G1.ProjectivePoint.fromHex>;
/** A G2 point (a group key). */
export type G2Point = ReturnType<typeof Bls.noble.G2.ProjectivePoint.fromHex>;

/** Bytes of a compressed G2 point (a MinSig group key, the network identity). */
export const GROUP_KEY_BYTES = 96;
const DST = { DST: MINSIG_DST };
/** −G2 generator, one object: its pairing precomputation is memoized by @noble/curves. */
let negG2: G2Point | undefined;

/** A parsed group key: its canonical hex and the point. */
export interface GroupKey {
  /** 0x lower-case hex of the 96-byte compressed point. */
  hex: `0x${string}`;
  point: G2Point;
}

const keys = new Map<string, GroupKey>();
const KEPT_KEYS = 32;

/**
 * A compressed G2 group key.
 * @example parseGroupKey('0xa217bb85…') // { hex: '0xa217bb85…', point }
 * @throws ConsensusDecodeError when not 96 bytes, not on the curve, not in the subgroup, or the point at infinity
 */
export function parseGroupKey(input: string | Uint8Array): GroupKey {
  const bytes = bytesOf(input, 'group key', GROUP_KEY_BYTES);
  if (bytes.length !== GROUP_KEY_BYTES) throw new ConsensusDecodeError('group key', `is ${bytes.length} bytes, not ${GROUP_KEY_BYTES}`);
  const hex = hexOf(bytes);
  const kept = keys.get(hex);
  if (kept) {
    // Least recently used goes first: a DKG outcome's many coefficients never push out the key in use.
    keys.delete(hex);
    keys.set(hex, kept);
    return kept;
  }
  let point: G2Point;
  try {
    point = bls().G2.ProjectivePoint.fromHex(bytes);
  } catch (e) {
    throw new ConsensusDecodeError('group key', `is not a G2 point: ${shortMessage(e)}`);
  }
  if (point.equals(bls().G2.ProjectivePoint.ZERO)) throw new ConsensusDecodeError('group key', 'is the point at infinity');
  const key = { hex, point };
  if (keys.size >= KEPT_KEYS) keys.delete(keys.keys().next().value!);
  keys.set(hex, key);
  return key;
}

/**
 * A compressed G1 signature.
 * @param name which signature, for the error ("vote signature", "seed signature")
 * @throws ConsensusDecodeError when not 48 bytes, not on the curve, not in the subgroup, or the point at infinity
 */
export function parseSignature(bytes: Uint8Array, name: string): G1Point {
  if (bytes.length !== 48) throw new ConsensusDecodeError('signature', `${name} is ${bytes.length} bytes, not 48`);
  let point: G1Point;
  try {
    point = bls().G1.ProjectivePoint.fromHex(bytes);
  } catch (e) {
    throw new ConsensusDecodeError('signature', `${name} is not a G1 point: ${shortMessage(e)}`);
  }
  if (point.equals(bls().G1.ProjectivePoint.ZERO)) throw new ConsensusDecodeError('signature', `${name} is the point at infinity`);
  return point;
}

/** One signature to check: the namespace, the message (./messages.ts) and the signature point. */
export interface SignedItem {
  namespace: string;
  message: Uint8Array;
  signature: G1Point;
}

/** H(varint(len(ns)) || ns || message) in G1 under the MinSig DST. */
function hashed(item: SignedItem): G1Point {
  return bls().G1.hashToCurve(signedMessage(item.namespace, item.message), DST) as unknown as G1Point;
}

/** e(h, key) · e(sig, −G2) == 1; false when a point is at infinity (@noble/curves refuses to pair it). */
function pairs(h: G1Point, key: G2Point, signature: G1Point): boolean {
  negG2 ??= bls().G2.ProjectivePoint.BASE.negate();
  try {
    return bls().fields.Fp12.eql(
      bls().pairingBatch([
        { g1: h, g2: key },
        { g1: signature, g2: negG2 },
      ]),
      bls().fields.Fp12.ONE,
    );
  } catch {
    return false;
  }
}

/** A uniformly random non-zero 128-bit weight. */
function weight(): bigint {
  for (;;) {
    const r = BigInt(`0x${randomBytes(16).toString('hex')}`);
    if (r !== 0n) return r;
  }
}

/**
 * Checks one signature by a group key.
 * @returns true when `item.signature` is the key's signature of the item's signed message
 */
export function verifySignature(key: GroupKey, item: SignedItem): boolean {
  return pairs(hashed(item), key.point, item.signature);
}

/**
 * Checks a certificate's two signatures by one group key, batched (see the module comment).
 * @returns null when both verify; else which one does not ('vote' when the vote fails, whatever the seed)
 */
export function verifyCertificateSignatures(key: GroupKey, vote: SignedItem, seed: SignedItem): 'vote' | 'seed' | null {
  const hv = hashed(vote);
  const hs = hashed(seed);
  const r = weight();
  if (pairs(hv.add(hs.multiplyUnsafe(r)), key.point, vote.signature.add(seed.signature.multiplyUnsafe(r)))) return null;
  return pairs(hv, key.point, vote.signature) ? 'seed' : 'vote';
}
