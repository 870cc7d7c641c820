/**
 * The decoders of src/chain/consensus are exact, as commonware's codec is: canonical varints only, every member
 * present, nothing left over in a certificate, DKG outcomes within Tempo's limits, points on the curve and in
 * the subgroup, never the point at infinity.
 */
import { describe, expect, it } from 'vitest';
import { ByteReader, varint } from '../../src/chain/consensus/codec.js';
import { parseSignature } from '../../src/chain/consensus/bls.js';
import { ConsensusDecodeError, decodeFinalization, parseDkgOutcome, parseGroupKey } from '../../src/chain/consensus/index.js';
import { encodeDkgOutcome, signFinalization, testKey, validatorKeys } from '../helpers/consensus.js';

const hex = (b: Uint8Array | number[]) => Buffer.from(b).toString('hex');
const reader = (bytes: number[]) => new ByteReader(Uint8Array.from(bytes), 'certificate');

describe('varints (commonware codec/src/varint.rs)', () => {
  it('encodes and decodes canonical LEB128', () => {
    for (const n of [0, 1, 127, 128, 300, 16_383, 16_384, 2 ** 32, Number.MAX_SAFE_INTEGER]) {
      const r = new ByteReader(varint(n), 'certificate');
      expect(r.varint('n')).toBe(n);
      expect(r.remaining).toBe(0);
    }
    expect(hex(varint(300))).toBe('ac02');
  });

  it('refuses non-canonical, overlong, truncated and too wide varints', () => {
    expect(() => reader([0x80, 0x00]).varint('epoch')).toThrow('non-canonical varint for epoch');
    expect(() => reader([0x81, 0x80, 0x00]).varint('epoch')).toThrow('non-canonical');
    expect(() => reader([0x80]).varint('epoch')).toThrow('ends inside epoch');
    // 2^64: ten bytes whose last carries more than one bit.
    expect(() => reader([...Array(9).fill(0x80), 0x02]).varint('view')).toThrow('wider than 64 bits');
    // A u32 length of 2^32.
    expect(() => reader([0x80, 0x80, 0x80, 0x80, 0x10]).length('keys', 0, 10)).toThrow('wider than 32 bits');
    // 2^53 fits 64 bits but not a JavaScript number.
    expect(() => reader([...Array(7).fill(0x80), 0x10]).varint('view')).toThrow('beyond 2^53 - 1');
  });
});

describe('finalization certificates', () => {
  const key = testKey('decode');
  const cert = signFinalization({ key, epoch: 300, view: 70_000, parentView: 69_999, payload: `0x${'11'.repeat(32)}` });

  it('decodes multi-byte varints and keeps the proposal and round bytes', () => {
    const f = decodeFinalization(cert);
    expect(f).toMatchObject({ epoch: 300, view: 70_000, parentView: 69_999, payload: `0x${'11'.repeat(32)}` });
    expect(hex(f.round)).toBe(hex([...varint(300), ...varint(70_000)]));
    expect(f.proposal.length).toBe(2 + 3 + 3 + 32);
    // Served without 0x, as consensus_getFinalization does, and as bytes.
    expect(decodeFinalization(cert.slice(2)).view).toBe(70_000);
    expect(decodeFinalization(Buffer.from(cert.slice(2), 'hex')).view).toBe(70_000);
  });

  it('refuses each missing part, trailing bytes, odd hex and oversized input', () => {
    const bytes = Buffer.from(cert.slice(2), 'hex');
    const cases: [Uint8Array | string, string][] = [
      [bytes.subarray(0, 3), 'ends inside view'],
      [bytes.subarray(0, 6), 'ends inside parent view'],
      [bytes.subarray(0, 20), 'ends inside payload'],
      [bytes.subarray(0, 8 + 32 + 10), 'ends inside vote signature'],
      [bytes.subarray(0, bytes.length - 1), 'ends inside seed signature'],
      [Buffer.concat([bytes, Buffer.from([0])]), 'has 1 trailing bytes'],
      [`${cert}0`, 'is not hex of whole bytes'],
      ['0xzz', 'is not hex of whole bytes'],
      [`0x${'00'.repeat(200)}`, 'more than the 158 accepted'],
      ['', 'ends inside epoch'],
    ];
    for (const [input, message] of cases) {
      const err = (() => {
        try {
          decodeFinalization(input);
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(err, message).toBeInstanceOf(ConsensusDecodeError);
      expect((err as Error).message).toContain(message);
      expect((err as ConsensusDecodeError).code).toBe('consensus_decode');
    }
  });
});

describe('BLS12-381 points', () => {
  it('refuses a signature not on the curve and the point at infinity', () => {
    expect(() => parseSignature(Uint8Array.from([0xc0, ...Array(47).fill(0)]), 'vote signature')).toThrow(
      'vote signature is the point at infinity',
    );
    expect(() => parseSignature(Uint8Array.from([0x80, ...Array(46).fill(0), 0x05]), 'vote signature')).toThrow('is not a G1 point');
    expect(() => parseSignature(new Uint8Array(47), 'seed signature')).toThrow('seed signature is 47 bytes, not 48');
  });

  it('refuses a group key that is not 96 bytes, not on the curve or at infinity', () => {
    expect(() => parseGroupKey(`0xc0${'00'.repeat(95)}`)).toThrow('group key is the point at infinity');
    expect(() => parseGroupKey(`0x80${'00'.repeat(94)}07`)).toThrow('group key is not a G2 point');
    expect(() => parseGroupKey(`0x${'aa'.repeat(48)}`)).toThrow('group key is 48 bytes, not 96');
    expect(parseGroupKey(testKey('k').groupKey).hex).toBe(testKey('k').groupKey);
  });
});

describe('DKG outcomes (OnchainDkgOutcome)', () => {
  const key = testKey('outcome');
  const good = encodeDkgOutcome({ epoch: 7, groupKey: key.groupKey });
  const players = validatorKeys(4);

  it('decodes the test kit encoding to its members', () => {
    const o = parseDkgOutcome(good);
    expect(o).toMatchObject({
      epoch: 7,
      mode: 0,
      total: 4,
      groupKey: key.groupKey,
      players,
      dealers: players,
      revealed: [],
      nextPlayers: players,
      isNextFullDkg: false,
      trailingBytes: 0,
    });
    expect(o.polynomial).toHaveLength(3);
    expect(o.polynomial[0]).toBe(key.groupKey);
    // Like Tempo's reader, bytes after the outcome are counted, not refused.
    expect(parseDkgOutcome(`${good}abcd`).trailingBytes).toBe(2);
  });

  /** `good` with its byte at `offset` (from the start) replaced. */
  const patch = (offset: number, byte: number) => {
    const b = Buffer.from(good.slice(2), 'hex');
    b[offset] = byte;
    return b;
  };
  const modeAt = 1 + 32;
  const polyCountAt = modeAt + 1 + 4;
  const setsAt = polyCountAt + 1 + 3 * 96;

  it('refuses what Tempo refuses', () => {
    const bytes = Buffer.from(good.slice(2), 'hex');
    const cases: [Uint8Array | string, string][] = [
      [patch(modeAt, 1), 'sharing mode 1; Tempo reads only mode 0'],
      [Buffer.concat([bytes.subarray(0, modeAt + 1), Buffer.from([0, 0, 0, 0]), bytes.subarray(modeAt + 5)]), 'has 0 participants'],
      [patch(polyCountAt, 0), 'has 0 polynomial coefficients, outside 1..65535'],
      [patch(polyCountAt + 1, 0xc0), 'polynomial coefficient 0 that is not a G2 point'],
      [patch(setsAt, 0), 'has 0 dealers, outside 1..65535'],
      [patch(setsAt + 1 + 32, bytes[setsAt + 1]!), 'dealers that are not sorted and unique'],
      [patch(bytes.length - 1, 2), 'is_next_full_dkg 2, not a boolean'],
      [bytes.subarray(0, bytes.length - 1), 'ends inside is_next_full_dkg'],
      [`0x${'00'.repeat((1 << 20) + 1)}`, 'more than the 1048576 accepted'],
    ];
    for (const [input, message] of cases) expect(() => parseDkgOutcome(input), message).toThrow(message);
  });

  it('refuses a player key that is not an Ed25519 point', () => {
    // y = 2 does not decompress on edwards25519 (x² = (y² − 1)/(d·y² + 1) has no root).
    const notAPoint = `0x02${'00'.repeat(31)}` as const;
    const bad = encodeDkgOutcome({ epoch: 1, groupKey: key.groupKey, players: [notAPoint, ...players.slice(1)].sort() as `0x${string}`[] });
    expect(() => parseDkgOutcome(bad)).toThrow('that is not an Ed25519 point');
  });
});
