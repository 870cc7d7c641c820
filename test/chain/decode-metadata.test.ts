/**
 * Token metadata answers decoded with a byte cap (src/chain/decode/metadata.ts): the raw eth_call return of
 * symbol(), currency() and decimals(), ABI-encoded by viem here exactly as a contract returns it, or malformed
 * by hand where a contract could answer anything.
 */
import { describe, expect, it } from 'vitest';
import { encodeAbiParameters, numberToHex, toHex } from 'viem';
import { decodeMetadataDecimals, decodeMetadataString, escapePrefix } from '../../src/chain/decode/metadata.js';

const str = (s: string | Uint8Array) => encodeAbiParameters([{ type: 'bytes' }], [toHex(s)]);
const decode = (hex: string, cap = 64) => decodeMetadataString(hex, 'symbol', cap);

describe('decodeMetadataString', () => {
  it('decodes a symbol and a currency as a contract returns them', () => {
    expect(decode(encodeAbiParameters([{ type: 'string' }], ['pathUSD']))).toEqual({ value: 'pathUSD', issue: null });
    expect(decodeMetadataString(str('USD'), 'currency', 16)).toEqual({ value: 'USD', issue: null });
    expect(decode(str('€URC ✓'))).toEqual({ value: '€URC ✓', issue: null });
  });

  it('takes exactly the cap, and refuses one byte more as oversized with its declared length and an escaped prefix', () => {
    expect(decode(str('A'.repeat(64))).value).toBe('A'.repeat(64));
    expect(decode(str('A'.repeat(65)))).toEqual({
      value: null,
      issue: {
        kind: 'oversized_metadata',
        member: 'symbol',
        reason: '65 bytes, more than the cap of 64',
        bytes: 65,
        prefix: 'A'.repeat(32),
      },
    });
    // The cap counts UTF-8 bytes, not characters: 22 three-byte characters are 66 bytes.
    expect(decode(str('€'.repeat(22))).issue?.kind).toBe('oversized_metadata');
  });

  it('reads only the head of a huge answer: a 1 MiB declared length over a short body, or a length of 2^255', () => {
    const body = `0x${'0'.repeat(62)}20${numberToHex(1 << 20, { size: 32 }).slice(2)}${'41'.repeat(64)}`;
    expect(decode(body).issue).toMatchObject({ kind: 'oversized_metadata', bytes: 1 << 20, prefix: 'A'.repeat(32) });
    const huge = `0x${'0'.repeat(62)}20${numberToHex(2n ** 255n, { size: 32 }).slice(2)}`;
    expect(decode(huge).issue).toMatchObject({ kind: 'oversized_metadata', bytes: Number.MAX_SAFE_INTEGER, prefix: '' });
  });

  it('refuses answers that are not an ABI string as invalid_metadata', () => {
    expect(decode(numberToHex(6, { size: 32 })).issue?.kind).toBe('invalid_metadata'); // one word: a uint, not a string
    expect(decode(`0x${numberToHex(4096, { size: 32 }).slice(2)}${'0'.repeat(64)}`).issue?.kind).toBe('invalid_metadata'); // offset past the end
    const truncated = `0x${'0'.repeat(62)}20${numberToHex(40, { size: 32 }).slice(2)}${'41'.repeat(8)}`;
    expect(decode(truncated).issue).toMatchObject({ kind: 'invalid_metadata', reason: 'declares 40 bytes but the answer holds 8' });
    expect(decode(`0x${'zz'.repeat(64)}`).issue?.kind).toBe('invalid_metadata');
  });

  it('refuses bytes that are not UTF-8, showing them as \\xNN', () => {
    expect(decode(str(new Uint8Array([0x41, 0xff, 0xfe, 0x42])))).toEqual({
      value: null,
      issue: { kind: 'invalid_metadata', member: 'symbol', reason: 'not valid UTF-8', bytes: 4, prefix: 'A\\xff\\xfeB' },
    });
    // An encoded UTF-16 surrogate (CESU-8) is not UTF-8 either.
    expect(decode(str(new Uint8Array([0xed, 0xa0, 0x80]))).issue?.kind).toBe('invalid_metadata');
  });

  it('refuses bidi overrides and isolates as bidi_override: \\u202eDSUahplA displays as AlphaUSD', () => {
    for (const s of ['\u202eDSUahplA', 'Alpha\u2066USD\u2069', '\u200fUSD', 'US\u061cD'])
      expect(decode(str(s)).issue?.kind, JSON.stringify(s)).toBe('bidi_override');
    expect(decode(str('\u202eDSUahplA')).issue?.prefix).toBe('\\u202eDSUahplA');
  });

  it('refuses control characters (C0, DEL, C1, line and paragraph separators) as invalid_metadata', () => {
    for (const s of ['USD\n', 'US\u0000D', 'USD\u007f', 'USD\u0085', 'USD\u2028', '\u001b[31mUSD'])
      expect(decode(str(s)).issue, JSON.stringify(s)).toMatchObject({ kind: 'invalid_metadata', reason: 'carries control characters' });
  });

  it('gives null without an issue for an empty answer (no code, no such function) and for an empty string', () => {
    expect(decode('0x')).toEqual({ value: null, issue: null });
    expect(decode(str(''))).toEqual({ value: null, issue: null });
  });
});

describe('decodeMetadataDecimals', () => {
  it('takes a uint8 and refuses anything beyond it', () => {
    expect(decodeMetadataDecimals(numberToHex(6, { size: 32 }))).toEqual({ value: 6, issue: null });
    expect(decodeMetadataDecimals(numberToHex(255, { size: 32 }))).toEqual({ value: 255, issue: null });
    expect(decodeMetadataDecimals(numberToHex(256, { size: 32 })).issue?.kind).toBe('invalid_metadata');
    expect(decodeMetadataDecimals(numberToHex(10n ** 9n, { size: 32 })).value).toBeNull();
    expect(decodeMetadataDecimals('0x06').issue?.kind).toBe('invalid_metadata');
    expect(decodeMetadataDecimals('0x')).toEqual({ value: null, issue: null });
  });
});

describe('escapePrefix', () => {
  it('shows printable ASCII as is and everything else escaped, never raw', () => {
    expect(escapePrefix(new TextEncoder().encode('a\\b"c'))).toBe('a\\\\b"c');
    expect(escapePrefix(new TextEncoder().encode('é😀\n'))).toBe('\\u00e9\\u{1f600}\\u000a');
    // A multi-byte character cut by the prefix's end is left out, not shown as broken bytes.
    expect(escapePrefix(new TextEncoder().encode('ab€').subarray(0, 4))).toBe('ab');
  });
});
