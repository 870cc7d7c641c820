/**
 * Tempo mainnet's consensus constants against the recorded copy in `../shared/consensus/mainnet-4217-identity.json`
 * (from tempoxyz/tempo `crates/chainspec/src/genesis/presto.json` and `network_identity.rs`), and the epoch rule
 * against a real post-T4 block (`../shared/real-tempo/mainnet-25403305.block.json`): its header's
 * consensusContext epoch is height / 21,600, and a certificate over its real, recomputed hash and real context
 * passes checks 1–4 (signed here by a test key: no real certificate is recorded, so check 6 on the real chain is
 * untested until one is).
 */
import { describe, expect, it } from 'vitest';
import {
  anchorKeyChain,
  epochOf,
  isBoundary,
  boundaryHeight,
  MAINNET_EPOCH_LENGTH,
  MAINNET_GENESIS_OUTCOME,
  MAINNET_NETWORK_IDENTITY,
  mainnetKeyChain,
  parseDkgOutcome,
  verifyFinality,
} from '../../src/chain/consensus/index.js';
import { checkBlockHash, readConsensusContext } from '../../src/chain/integrity/index.js';
import { encodeDkgOutcome, mainnetIdentity, signFinalization, testKey } from '../helpers/consensus.js';
import { recordedBlock } from '../helpers/real-tempo.js';

const recorded = mainnetIdentity();

describe('mainnet consensus constants', () => {
  it('holds the genesis outcome and epoch length recorded from presto.json', () => {
    expect(recorded.chainId).toBe(4217);
    expect(MAINNET_GENESIS_OUTCOME).toBe(recorded.genesisExtraData);
    expect((MAINNET_GENESIS_OUTCOME.length - 2) / 2).toBe(716);
    expect(MAINNET_EPOCH_LENGTH).toBe(recorded.epochLength);
  });

  it('parses the genesis extraData to the pinned network identity, from epoch 0', () => {
    const o = parseDkgOutcome(MAINNET_GENESIS_OUTCOME);
    expect(o).toMatchObject({ epoch: recorded.networkIdentity.fromEpoch, mode: 0, total: 4, isNextFullDkg: false, trailingBytes: 0 });
    expect(o.groupKey).toBe(recorded.networkIdentity.key);
    expect(MAINNET_NETWORK_IDENTITY).toBe(recorded.networkIdentity.key);
    // The identity is the first coefficient, at byte 39: varint epoch (1), summary (32), mode (1), total (4), count (1).
    expect(`0x${MAINNET_GENESIS_OUTCOME.slice(2 + 39 * 2, 2 + (39 + 96) * 2)}`).toBe(MAINNET_NETWORK_IDENTITY);
    expect(o.polynomial).toHaveLength(3);
    expect(o.players).toHaveLength(4);
    expect(mainnetKeyChain().keys).toEqual([{ from_epoch: 0, key: MAINNET_NETWORK_IDENTITY, announced_by: null }]);
  });

  it('places epochs and boundaries by the epoch length', () => {
    expect(epochOf(21_599, MAINNET_EPOCH_LENGTH)).toBe(0);
    expect(epochOf(21_600, MAINNET_EPOCH_LENGTH)).toBe(1);
    expect(isBoundary(21_599, MAINNET_EPOCH_LENGTH)).toBe(true);
    expect(isBoundary(21_600, MAINNET_EPOCH_LENGTH)).toBe(false);
    expect(boundaryHeight(1175, MAINNET_EPOCH_LENGTH)).toBe(25_401_599); // the boundary into 25403305's epoch 1176
    expect(() => epochOf(1, 0)).toThrow(RangeError);
  });
});

describe('a real post-T4 mainnet block (25403305)', () => {
  const { block } = recordedBlock('mainnet-25403305');
  const height = Number(BigInt(block.number));
  const check = checkBlockHash(block);
  const context = readConsensusContext(block)!;

  it("has the epoch height / 21,600 in its consensusContext (the certificate's epoch rule, on the real chain)", () => {
    expect(check).toMatchObject({ match: true, encoding: 'tempo' });
    expect(context.epoch).toBe(BigInt(epochOf(height, MAINNET_EPOCH_LENGTH)));
    expect(context).toMatchObject({ epoch: 1176n, view: 1706n, parentView: 1705n });
  });

  it('passes checks 1-4 with a certificate over its recomputed hash and real context (test key), and fails a shifted view', () => {
    const key = testKey('mainnet-shaped committee');
    const keyChain = anchorKeyChain(encodeDkgOutcome({ epoch: 1176, groupKey: key.groupKey }), 'test key at epoch 1176');
    const round = { epoch: Number(context.epoch), view: Number(context.view), parentView: Number(context.parentView) };
    const input = { height, blockHash: check.match ? check.expected : null, context };
    const options = { keyChain, epochLength: MAINNET_EPOCH_LENGTH };
    const ok = verifyFinality({ ...input, certificate: signFinalization({ key, ...round, payload: block.hash }) }, options);
    expect(ok, ok.reason).toMatchObject({ status: 'verified', epoch: 1176, view: 1706, key_from_epoch: 1176 });
    const shifted = verifyFinality(
      { ...input, certificate: signFinalization({ key, ...round, view: 1707, payload: block.hash }) },
      options,
    );
    expect(shifted).toMatchObject({ status: 'failed', check: 'context' });
    // Under mainnet's own key the test signature is not a mainnet certificate.
    const real = verifyFinality(
      { ...input, certificate: signFinalization({ key, ...round, payload: block.hash }) },
      { ...options, keyChain: mainnetKeyChain() },
    );
    expect(real).toMatchObject({ status: 'unknown', check: 'signature', key_from_epoch: 0 });
  });
});
