/**
 * A fast path for the ABI decoding the decoder does most: parameters that are all `address`, `uint256` or
 * `bytes32`, each one 32-byte word in place (TIP-20 Transfer/Mint/Burn data, transfer/transferWithMemo/approve
 * calldata). It gives what viem's decodeAbiParameters gives for them, except that addresses come lower-case
 * instead of checksummed (address: last 20 bytes of the word, as viem reads it; uint256: unsigned integer;
 * bytes32: lower-case hex), without viem's byte copies and cursor; every other shape returns null and goes to
 * viem. Lower-case because every consumer lower-cases addresses anyway, and the EIP-55 checksum (a keccak256
 * and an LRU lookup per address) was a tenth of the decoder's time. test/chain/decode-words.test.ts holds it to
 * decodeAbiParameters, addresses compared lower-cased.
 */
import type { AbiParameter } from 'viem';

const HEX = /^0x[0-9a-fA-F]*$/;

/**
 * Decodes `params` from `data` when every one is address, uint256 or bytes32.
 * @param params the ABI parameters, in order
 * @param data 0x hex (calldata after the selector, or log data); longer data is allowed, as in viem
 * @returns the values in order (addresses lower-case), or null when a parameter has another type or `data` is not hex or too short
 *   (then viem decides, and throws where it throws)
 */
export function decodeStaticWords(params: readonly AbiParameter[], data: string): unknown[] | null {
  if (data.length < 2 + 64 * params.length || !HEX.test(data)) return null;
  const out: unknown[] = new Array(params.length);
  for (let i = 0; i < params.length; i++) {
    const at = 2 + 64 * i;
    switch (params[i]!.type) {
      case 'address':
        out[i] = `0x${data.slice(at + 24, at + 64).toLowerCase()}`;
        break;
      case 'uint256':
        out[i] = BigInt(`0x${data.slice(at, at + 64)}`);
        break;
      case 'bytes32':
        out[i] = `0x${data.slice(at, at + 64).toLowerCase()}`;
        break;
      default:
        return null;
    }
  }
  return out;
}
