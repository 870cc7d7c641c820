/**
 * Finality verification on the generated committee vectors of `../shared/consensus` (a local 3-of-4 committee
 * in Tempo's format, not a live network; see that folder's README): each valid certificate verifies through the
 * six checks; a wrong key, a flipped payload byte, the notarize namespace, the library's default DST and a
 * truncated certificate each fail with the reason of the first failing check; the boundary outcome yields the
 * next epoch's key, under which the later epoch's certificate verifies. The vectors' headers (heights 3 and 12)
 * are recomputed through integrity stage 2's own header check, as the collector will.
 */
import { Bls, BlsPoint } from 'ox';
import { describe, expect, it } from 'vitest';
import {
  acceptBoundary,
  anchorKeyChain,
  decodeFinalization,
  FINALIZE_NAMESPACE,
  type FinalityInput,
  type KeyChain,
  keyForEpoch,
  MINSIG_DST,
  NOTARIZE_NAMESPACE,
  parseDkgOutcome,
  parseGroupKey,
  signedMessage,
  verifyFinality,
  verifySignature,
} from '../../src/chain/consensus/index.js';
import { parseSignature } from '../../src/chain/consensus/bls.js';
import { checkBlockHash, readConsensusContext } from '../../src/chain/integrity/index.js';
import { committeeVectors, encodeDkgOutcome, rpcBlockFromHeaderRlp } from '../helpers/consensus.js';

const v = committeeVectors();
const [at3, at9, at12] = v.updates as [(typeof v.updates)[0], (typeof v.updates)[0], (typeof v.updates)[0]];
/** The committee's epoch-0 key planted in a genesis outcome (the vectors carry only the boundary outcome). */
const genesis = encodeDkgOutcome({ epoch: 0, groupKey: v.epoch0KeyCompressed });
const epoch0Chain = (): KeyChain => anchorKeyChain(genesis, 'vectors epoch 0');
const options = (keyChain: KeyChain) => ({ keyChain, epochLength: v.epochLength, now: new Date('2026-11-26T00:00:00.000Z') });

/** The check's input for one vector: the hash and context recomputed from its header when it has one. */
function input(u: (typeof v.updates)[0]): FinalityInput {
  if (!u.headerRlp) return { certificate: u.tempoCertificate, height: u.height, blockHash: u.headerHash, context: null };
  const block = rpcBlockFromHeaderRlp(u.headerRlp, u.headerHash);
  const check = checkBlockHash(block);
  return {
    certificate: u.tempoCertificate,
    height: u.height,
    blockHash: check.match ? check.expected : null,
    context: readConsensusContext(block),
  };
}

/** The vectors' key chain after following the boundary at height 9. */
function followedChain(): KeyChain {
  const chain = epoch0Chain();
  const boundary = verifyFinality(input(at9), options(chain));
  const r = acceptBoundary(chain, { height: 9, hash: at9.headerHash, extraData: v.dkgOutcome }, boundary, v.epochLength);
  expect(r.accepted, r.reason).toBe(true);
  return r.chain;
}

/** The certificate with one byte changed. */
function flip(certificate: string, byte: number): string {
  const b = Buffer.from(certificate.slice(2), 'hex');
  b[byte]! ^= 0x01;
  return `0x${b.toString('hex')}`;
}

describe('generated committee vectors', () => {
  it("recomputes the vectors' Tempo headers (with consensusContext) to their stated hashes", () => {
    for (const u of [at3, at12]) {
      const block = rpcBlockFromHeaderRlp(u.headerRlp!, u.headerHash);
      expect(checkBlockHash(block)).toEqual({ expected: u.headerHash, encoding: 'tempo', match: true });
      expect(readConsensusContext(block)).toMatchObject({ epoch: BigInt(u.epoch), view: BigInt(u.view), parentView: BigInt(u.parentView) });
    }
  });

  it('decodes each certificate to its round and payload', () => {
    for (const u of v.updates) {
      const f = decodeFinalization(u.tempoCertificate);
      expect({ epoch: f.epoch, view: f.view, parentView: f.parentView, payload: f.payload }).toEqual({
        epoch: u.epoch,
        view: u.view,
        parentView: u.parentView,
        payload: u.headerHash,
      });
    }
    expect(Buffer.from(v.namespace.slice(2), 'hex').toString()).toBe('TEMPO');
  });

  it('verifies each epoch-0 certificate under the anchored epoch-0 key', () => {
    for (const u of [at3, at9]) {
      const r = verifyFinality(input(u), options(epoch0Chain()));
      expect(r, r.reason).toMatchObject({
        status: 'verified',
        check: null,
        certificate_height: u.height,
        block_hash: u.headerHash,
        epoch: 0,
        view: u.view,
        parent_view: u.parentView,
        key_from_epoch: 0,
        anchored: true,
        verified_at: '2026-11-26T00:00:00.000Z',
      });
    }
  });

  it("follows the boundary outcome to the next epoch's key, under which the epoch-1 certificate verifies", () => {
    expect(parseDkgOutcome(v.dkgOutcome)).toMatchObject({ epoch: 1, groupKey: v.epoch1KeyCompressed });
    // Before the boundary is followed, epoch 1 uses the key held from epoch 0, which is not the one that signed.
    const before = verifyFinality(input(at12), options(epoch0Chain()));
    expect(before).toMatchObject({ status: 'unknown', check: 'signature', key_from_epoch: 0 });
    expect(before.reason).toContain('may have changed at a boundary after epoch 0');

    const chain = followedChain();
    expect(keyForEpoch(chain, 1)).toMatchObject({ fromEpoch: 1, confirmed: true });
    expect(keyForEpoch(chain, 1)!.key.hex).toBe(v.epoch1KeyCompressed);
    expect(chain.keys[1]).toEqual({
      from_epoch: 1,
      key: v.epoch1KeyCompressed,
      announced_by: { height: 9, hash: at9.headerHash, certified_under: 0 },
    });
    const after = verifyFinality(input(at12), options(chain));
    expect(after, after.reason).toMatchObject({
      status: 'verified',
      certificate_height: 12,
      epoch: 1,
      view: 3,
      parent_view: 2,
      key_from_epoch: 1,
      anchored: true,
    });
    // The epoch-0 certificates still verify under the epoch-0 key of the followed chain.
    expect(verifyFinality(input(at3), options(chain)).status).toBe('verified');
  });

  it('fails under a wrong key: the signature check', () => {
    const wrong = anchorKeyChain(encodeDkgOutcome({ epoch: 0, groupKey: v.epoch1KeyCompressed }), 'wrong key');
    const r = verifyFinality(input(at3), options(wrong));
    expect(r).toMatchObject({ status: 'failed', check: 'signature', key_from_epoch: 0, anchored: true });
    expect(r.reason).toBe('the vote signature (TEMPO_FINALIZE) does not verify under the group key held from epoch 0');
  });

  it('fails a flipped payload byte at the payload check, and at the signature check when the block hash is flipped alike', () => {
    const payloadByte = 3 + 31; // after three one-byte varints
    const certificate = flip(at3.tempoCertificate, payloadByte);
    const r = verifyFinality({ ...input(at3), certificate }, options(epoch0Chain()));
    expect(r).toMatchObject({ status: 'failed', check: 'payload' });
    expect(r.reason).toContain(`not block 3's recomputed hash ${at3.headerHash}`);
    // A block whose hash really is the flipped payload: the signature does not cover it.
    const forged = decodeFinalization(certificate).payload;
    const s = verifyFinality({ ...input(at3), certificate, blockHash: forged, context: null }, options(epoch0Chain()));
    expect(s).toMatchObject({ status: 'failed', check: 'signature' });
    expect(s.reason).toContain('the vote signature');
  });

  it('does not verify the vote under the notarize namespace, nor with the library default DST', () => {
    const key = parseGroupKey(v.epoch0KeyCompressed);
    const f = decodeFinalization(at3.tempoCertificate);
    const vote = parseSignature(f.voteSignature, 'vote signature');
    expect(verifySignature(key, { namespace: FINALIZE_NAMESPACE, message: f.proposal, signature: vote })).toBe(true);
    expect(verifySignature(key, { namespace: NOTARIZE_NAMESPACE, message: f.proposal, signature: vote })).toBe(false);
    // ox's Bls.verify as the reference: true with Tempo's DST, false with its default.
    const publicKey = BlsPoint.fromHex(v.epoch0KeyCompressed, 'G2');
    const signature = BlsPoint.fromBytes(f.voteSignature, 'G1');
    const payload = signedMessage(FINALIZE_NAMESPACE, f.proposal);
    expect(Bls.verify({ payload, publicKey, signature, suite: MINSIG_DST })).toBe(true);
    expect(Bls.verify({ payload, publicKey, signature })).toBe(false);
  });

  it('fails a truncated certificate, or one with a trailing byte, at the certificate check', () => {
    const truncated = verifyFinality({ ...input(at3), certificate: at3.tempoCertificate.slice(0, -2) }, options(epoch0Chain()));
    expect(truncated).toMatchObject({
      status: 'failed',
      check: 'certificate',
      epoch: null,
      block_hash: null,
      key_from_epoch: null,
      anchored: false,
    });
    expect(truncated.reason).toBe(
      'the certificate does not decode: certificate ends inside seed signature (48 bytes needed, 47 left) (at byte 83)',
    );
    const trailing = verifyFinality({ ...input(at3), certificate: `${at3.tempoCertificate}00` }, options(epoch0Chain()));
    expect(trailing).toMatchObject({ status: 'failed', check: 'certificate' });
    expect(trailing.reason).toContain('1 trailing bytes');
  });

  it('fails a certificate whose seed alone is wrong (the vote of another round in its place), naming the seed', () => {
    const seedAt = at3.tempoCertificate.length - 96;
    const otherVote = at9.tempoCertificate.slice(-192, -96);
    const certificate = at3.tempoCertificate.slice(0, seedAt) + otherVote;
    const r = verifyFinality({ ...input(at3), certificate }, options(epoch0Chain()));
    expect(r).toMatchObject({ status: 'failed', check: 'signature' });
    expect(r.reason).toContain('the seed signature (TEMPO_SEED) does not verify');
  });
});
