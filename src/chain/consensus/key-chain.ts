/**
 * The group keys a verifier holds, epoch by epoch, anchored at a trusted DKG outcome (mainnet's genesis by
 * default) and followed across epoch boundaries: each epoch's last block carries the next epoch's
 * `OnchainDkgOutcome` (./dkg-outcome.ts), and its key is taken only when that boundary block's own certificate
 * verified under the key held for its epoch. So every key held chains back to the anchor (anchored). This is how
 * Tempo's reference follower does it (tempoxyz/tempo `crates/consensus/src/finalized_header_stream/mod.rs`,
 * `register_boundaries`; `finalization_verifier/mod.rs`).
 *
 * The group key changes only on a full DKG; a reshare keeps it (commonware `Sharing::public` is the polynomial's
 * constant term). A key held from epoch k therefore serves later epochs until another is announced, as Tempo's
 * verifier uses its network identity for every epoch from its first (`decode_and_verify`). Whether a later
 * epoch's key has been confirmed by its own boundary is kept apart (`confirmed`): a signature that fails under a
 * key not confirmed for the epoch is unknown, not failed (./verify.ts), since the key may have changed there.
 *
 * Pure: the state is plain JSON (`KeyChain`), passed in and returned, so a store can keep it
 * (`restoreKeyChain` reads it back). Key changes are rare and confirmations are kept as epoch ranges, so it stays
 * small (one entry per key, one range per unbroken run of followed boundaries).
 */
import { shortMessage } from '../../domain/errors.js';
import { z } from 'zod';
import { parseGroupKey, type GroupKey } from './bls.js';
import { ConsensusDecodeError } from './errors.js';
import { type DkgOutcome, parseDkgOutcome } from './dkg-outcome.js';
import { epochOf, isBoundary } from './epochs.js';
import { MAINNET_GENESIS_OUTCOME } from './mainnet.js';
import type { FinalityVerification } from './types.js';

const hex96 = z.string().regex(/^0x[0-9a-f]{192}$/);
const hash32 = z.string().regex(/^0x[0-9a-f]{64}$/);
const epochNumber = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/** One group key and where it came from. */
const heldKeySchema = z.strictObject({
  /** The first epoch it verifies. */
  from_epoch: epochNumber,
  /** The compressed G2 key, 0x lower-case hex. */
  key: hex96,
  /** The boundary block that announced it (null for the anchor). */
  announced_by: z
    .strictObject({
      height: epochNumber,
      hash: hash32,
      /** key_from_epoch of that block's own certificate: the key it verified under. */
      certified_under: epochNumber,
    })
    .nullable(),
});

const keyChainSchema = z.strictObject({
  version: z.literal(1),
  /** What the anchor is, for people: "mainnet genesis" or "configured outcome". */
  anchor_source: z.string().max(200),
  /** Ascending from_epoch; the first is the anchor. */
  keys: z.array(heldKeySchema).min(1),
  /** Epoch ranges [first, last] whose key is confirmed (the anchor's epoch, then each followed boundary's next epoch), ascending, disjoint. */
  confirmed: z.array(z.tuple([epochNumber, epochNumber])),
});

/** The state: plain JSON, kept by the caller (see the module comment). */
export type KeyChain = z.infer<typeof keyChainSchema>;

/**
 * A key chain anchored at one DKG outcome: its group key holds from its epoch on.
 * @param outcome the trusted outcome (a genesis `extraData`, `--consensus-genesis`), parsed or as hex/bytes
 * @param source what it is, for people (kept in the state)
 * @example anchorKeyChain(MAINNET_GENESIS_OUTCOME, 'mainnet genesis').keys[0] // { from_epoch: 0, key: '0xa217…', announced_by: null }
 * @throws ConsensusDecodeError when the outcome does not decode
 */
export function anchorKeyChain(outcome: DkgOutcome | string | Uint8Array, source = 'configured outcome'): KeyChain {
  const o = typeof outcome === 'string' || outcome instanceof Uint8Array ? parseDkgOutcome(outcome) : outcome;
  return {
    version: 1,
    anchor_source: source.slice(0, 200),
    keys: [{ from_epoch: o.epoch, key: o.groupKey, announced_by: null }],
    confirmed: [[o.epoch, o.epoch]],
  };
}

/** Mainnet's key chain, anchored at its genesis outcome (./mainnet.ts). */
export function mainnetKeyChain(): KeyChain {
  return anchorKeyChain(MAINNET_GENESIS_OUTCOME, 'mainnet genesis (tempoxyz/tempo crates/chainspec/src/genesis/presto.json)');
}

/**
 * Reads back a stored key chain, checking its shape and every key.
 * @throws ConsensusDecodeError (item "key chain") when it is not one
 */
export function restoreKeyChain(stored: unknown): KeyChain {
  const parsed = keyChainSchema.safeParse(stored);
  if (!parsed.success) throw new ConsensusDecodeError('key chain', `is malformed: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const chain = parsed.data;
  for (let i = 1; i < chain.keys.length; i++) {
    if (chain.keys[i]!.from_epoch <= chain.keys[i - 1]!.from_epoch)
      throw new ConsensusDecodeError('key chain', 'has keys out of epoch order');
  }
  for (let i = 0; i < chain.confirmed.length; i++) {
    const [a, b] = chain.confirmed[i]!;
    if (a > b || (i > 0 && a <= chain.confirmed[i - 1]![1] + 1))
      throw new ConsensusDecodeError('key chain', 'has confirmed epochs out of order');
  }
  for (const k of chain.keys) parseGroupKey(k.key);
  return chain;
}

/** The key held for an epoch (./verify.ts, check 5). */
export interface HeldKey {
  /** The epoch from which this key is held. */
  fromEpoch: number;
  key: GroupKey;
  /** True when this epoch's own key was confirmed (the anchor's epoch, or its boundary was followed). */
  confirmed: boolean;
}

/** True when the epoch lies in a confirmed range. */
function isConfirmed(chain: KeyChain, epoch: number): boolean {
  return chain.confirmed.some(([a, b]) => a <= epoch && epoch <= b);
}

/**
 * The group key that verifies an epoch's certificates: the last key held from that epoch or before.
 * @returns null when the epoch is before the anchor's
 * @example keyForEpoch(mainnetKeyChain(), 1176) // { fromEpoch: 0, key, confirmed: false }
 */
export function keyForEpoch(chain: KeyChain, epoch: number): HeldKey | null {
  let held: KeyChain['keys'][number] | null = null;
  for (const k of chain.keys) if (k.from_epoch <= epoch) held = k;
  if (held === null) return null;
  return { fromEpoch: held.from_epoch, key: parseGroupKey(held.key), confirmed: isConfirmed(chain, epoch) };
}

/** Adds one epoch to the confirmed ranges (merging neighbours). */
function confirm(ranges: KeyChain['confirmed'], epoch: number): KeyChain['confirmed'] {
  const all = [...ranges, [epoch, epoch] as [number, number]].sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [a, b] of all) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/** A boundary block as the caller collected it. */
export interface BoundaryBlock {
  height: number;
  /** The block hash paywatch recomputed from the header (integrity stage 2): it binds `extraData`. */
  hash: string;
  /** The header's `extraData` (0x hex): the next epoch's DKG outcome. */
  extraData: string;
}

/** What acceptBoundary did. */
export interface BoundaryAcceptance {
  /** The new state (the same object when nothing changed). */
  chain: KeyChain;
  /** True when the boundary's outcome is now part of the chain (newly, or it was already). */
  accepted: boolean;
  /** True when it announced a key other than the one held (a full DKG). */
  keyChanged: boolean;
  /** The epoch it announces, when its outcome decoded. */
  epoch: number | null;
  reason: string;
}

/**
 * Follows one epoch boundary: takes the next epoch's group key from a boundary block's `extraData`, provided the
 * block's own finalization certificate verified (./verify.ts) under the key held for its epoch.
 *
 * Accepted when: the height is its epoch's last block; `verification` is `verified`, anchored, for this height
 * and for this block hash, under this chain's key for the epoch; `extraData` decodes as an outcome for the next epoch; and it does not contradict a key
 * already held for that epoch. A new key after a later key already held (boundaries followed out of order) is
 * refused: follow boundaries in ascending order.
 *
 * @param boundary the block; the caller must pass the hash recomputed from the very header `extraData` was read
 *   from (integrity stage 2), which is what ties the outcome to the certificate
 * @param verification verifyFinality's result for that block's certificate
 * @param epochLength blocks per epoch (21,600 on mainnet)
 * @example acceptBoundary(chain, { height: 21599, hash, extraData }, verification, 21600).accepted // true
 */
export function acceptBoundary(
  chain: KeyChain,
  boundary: BoundaryBlock,
  verification: FinalityVerification,
  epochLength: number,
): BoundaryAcceptance {
  const refuse = (reason: string, epoch: number | null = null): BoundaryAcceptance => ({
    chain,
    accepted: false,
    keyChanged: false,
    epoch,
    reason,
  });
  const { height } = boundary;
  if (!Number.isSafeInteger(height) || height < 0 || !isBoundary(height, epochLength))
    return refuse(`block ${height} is not the last block of its epoch (epoch length ${epochLength})`);
  const hash = boundary.hash.toLowerCase();
  if (verification.status !== 'verified' || !verification.anchored)
    return refuse(`the certificate of boundary block ${height} is not verified (${verification.status}: ${verification.reason})`);
  if (verification.certificate_height !== height || verification.block_hash !== hash)
    return refuse(
      `the verified certificate is for block ${verification.certificate_height} ${verification.block_hash}, not boundary block ${height} ${hash}`,
    );
  const used = keyForEpoch(chain, epochOf(height, epochLength));
  if (used === null || used.key.hex !== verification.group_key || used.fromEpoch !== verification.key_from_epoch)
    return refuse(`the certificate of boundary block ${height} was not verified under this key chain's key for its epoch`);
  let outcome: DkgOutcome;
  try {
    outcome = parseDkgOutcome(boundary.extraData);
  } catch (e) {
    return refuse(`the extraData of boundary block ${height} is not a DKG outcome: ${shortMessage(e)}`);
  }
  const next = epochOf(height, epochLength) + 1;
  if (outcome.epoch !== next) return refuse(`boundary block ${height} announces epoch ${outcome.epoch}, not ${next}`, outcome.epoch);
  const held = keyForEpoch(chain, next);
  const same = held !== null && held.key.hex === outcome.groupKey;
  const exact = chain.keys.find((k) => k.from_epoch === next);
  if (exact && exact.key !== outcome.groupKey)
    return refuse(
      `boundary block ${height} announces a key for epoch ${next} that contradicts the one held (announced at ${exact.announced_by?.height ?? 'the anchor'})`,
      next,
    );
  if (!same && chain.keys.some((k) => k.from_epoch > next))
    return refuse(
      `boundary block ${height} announces a new key for epoch ${next}, but a key for a later epoch is already held: follow boundaries in ascending order`,
      next,
    );
  const confirmed = isConfirmed(chain, next) ? chain.confirmed : confirm(chain.confirmed, next);
  if (same) {
    const unchanged = confirmed === chain.confirmed;
    return {
      chain: unchanged ? chain : { ...chain, confirmed },
      accepted: true,
      keyChanged: false,
      epoch: next,
      reason: `boundary block ${height} confirms the key held from epoch ${held!.fromEpoch} for epoch ${next}`,
    };
  }
  const key = {
    from_epoch: next,
    key: outcome.groupKey,
    announced_by: { height, hash, certified_under: verification.key_from_epoch ?? 0 },
  };
  return {
    chain: { ...chain, keys: [...chain.keys, key], confirmed },
    accepted: true,
    keyChanged: true,
    epoch: next,
    reason: `boundary block ${height} announces a new group key from epoch ${next}, certified under the key held from epoch ${verification.key_from_epoch}`,
  };
}
