/**
 * What Tempo's consensus signs. Sources:
 * - namespace `TEMPO`: tempoxyz/tempo `crates/consensus/src/config.rs` (`NAMESPACE`);
 * - the suffixes `_NOTARIZE`, `_NULLIFY`, `_FINALIZE`, `_SEED` appended to it: commonwarexyz/monorepo
 *   `consensus/src/simplex/scheme/mod.rs` (`finalize_namespace`, `seed_namespace`);
 * - the signed bytes `varint(len(namespace)) || namespace || message`: commonware `utils/src/lib.rs`
 *   (`union_unique`), used by `cryptography/src/bls12381/primitives/ops/mod.rs` (`hash_with_namespace`);
 * - the vote's message is the encoded proposal, the seed's the encoded round (epoch, view):
 *   `consensus/src/simplex/scheme/bls12381_threshold/vrf.rs` (`verify_certificate`, `seed_message_from_subject`);
 * - hash-to-G1 with the MinSig message DST `BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_POP_`:
 *   `cryptography/src/bls12381/primitives/group.rs` (`G1_MESSAGE`) and `variant.rs` (`MinSig::MESSAGE`).
 */
import { varint } from './codec.js';

/** Tempo's consensus namespace. */
export const TEMPO_NAMESPACE = 'TEMPO';
/** The namespace of finalize votes: only these make a block final. */
export const FINALIZE_NAMESPACE = `${TEMPO_NAMESPACE}_FINALIZE`;
/** The namespace of notarize votes: the same proposal bytes, and never finality. */
export const NOTARIZE_NAMESPACE = `${TEMPO_NAMESPACE}_NOTARIZE`;
/** The namespace of the per-round seed (the VRF randomness every certificate carries). */
export const SEED_NAMESPACE = `${TEMPO_NAMESPACE}_SEED`;

/**
 * The hash-to-curve domain separation tag of MinSig signatures (signatures in G1, keys in G2), proof-of-possession
 * scheme. ox's and @noble/curves' default (`…_NUL_`) differs: with it a valid certificate does not verify.
 */
export const MINSIG_DST = 'BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_POP_';

/**
 * The bytes a signature covers: `varint(len(namespace)) || namespace || message` (commonware `union_unique`).
 * @example signedMessage(FINALIZE_NAMESPACE, proposal) // 0x0e 'TEMPO_FINALIZE' proposal…
 */
export function signedMessage(namespace: string, message: Uint8Array): Uint8Array {
  const ns = Buffer.from(namespace, 'utf8');
  const prefix = varint(ns.length);
  const out = new Uint8Array(prefix.length + ns.length + message.length);
  out.set(prefix, 0);
  out.set(ns, prefix.length);
  out.set(message, prefix.length + ns.length);
  return out;
}
