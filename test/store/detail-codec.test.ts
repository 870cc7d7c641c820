/**
 * The stored detail and integrity bytes of packDetail / packIntegrity, whose DEFLATE context is reused across
 * calls: each output must be exactly node's one-shot deflateRawSync at level 6 against the format's dictionary,
 * whatever was compressed before it, so stores written before and after the reuse hold the same bytes.
 */
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { processRun } from '../../src/chain/collector/process.js';
import {
  DICTIONARY_V1,
  INTEGRITY_DICTIONARY_V1,
  packDetail,
  packIntegrity,
  unpackDetail,
  unpackIntegrity,
} from '../../src/store/chain/detail-codec.js';
import { loadChainFixtures } from '../fixtures/chain/load.js';

const fx = loadChainFixtures();
const observations = (await processRun(fx.blocks, fx.tokens)).flatMap((b) => b.observations);

describe('packDetail and packIntegrity with a reused DEFLATE context', () => {
  it('has recorded transactions to pack', () => {
    expect(observations.length).toBeGreaterThan(5);
  });

  it('packs every recorded detail to the bytes of a one-shot deflateRawSync, in any order', () => {
    const oneShot = (json: string) => Buffer.concat([Buffer.from([1]), deflateRawSync(json, { level: 6, dictionary: DICTIONARY_V1 })]);
    // Forward, then backward: a context left dirty by the previous input would change the next output.
    for (const o of [...observations, ...observations.slice().reverse()]) {
      const packed = packDetail(o.detail);
      expect(packed.equals(oneShot(o.detail))).toBe(true);
      expect(unpackDetail(packed)).toBe(o.detail);
    }
  });

  it('packs every recorded integrity to the text of a one-shot deflateRawSync, in any order', () => {
    for (const o of [...observations, ...observations.slice().reverse()]) {
      const json = o.row.integrity;
      const { score, maximum } = JSON.parse(json) as { score: number; maximum: number };
      const z = deflateRawSync(json, { level: 6, dictionary: INTEGRITY_DICTIONARY_V1 }).toString('base64');
      expect(packIntegrity(json)).toBe(JSON.stringify({ score, maximum, z: `1:${z}` }));
      expect(unpackIntegrity(packIntegrity(json))).toBe(json);
    }
  });
  it('packs an integrity text whose members come in another order as it packs the usual one (score and maximum parsed)', () => {
    const json = observations[0]!.row.integrity;
    const { score, maximum, ...rest } = JSON.parse(json) as { score: number; maximum: number };
    const reordered = JSON.stringify({ maximum, ...rest, score });
    const packed = JSON.parse(packIntegrity(reordered)) as { score: number; maximum: number; z: string };
    expect([packed.score, packed.maximum]).toEqual([score, maximum]);
    expect(unpackIntegrity(packIntegrity(reordered))).toBe(reordered);
  });
  it('a failed call (an input zlib refuses) throws as the one-shot deflate does, and the next input packs as before', () => {
    const json = observations[0]?.detail ?? '{}';
    const before = packDetail(json);
    // Not a string or Buffer: the reused context refuses it; the answer must be node's own error, not a dead codec.
    expect(() => packDetail(12345 as unknown as string)).toThrow(TypeError);
    expect(packDetail(json).equals(before)).toBe(true);
  });
});
