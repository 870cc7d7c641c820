/**
 * decodeStaticWords (src/chain/decode/words.ts) against viem's decodeAbiParameters, the answer it short-cuts:
 * addresses compared lower-cased (ours are, viem checksums them); random words (non-zero high bytes of address words included), upper-case hex, longer data, and every shape it
 * declines (other types, short or non-hex data) returning null.
 */
import fc from 'fast-check';
import { decodeAbiParameters, type AbiParameter, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { decodeStaticWords } from '../../src/chain/decode/words.js';
import { lowerAddresses } from './lower-addresses.js';

const word = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));
const param = fc.constantFrom<AbiParameter>({ type: 'address', name: 'a' }, { type: 'uint256', name: 'u' }, { type: 'bytes32', name: 'b' });

describe('decodeStaticWords', () => {
  it('gives what decodeAbiParameters gives for address, uint256 and bytes32 words (addresses lower-case)', () => {
    fc.assert(
      fc.property(
        fc.array(param, { minLength: 1, maxLength: 4 }),
        fc.array(word, { minLength: 4, maxLength: 6 }),
        fc.boolean(),
        (params, words, upper) => {
          let data = `0x${words.join('')}`;
          if (upper) data = `0x${data.slice(2).toUpperCase()}`;
          expect(decodeStaticWords(params, data)).toEqual(lowerAddresses([...decodeAbiParameters(params, data as Hex)]));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('declines other types, short data and non-hex data, leaving them to viem', () => {
    const w = `${'00'.repeat(31)}01`;
    expect(decodeStaticWords([{ type: 'string', name: 's' }], `0x${w}${w}`)).toBeNull();
    expect(decodeStaticWords([{ type: 'uint8', name: 'n' }], `0x${w}`)).toBeNull();
    expect(
      decodeStaticWords(
        [
          { type: 'uint256', name: 'u' },
          { type: 'uint256', name: 'v' },
        ],
        `0x${w}`,
      ),
    ).toBeNull();
    expect(decodeStaticWords([{ type: 'uint256', name: 'u' }], `0x${w.slice(0, 62)}zz`)).toBeNull();
    expect(decodeStaticWords([{ type: 'uint256', name: 'u' }], `0x${w}`)).toEqual([1n]);
  });
});
