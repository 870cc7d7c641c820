/**
 * Tempo's finalization certificate, as `consensus_getFinalization` serves it (hex, tempoxyz/tempo
 * `crates/consensus/src/feed/state.rs`: `hex::encode(finalization.encode())`): commonware's simplex
 * `Finalization` with the BLS12-381 threshold VRF scheme, variant MinSig (commonwarexyz/monorepo
 * `consensus/src/simplex/types.rs` `Finalization`, `Proposal`; `consensus/src/types.rs` `Round`, `Epoch`, `View`;
 * `consensus/src/simplex/scheme/bls12381_threshold/vrf.rs` `Signature`):
 *
 *   proposal = varint(epoch) || varint(view) || varint(parent_view) || payload[32]
 *   certificate = proposal || vote_signature[48] || seed_signature[48]
 *
 * The payload is the certified block's hash. Decoding is exact, as commonware's `decode`: missing or trailing
 * bytes are errors.
 */
import { ByteReader, bytesOf, hexOf } from './codec.js';

/** Bytes of a compressed G1 point (a MinSig signature). */
export const SIGNATURE_BYTES = 48;
/** Bytes of the payload (a block hash). */
export const PAYLOAD_BYTES = 32;
/** The longest certificate: three 10-byte varints, the payload and two signatures. */
export const CERTIFICATE_MAX_BYTES = 3 * 10 + PAYLOAD_BYTES + 2 * SIGNATURE_BYTES;

/** A decoded finalization certificate. Signatures are still bytes: ./bls.ts turns them into points. */
export interface Finalization {
  epoch: number;
  view: number;
  parentView: number;
  /** The certified block's hash, 0x lower-case hex. */
  payload: `0x${string}`;
  /** The encoded proposal: what the finalize vote signs (./messages.ts). */
  proposal: Uint8Array;
  /** The encoded round, varint(epoch) || varint(view): what the seed signs. */
  round: Uint8Array;
  /** The recovered threshold signature over the proposal, compressed G1. */
  voteSignature: Uint8Array;
  /** The recovered threshold signature over the round (the seed), compressed G1. */
  seedSignature: Uint8Array;
}

/**
 * Decodes a finalization certificate.
 * @param input hex (with or without 0x) or bytes
 * @example decodeFinalization('000403417754…') // { epoch: 0, view: 4, parentView: 3, payload: '0x417754…', … }
 * @throws ConsensusDecodeError naming what is missing, malformed or left over
 */
export function decodeFinalization(input: string | Uint8Array): Finalization {
  const bytes = bytesOf(input, 'certificate', CERTIFICATE_MAX_BYTES);
  const r = new ByteReader(bytes, 'certificate');
  const epoch = r.varint('epoch');
  const view = r.varint('view');
  const roundEnd = r.offset;
  const parentView = r.varint('parent view');
  const payload = hexOf(r.take(PAYLOAD_BYTES, 'payload'));
  const proposalEnd = r.offset;
  const voteSignature = r.take(SIGNATURE_BYTES, 'vote signature');
  const seedSignature = r.take(SIGNATURE_BYTES, 'seed signature');
  r.end();
  return {
    epoch,
    view,
    parentView,
    payload,
    proposal: bytes.subarray(0, proposalEnd),
    round: bytes.subarray(0, roundEnd),
    voteSignature,
    seedSignature,
  };
}
