/**
 * The pure pieces the collector uses around the checks: what a collected block gives them (recorded real mainnet
 * blocks before and after T4, tampered copies), when a certificate is due, and how far a verified certificate
 * covers the blocks below it through the parent-hash chain.
 */
import { describe, expect, it } from 'vitest';
import { boundaryBlock, type ChainLink, certificateDue, coverByParentChain, finalityBlock } from '../../src/chain/consensus/index.js';
import { recordedBlock } from '../helpers/real-tempo.js';

describe('finalityBlock and boundaryBlock', () => {
  it('gives a post-T4 block its recomputed hash and context, a pre-T4 block no context', () => {
    const post = recordedBlock('mainnet-25403305').block;
    expect(finalityBlock(post)).toEqual({
      height: 25_403_305,
      blockHash: post.hash,
      context: {
        epoch: 1176n,
        view: 1706n,
        parentView: 1705n,
        proposer: '0x9a2b3315cbc23bbaf8538927f7c98bb410d866b37b5438d6ead2e6adeb9df9ab',
      },
    });
    const pre = recordedBlock('mainnet-17708868').block;
    expect(finalityBlock(pre)).toEqual({ height: 17_708_868, blockHash: pre.hash, context: null });
  });

  it('passes no hash on when the header does not reproduce the stated one, or its context is malformed', () => {
    const post = recordedBlock('mainnet-25403305').block;
    const lying = { ...post, hash: `0x${'12'.repeat(32)}` as const };
    expect(finalityBlock(lying).blockHash).toBeNull();
    const changed = { ...post, consensusContext: { ...(post.consensusContext as object), view: 1707 } };
    expect(finalityBlock(changed)).toMatchObject({ blockHash: null, context: { view: 1707n } });
    const malformed = { ...post, consensusContext: { epoch: 'x' } };
    expect(finalityBlock(malformed)).toMatchObject({ blockHash: null, context: null });
    expect(boundaryBlock(post)).toEqual({ height: 25_403_305, hash: post.hash, extraData: '0x' });
    expect(boundaryBlock(lying)).toBeNull();
  });
});

describe('certificateDue', () => {
  const L = 21_600;
  it('asks at every boundary, at the head when caught up, and every 1,000 blocks or 60 s', () => {
    const last = { height: 5_000, at: 0 };
    expect(certificateDue(null, { height: 10, at: 0 }, { caughtUp: false, epochLength: L })).toBe('spacing');
    expect(certificateDue(last, { height: 5_999, at: 59_999 }, { caughtUp: false, epochLength: L })).toBeNull();
    expect(certificateDue(last, { height: 6_000, at: 1 }, { caughtUp: false, epochLength: L })).toBe('spacing');
    expect(certificateDue(last, { height: 5_001, at: 60_000 }, { caughtUp: false, epochLength: L })).toBe('spacing');
    expect(certificateDue(last, { height: 5_001, at: 1 }, { caughtUp: true, epochLength: L })).toBe('head');
    expect(certificateDue(last, { height: 21_599, at: 1 }, { caughtUp: false, epochLength: L })).toBe('boundary');
    expect(certificateDue(last, { height: 5_010, at: 1 }, { caughtUp: false, epochLength: L, spacing: { blocks: 10, ms: 1e9 } })).toBe(
      'spacing',
    );
  });
});

describe('coverByParentChain', () => {
  const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
  const link = (n: number): ChainLink => ({ height: n, hash: h(n), parentHash: h(n - 1) });

  it('covers every block down the chain', () => {
    expect(coverByParentChain(h(12), [link(12), link(11), link(10)])).toEqual({
      coveredFrom: 10,
      brokenAt: null,
      reason: 'blocks 10 to 12 are covered by the certificate of block 12',
    });
    expect(coverByParentChain(h(12).toUpperCase().replace('0X', '0x'), [link(12)])).toMatchObject({ coveredFrom: 12, brokenAt: null });
  });

  it('stops where a block is missing, not recomputed, or not its child parent', () => {
    expect(coverByParentChain(h(12), [link(12), link(10)])).toEqual({ coveredFrom: 12, brokenAt: 11, reason: 'block 11 is missing' });
    expect(coverByParentChain(h(12), [link(12), link(11), { ...link(10), hash: null }])).toMatchObject({ coveredFrom: 11, brokenAt: 10 });
    const forked = { ...link(10), hash: h(999) };
    expect(coverByParentChain(h(12), [link(12), link(11), forked, link(9)])).toMatchObject({ coveredFrom: 11, brokenAt: 10 });
    expect(coverByParentChain(h(13), [link(12), link(11)])).toMatchObject({ coveredFrom: null, brokenAt: 12 });
    expect(coverByParentChain(h(12), [])).toMatchObject({ coveredFrom: null, brokenAt: null });
  });
});
