/**
 * The errors of the finality check's decoders: bytes that are not what Tempo's consensus writes. The verifier
 * (./verify.ts) never throws them at its caller: it turns them into a `failed` or `unknown` result with the
 * message as the reason.
 */
import { PaywatchError } from '../../domain/errors.js';

/** What was being decoded. */
export type ConsensusItem = 'certificate' | 'dkg outcome' | 'group key' | 'signature' | 'key chain';

/**
 * Bytes that do not decode as the named item (a Tempo finalization certificate, an `OnchainDkgOutcome`, a
 * BLS12-381 point). `offset` is the byte where decoding stopped, when it stopped inside the item.
 * @example throw new ConsensusDecodeError('certificate', 'has 3 trailing bytes', 161)
 */
export class ConsensusDecodeError extends PaywatchError {
  constructor(
    readonly item: ConsensusItem,
    detail: string,
    readonly offset: number | null = null,
  ) {
    super(`${item} ${detail}${offset === null ? '' : ` (at byte ${offset})`}`, { code: 'consensus_decode' });
  }
}
