/**
 * The six ordered checks on certificates signed by generated test keys (test/helpers/consensus.ts), for the cases
 * the vectors do not hold: the wrong epoch, a mismatched consensusContext, a notarization and a default-DST
 * signature passed off as a finalization, a block hash not recomputed, an epoch before the anchor; then the key
 * chain (following a key change across a boundary, what it refuses, its stored form) and the evidence with
 * witnesses (which never unverify).
 */
import { describe, expect, it } from 'vitest';
import {
  acceptBoundary,
  anchorKeyChain,
  ConsensusDecodeError,
  compareWitnesses,
  finalityEvidence,
  finalityUnknown,
  type FinalityInput,
  isConsensusVerified,
  type KeyChain,
  keyForEpoch,
  NOTARIZE_NAMESPACE,
  restoreKeyChain,
  verifyFinality,
} from '../../src/chain/consensus/index.js';
import { boundaryOutcome, encodeDkgOutcome, signFinalization, testGenesisOutcome, testKey } from '../helpers/consensus.js';

const L = 100;
const K0 = testKey('committee epoch 0');
const K2 = testKey('committee epoch 2');
const HASH = `0x${'ab'.repeat(32)}`;
const now = new Date('2026-11-26T12:00:00.000Z');
const genesisChain = (): KeyChain => anchorKeyChain(testGenesisOutcome(K0), 'test genesis');
const options = (keyChain: KeyChain = genesisChain()) => ({ keyChain, epochLength: L, now });

/** A certificate for block `height` (epoch height / L, view height + 1, parent view height) and its input. */
function certified(
  height: number,
  over: Partial<Parameters<typeof signFinalization>[0]> = {},
  block: Partial<FinalityInput> = {},
): FinalityInput {
  const round = { epoch: Math.floor(height / L), view: height + 1, parentView: height };
  const certificate = signFinalization({ key: K0, ...round, payload: HASH, ...over });
  return { certificate, height, blockHash: HASH, context: null, ...block };
}

describe('the six checks on test-key certificates', () => {
  it('verifies a certificate, with the context of a post-T4 header', () => {
    const r = verifyFinality(certified(150, {}, { context: { epoch: 1n, view: 151n, parentView: 150n } }), options());
    expect(r).toEqual({
      status: 'verified',
      check: null,
      reason:
        'finalization certificate for block 150 (epoch 1, view 151) verified under the group key held from epoch 0, anchored at test genesis',
      certificate_height: 150,
      block_hash: HASH,
      epoch: 1,
      view: 151,
      parent_view: 150,
      key_from_epoch: 0,
      anchored: true,
      group_key: K0.groupKey,
      verified_at: '2026-11-26T12:00:00.000Z',
    });
    expect(isConsensusVerified(r)).toBe(true);
  });

  it('fails a certificate of another epoch than the height gives: the epoch check', () => {
    const r = verifyFinality(certified(150, { epoch: 2 }), options());
    expect(r).toMatchObject({ status: 'failed', check: 'epoch', epoch: 2, key_from_epoch: null, anchored: false });
    expect(r.reason).toBe("the certificate's epoch 2 is not block 150's epoch 1 (epoch length 100)");
    expect(isConsensusVerified(r)).toBe(false);
  });

  it("fails a header whose consensusContext is not the certificate's round: the context check", () => {
    for (const context of [
      { epoch: 1, view: 152, parentView: 150 },
      { epoch: 1, view: 151, parentView: 149 },
      { epoch: 0, view: 151, parentView: 150 },
    ]) {
      const r = verifyFinality(certified(150, {}, { context }), options());
      expect(r).toMatchObject({ status: 'failed', check: 'context' });
    }
    const r = verifyFinality(certified(150, {}, { context: { epoch: 1, view: 152, parentView: 150 } }), options());
    expect(r.reason).toBe(
      "block 150's consensusContext (epoch 1, view 152, parent view 150) is not the certificate's round (epoch 1, view 151, parent view 150)",
    );
  });

  it('fails a notarization or a default-DST signature passed off as a finalization: the signature check', () => {
    const notarization = verifyFinality(certified(50, { namespace: NOTARIZE_NAMESPACE }), options());
    expect(notarization).toMatchObject({ status: 'failed', check: 'signature' });
    expect(notarization.reason).toBe('the vote signature (TEMPO_FINALIZE) does not verify under the group key held from epoch 0');
    const defaultDst = verifyFinality(certified(50, { dst: null }), options());
    expect(defaultDst).toMatchObject({ status: 'failed', check: 'signature' });
  });

  it('is unknown when the block hash was not recomputed, and when no key is held for the epoch', () => {
    const unhashed = verifyFinality(certified(150, {}, { blockHash: null }), options());
    expect(unhashed).toMatchObject({ status: 'unknown', check: 'payload', epoch: 1 });
    expect(unhashed.reason).toBe("block 150's hash was not recomputed from its header, so the certificate cannot be tied to it");
    const later = anchorKeyChain(encodeDkgOutcome({ epoch: 5, groupKey: K0.groupKey }), 'anchor at epoch 5');
    const early = verifyFinality(certified(150), options(later));
    expect(early).toMatchObject({ status: 'unknown', check: 'key', key_from_epoch: null, anchored: false });
    expect(early.reason).toBe('no group key is held for epoch 1: the anchor (anchor at epoch 5) is from epoch 5');
  });

  it('is unknown, not failed, for a bad signature under a key held from an earlier, unconfirmed epoch', () => {
    const r = verifyFinality(certified(250, { key: K2 }), options());
    expect(r).toMatchObject({ status: 'unknown', check: 'signature', key_from_epoch: 0, anchored: true });
    // The same signature in the anchor's own epoch is proven wrong.
    expect(verifyFinality(certified(50, { key: K2 }), options())).toMatchObject({ status: 'failed', check: 'signature' });
  });

  it('gives an unknown result without a certificate', () => {
    expect(finalityUnknown('awaiting certificate', 812, now)).toEqual({
      status: 'unknown',
      check: null,
      reason: 'awaiting certificate',
      certificate_height: 812,
      block_hash: null,
      epoch: null,
      view: null,
      parent_view: null,
      key_from_epoch: null,
      anchored: false,
      group_key: null,
      verified_at: '2026-11-26T12:00:00.000Z',
    });
  });
});

describe('the key chain across an epoch boundary', () => {
  /** Follows the boundary of epoch 1 (block 199) announcing K2 for epoch 2, certified by K0. */
  function follow(chain: KeyChain, next = K2, certifiedBy = K0) {
    const boundaryHash = `0x${'b1'.repeat(32)}`;
    const v = verifyFinality(certified(199, { key: certifiedBy, payload: boundaryHash }, { blockHash: boundaryHash }), options(chain));
    return acceptBoundary(chain, { height: 199, hash: boundaryHash, extraData: boundaryOutcome(2, next) }, v, L);
  }

  it('takes the next key from a boundary certified by the old key; the later epoch verifies under it, not under the old one', () => {
    const before = genesisChain();
    expect(verifyFinality(certified(250, { key: K2 }), options(before)).status).toBe('unknown');
    const r = follow(before);
    expect(r).toMatchObject({ accepted: true, keyChanged: true, epoch: 2 });
    expect(r.reason).toBe('boundary block 199 announces a new group key from epoch 2, certified under the key held from epoch 0');
    expect(verifyFinality(certified(250, { key: K2 }), options(r.chain))).toMatchObject({ status: 'verified', key_from_epoch: 2 });
    expect(verifyFinality(certified(250, { key: K0 }), options(r.chain))).toMatchObject({
      status: 'failed',
      check: 'signature',
      key_from_epoch: 2,
    });
    // Epoch 1 keeps the old key.
    expect(verifyFinality(certified(150, { key: K0 }), options(r.chain))).toMatchObject({ status: 'verified', key_from_epoch: 0 });
    expect(before.keys).toHaveLength(1); // pure: the old state is unchanged
  });

  it('confirms an unchanged key (a reshare) without adding a key', () => {
    const r = follow(genesisChain(), K0);
    expect(r).toMatchObject({ accepted: true, keyChanged: false, epoch: 2 });
    expect(r.chain.keys).toHaveLength(1);
    expect(r.chain.confirmed).toEqual([
      [0, 0],
      [2, 2],
    ]);
    expect(keyForEpoch(r.chain, 2)).toMatchObject({ fromEpoch: 0, confirmed: true });
    expect(keyForEpoch(r.chain, 1)).toMatchObject({ fromEpoch: 0, confirmed: false });
    // Now a bad signature in epoch 2 is proven wrong.
    expect(verifyFinality(certified(250, { key: K2 }), options(r.chain)).status).toBe('failed');
  });

  it('refuses a boundary that is not certified, not a boundary, for another block, or announcing another epoch', () => {
    const chain = genesisChain();
    const hash = `0x${'b1'.repeat(32)}`;
    const good = verifyFinality(certified(199, { payload: hash }, { blockHash: hash }), options(chain));
    expect(good.status).toBe('verified');
    const bad = verifyFinality(certified(199, { key: K2, payload: hash }, { blockHash: hash }), options(chain));
    // Verified, but under another key chain (anchored at K2): not evidence for this one.
    const otherChain = verifyFinality(
      certified(199, { key: K2, payload: hash }, { blockHash: hash }),
      options(anchorKeyChain(testGenesisOutcome(K2))),
    );
    expect(otherChain.status).toBe('verified');
    const cases: [Parameters<typeof acceptBoundary>[1], Parameters<typeof acceptBoundary>[2], string][] = [
      [{ height: 199, hash, extraData: boundaryOutcome(2, K2) }, bad, 'the certificate of boundary block 199 is not verified (unknown:'],
      [{ height: 198, hash, extraData: boundaryOutcome(2, K2) }, good, 'block 198 is not the last block of its epoch (epoch length 100)'],
      [
        { height: 199, hash: `0x${'c1'.repeat(32)}`, extraData: boundaryOutcome(2, K2) },
        good,
        'the verified certificate is for block 199 0xb1b1',
      ],
      [{ height: 199, hash, extraData: boundaryOutcome(3, K2) }, good, 'boundary block 199 announces epoch 3, not 2'],
      [
        { height: 199, hash, extraData: '0x00' },
        good,
        'the extraData of boundary block 199 is not a DKG outcome: dkg outcome ends inside summary',
      ],
      [{ height: 199, hash, extraData: boundaryOutcome(2, K2) }, otherChain, "was not verified under this key chain's key for its epoch"],
    ];
    for (const [boundary, v, reason] of cases) {
      const r = acceptBoundary(chain, boundary, v, L);
      expect(r.accepted, reason).toBe(false);
      expect(r.chain).toBe(chain);
      expect(r.reason).toContain(reason);
    }
  });

  it('refuses a contradicting key for an epoch already keyed, and a key change out of order', () => {
    const once = follow(genesisChain()).chain;
    const contradiction = follow(once, testKey('another'), K0);
    expect(contradiction).toMatchObject({ accepted: false, epoch: 2 });
    expect(contradiction.reason).toContain('contradicts the one held (announced at 199)');
    // The same announcement again is accepted without change.
    const again = follow(once);
    expect(again).toMatchObject({ accepted: true, keyChanged: false });
    expect(again.chain).toBe(once);
    // A key change at epoch 1 (block 99) after epoch 2's key is held.
    const hash = `0x${'d1'.repeat(32)}`;
    const v = verifyFinality(certified(99, { payload: hash }, { blockHash: hash }), options(once));
    const late = acceptBoundary(once, { height: 99, hash, extraData: boundaryOutcome(1, testKey('epoch 1')) }, v, L);
    expect(late.accepted).toBe(false);
    expect(late.reason).toContain('follow boundaries in ascending order');
  });

  it('survives a JSON round trip as stored, and refuses a malformed stored chain', () => {
    const chain = follow(genesisChain()).chain;
    const restored = restoreKeyChain(JSON.parse(JSON.stringify(chain)));
    expect(restored).toEqual(chain);
    expect(verifyFinality(certified(250, { key: K2 }), options(restored)).status).toBe('verified');
    const broken = [
      { ...chain, version: 2 },
      { ...chain, keys: [] },
      { ...chain, keys: [...chain.keys].reverse() },
      {
        ...chain,
        confirmed: [
          [2, 2],
          [0, 0],
        ],
      },
      { ...chain, keys: [{ ...chain.keys[0]!, key: `0x${'00'.repeat(96)}` }] },
      { ...chain, extra: 1 },
    ];
    for (const b of broken) expect(() => restoreKeyChain(b), JSON.stringify(b).slice(0, 60)).toThrow(ConsensusDecodeError);
  });
});

describe('evidence and witnesses', () => {
  const ours = { height: 150, hash: HASH };
  const report = (witness: string, finalizedHeight: number | null, hash: string | null) => ({ witness, finalizedHeight, hash });

  it('counts agreeing and disagreeing witnesses; pending ones are neither', () => {
    const w = compareWitnesses(ours, [
      report('https://w1.example', 200, HASH.toUpperCase().replace('0X', '0x')),
      report('https://w2.example', 200, `0x${'cd'.repeat(32)}`),
      report('https://w3.example', 120, HASH), // has not finalized 150 yet
      report('https://w4.example', null, null), // did not answer
    ]);
    expect(w).toEqual({
      configured: 4,
      quorum: 4,
      agreeing: 1,
      disagreeing: 1,
      quorumMet: false,
      pending: 2,
      disagreements: [{ witness: 'https://w2.example', height: 150, reported: `0x${'cd'.repeat(32)}`, ours: HASH }],
    });
    expect(compareWitnesses(ours, [report('a', 150, HASH), report('b', null, null)], 1)).toMatchObject({
      quorum: 1,
      agreeing: 1,
      quorumMet: true,
    });
    expect(compareWitnesses(ours, [], 3)).toMatchObject({ configured: 0, quorum: 0, quorumMet: false });
  });

  it('keeps a verified certificate verified whatever the witnesses say', () => {
    const v = verifyFinality(certified(150), options());
    const lying = compareWitnesses(ours, [report('https://liar.example', 900, `0x${'ee'.repeat(32)}`)]);
    const e = finalityEvidence(v, lying);
    expect(e).toEqual({
      status: 'verified',
      check: null,
      reason: v.reason,
      certificate_height: 150,
      epoch: 1,
      view: 151,
      key_from_epoch: 0,
      anchored: true,
      witnesses: { configured: 1, quorum: 1, agreeing: 0, disagreeing: 1 },
      verified_at: '2026-11-26T12:00:00.000Z',
    });
    expect(isConsensusVerified(e)).toBe(true);
    expect(finalityEvidence(v, null).witnesses).toEqual({ configured: 0, quorum: 0, agreeing: 0, disagreeing: 0 });
  });
});

describe('input outside its types', () => {
  it('is unknown, never thrown', () => {
    const input = certified(150, {}, { context: { epoch: 1.5, view: 151, parentView: 150 } });
    expect(verifyFinality(input, options())).toMatchObject({ status: 'unknown', check: null, certificate_height: 150 });
    const handMade = { ...genesisChain(), keys: [{ from_epoch: 0, key: `0x${'11'.repeat(96)}` as `0x${string}`, announced_by: null }] };
    const r = verifyFinality(certified(150), options(handMade));
    expect(r.status).toBe('unknown');
    expect(r.reason).toContain('the checks could not run: group key is not a G2 point');
  });
});
