/**
 * Verifies that a block is final from Tempo's own signatures, in six ordered checks; the first that does not pass
 * decides the result and names the reason (docs/integrity.md, "Finality verified from Tempo's own signatures"):
 *
 * 1. certificate: the finalization certificate decodes exactly (./certificate.ts) and its two signatures are G1
 *    points (./bls.ts);
 * 2. epoch: its epoch is height / epoch length (./epochs.ts);
 * 3. payload: its payload is the block hash paywatch recomputed from the header (integrity stage 2,
 *    src/chain/integrity/header.ts), so it certifies the very header whose roots stage 2 checked;
 * 4. context: a post-T4 header's consensusContext (epoch, view, parentView) is the certificate's round (Tempo's
 *    proposers write it and validators check it: tempoxyz/tempo `crates/consensus/src/consensus/application/actor.rs`);
 * 5. key: a group key is held for the epoch, anchored (./key-chain.ts);
 * 6. signature: the vote (namespace TEMPO_FINALIZE, never TEMPO_NOTARIZE: a notarization is not finality) and the
 *    seed verify under that key (./messages.ts, ./bls.ts), as Tempo's reference verifier requires
 *    (tempoxyz/tempo `crates/consensus/src/finalization_verifier/mod.rs`, which checks 1, 3, 2, 5 and 6).
 *
 * `failed` means a check proved the certificate wrong for this block. `unknown` means it could not be judged: the
 * block hash was not recomputed (3), no key is held for the epoch (5), or a signature failed under a key held from
 * an earlier epoch whose boundary into this one was not followed (6: the key may have changed there).
 * Pure and synchronous: about one pairing product per certificate (bench/consensus.ts); never throws.
 */
import { shortMessage } from '../../domain/errors.js';
import { type G1Point, parseSignature, verifyCertificateSignatures } from './bls.js';
import { decodeFinalization, type Finalization } from './certificate.js';
import { epochOf } from './epochs.js';
import { type KeyChain, keyForEpoch } from './key-chain.js';
import { FINALIZE_NAMESPACE, SEED_NAMESPACE } from './messages.js';
import type { FinalityCheck, FinalityStatus, FinalityVerification } from './types.js';

/** A header's consensusContext round (src/chain/integrity/header.ts `readConsensusContext`), integers exact. */
export interface ContextRound {
  epoch: bigint | number;
  view: bigint | number;
  parentView: bigint | number;
}

/** One certificate and the block it should certify. */
export interface FinalityInput {
  /** The finalization certificate (`consensus_getFinalization`'s `certificate`): hex with or without 0x, or bytes. */
  certificate: string | Uint8Array;
  /** Height of the block it should certify. */
  height: number;
  /** The block hash paywatch recomputed from that block's header in integrity stage 2; null when it was not. */
  blockHash: string | null;
  /** That header's consensusContext (post-T4), or null when the header has none (before T4). */
  context: ContextRound | null;
}

/** What the checks need besides the certificate. */
export interface FinalityOptions {
  /** The group keys held (./key-chain.ts). */
  keyChain: KeyChain;
  /** Blocks per epoch (21,600 on mainnet, `--consensus-epoch-length`). */
  epochLength: number;
  /** The time written to `verified_at`; default now. */
  now?: Date;
}

/**
 * A result without a certificate to check (none served yet, or a node without `consensus_*`): unknown.
 * @param height the block the observation is in, when known
 * @example finalityUnknown('awaiting certificate', 812) // { status: 'unknown', check: null, reason: 'awaiting certificate', … }
 */
export function finalityUnknown(reason: string, height: number | null = null, now: Date = new Date()): FinalityVerification {
  return {
    status: 'unknown',
    check: null,
    reason,
    certificate_height: height,
    block_hash: null,
    epoch: null,
    view: null,
    parent_view: null,
    key_from_epoch: null,
    anchored: false,
    group_key: null,
    verified_at: now.toISOString(),
  };
}

/**
 * Runs checks 1–6 (see the module comment) on one certificate.
 * @example
 * verifyFinality({ certificate, height: 3, blockHash: '0x4177…', context: null }, { keyChain, epochLength: 10 })
 * // { status: 'verified', check: null, certificate_height: 3, epoch: 0, view: 4, key_from_epoch: 0, anchored: true, … }
 * @returns the result; never throws
 */
export function verifyFinality(input: FinalityInput, options: FinalityOptions): FinalityVerification {
  try {
    return checks(input, options);
  } catch (e) {
    // Only input outside its types gets here (a hand-made key chain, a context member that is no integer).
    const height = Number.isSafeInteger(input?.height) ? input.height : null;
    return finalityUnknown(`the checks could not run: ${String((e as Error)?.message ?? e).slice(0, 200)}`, height, options?.now);
  }
}

/** Checks 1–6; may throw only on input outside its types (verifyFinality catches it). */
function checks(input: FinalityInput, options: FinalityOptions): FinalityVerification {
  const now = options.now ?? new Date();
  const height = input.height;
  let f: Finalization | null = null;
  let keyFromEpoch: number | null = null;
  let groupKey: `0x${string}` | null = null;
  let anchored = false;
  const result = (status: FinalityStatus, check: FinalityCheck | null, reason: string): FinalityVerification => ({
    status,
    check,
    reason,
    certificate_height: height,
    block_hash: f?.payload ?? null,
    epoch: f?.epoch ?? null,
    view: f?.view ?? null,
    parent_view: f?.parentView ?? null,
    key_from_epoch: keyFromEpoch,
    anchored,
    group_key: groupKey,
    verified_at: now.toISOString(),
  });

  // 1. The certificate decodes exactly, both signatures included.
  let vote: G1Point;
  let seed: G1Point;
  try {
    f = decodeFinalization(input.certificate);
    vote = parseSignature(f.voteSignature, 'vote signature');
    seed = parseSignature(f.seedSignature, 'seed signature');
  } catch (e) {
    f = null;
    return result('failed', 'certificate', `the certificate does not decode: ${shortMessage(e)}`);
  }

  // 2. Its epoch is the height's.
  if (!Number.isSafeInteger(height) || height < 0)
    return result('unknown', 'epoch', `block height ${height} is not a non-negative integer`);
  let expected: number;
  try {
    expected = epochOf(height, options.epochLength);
  } catch (e) {
    return result('unknown', 'epoch', shortMessage(e));
  }
  if (f.epoch !== expected)
    return result(
      'failed',
      'epoch',
      `the certificate's epoch ${f.epoch} is not block ${height}'s epoch ${expected} (epoch length ${options.epochLength})`,
    );

  // 3. Its payload is the block hash recomputed from the header.
  if (input.blockHash === null)
    return result(
      'unknown',
      'payload',
      `block ${height}'s hash was not recomputed from its header, so the certificate cannot be tied to it`,
    );
  const blockHash = input.blockHash.toLowerCase();
  if (f.payload !== blockHash)
    return result('failed', 'payload', `the certificate finalizes ${f.payload}, not block ${height}'s recomputed hash ${blockHash}`);

  // 4. A post-T4 header's consensusContext is the certificate's round.
  if (input.context !== null) {
    const c = input.context;
    const header = [BigInt(c.epoch), BigInt(c.view), BigInt(c.parentView)];
    const certificate = [BigInt(f.epoch), BigInt(f.view), BigInt(f.parentView)];
    if (header.some((v, i) => v !== certificate[i]))
      return result(
        'failed',
        'context',
        `block ${height}'s consensusContext (epoch ${header[0]}, view ${header[1]}, parent view ${header[2]}) is not the certificate's round (epoch ${f.epoch}, view ${f.view}, parent view ${f.parentView})`,
      );
  }

  // 5. A group key is held for the epoch, anchored.
  const held = keyForEpoch(options.keyChain, f.epoch);
  if (held === null)
    return result(
      'unknown',
      'key',
      `no group key is held for epoch ${f.epoch}: the anchor (${options.keyChain.anchor_source}) is from epoch ${options.keyChain.keys[0]!.from_epoch}`,
    );
  keyFromEpoch = held.fromEpoch;
  groupKey = held.key.hex;
  anchored = true;

  // 6. The vote (TEMPO_FINALIZE) and the seed verify under it.
  const failing = verifyCertificateSignatures(
    held.key,
    { namespace: FINALIZE_NAMESPACE, message: f.proposal, signature: vote },
    { namespace: SEED_NAMESPACE, message: f.round, signature: seed },
  );
  if (failing !== null) {
    const what = `the ${failing} signature (${failing === 'vote' ? FINALIZE_NAMESPACE : SEED_NAMESPACE}) does not verify under the group key held from epoch ${held.fromEpoch}`;
    if (held.confirmed) return result('failed', 'signature', what);
    return result(
      'unknown',
      'signature',
      `${what}; the key may have changed at a boundary after epoch ${held.fromEpoch} that was not followed`,
    );
  }
  return result(
    'verified',
    null,
    `finalization certificate for block ${height} (epoch ${f.epoch}, view ${f.view}) verified under the group key held from epoch ${held.fromEpoch}, anchored at ${options.keyChain.anchor_source}`,
  );
}
