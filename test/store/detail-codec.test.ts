/**
 * The stored detail and integrity bytes of packDetail / packIntegrity, whose DEFLATE context is reused across
 * calls: each output must be exactly node's one-shot deflateRawSync at level 6 against the format's dictionary,
 * whatever was compressed before it, so stores written before and after the reuse hold the same bytes.
 */
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { processRun } from '../../src/chain/collector/process.js';
import {
  DETAIL_GROUP_CHARS,
  DETAIL_GROUP_ROWS,
  DICTIONARY_V1,
  INTEGRITY_DICTIONARY_V1,
  packDetail,
  packDetails,
  packIntegrity,
  storedDetailForm,
  unpackDetail,
  unpackDetailGroup,
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

describe('packDetails: the details of one write grouped by block time', () => {
  const texts = observations.map((o) => o.detail);
  /** The group sizes of a packDetails answer, from the tags (a row packed alone counts as a group of 1). */
  const sizes = (packed: Buffer[]) =>
    packed.flatMap((p) => {
      const f = storedDetailForm(p);
      return f.form === 'head' ? [f.rows] : f.form === 'whole' ? [1] : [];
    });

  it('packs consecutive details of one time as one group: the first row holds them all, the others point back', () => {
    const items = texts.slice(0, 5).map((json) => ({ time: 100, json }));
    const packed = packDetails(items);
    expect(packed.map((p) => storedDetailForm(p))).toEqual([
      { form: 'head', rows: 5 },
      ...[1, 2, 3, 4].map((index) => ({ form: 'member', index })),
    ]);
    expect(unpackDetailGroup(packed[0]!)).toEqual(items.map((i) => i.json));
    // What the block repeats is stored once: the group is smaller than its details packed one by one.
    const alone = items.reduce((n, i) => n + packDetail(i.json).length, 0);
    expect(packed.reduce((n, p) => n + p.length, 0)).toBeLessThan(alone);
    expect(() => unpackDetail(packed[0]!)).toThrow(/part of a group/);
    expect(() => unpackDetail(packed[1]!)).toThrow(/part of a group/);
  });

  it('packs a detail alone, byte for byte as packDetail, when its neighbours have other times', () => {
    const items = texts.slice(0, 4).map((json, i) => ({ time: 100 + (i === 2 ? 1 : 0), json }));
    const packed = packDetails(items);
    expect(sizes(packed)).toEqual([2, 1, 1]);
    expect(packed[2]!.equals(packDetail(items[2]!.json))).toBe(true);
    expect(packed[3]!.equals(packDetail(items[3]!.json))).toBe(true);
  });

  it(`cuts groups at ${DETAIL_GROUP_ROWS} rows and ${DETAIL_GROUP_CHARS} characters, and packs a text holding a newline alone`, () => {
    const many = Array.from({ length: 2 * DETAIL_GROUP_ROWS + 3 }, (_, i) => ({ time: 7, json: JSON.stringify({ i }) }));
    expect(sizes(packDetails(many))).toEqual([DETAIL_GROUP_ROWS, DETAIL_GROUP_ROWS, 3]);
    const big = JSON.stringify({ memo: 'x'.repeat(Math.floor(DETAIL_GROUP_CHARS / 2) - 20) });
    const bigs = Array.from({ length: 5 }, () => ({ time: 7, json: big }));
    expect(sizes(packDetails(bigs))).toEqual([2, 2, 1]);
    const odd = [
      { time: 7, json: texts[0]! },
      { time: 7, json: '{"memo":"a\nb"}' },
      { time: 7, json: texts[1]! },
    ];
    const packed = packDetails(odd);
    expect(sizes(packed)).toEqual([1, 1, 1]);
    expect(unpackDetail(packed[1]!)).toBe(odd[1]!.json);
  });

  it('refuses a first row whose group holds another number of texts than it says', () => {
    const packed = packDetails(texts.slice(0, 3).map((json) => ({ time: 1, json })));
    const lying = Buffer.from(packed[0]!);
    lying[1] = 4;
    expect(() => unpackDetailGroup(lying)).toThrow(/holds 3 texts where its first row says 4/);
    expect(() => unpackDetailGroup(packed[1]!)).toThrow(/not the first row of a group/);
    // Bytes that inflate past what a group can hold are refused before they are all inflated.
    const bomb = Buffer.concat([Buffer.from([2, 2]), deflateRawSync('ab\n'.repeat(DETAIL_GROUP_CHARS * 2), { dictionary: DICTIONARY_V1 })]);
    expect(bomb.length).toBeLessThan(2000);
    expect(() => unpackDetailGroup(bomb)).toThrow(RangeError);
  });
});
