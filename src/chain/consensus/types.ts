/**
 * The finality check's result: what ./verify.ts returns for one certificate and what ./key-chain.ts requires of
 * a boundary block's certificate. Its members are snake_case because they are served as they are, in the
 * detail's `evidence.finality` (./evidence.ts).
 */

/** verified: checks 1–6 passed; failed: a check proved the certificate wrong; unknown: it could not be judged. */
export type FinalityStatus = 'verified' | 'failed' | 'unknown';

/**
 * The six checks, in order (docs/integrity.md, "Finality verified from Tempo's own signatures"): 1 the
 * certificate decodes, 2 its epoch is the height's, 3 its payload is the recomputed block hash, 4 a post-T4
 * header's consensusContext is its round, 5 a group key is held for the epoch, 6 its signatures verify under it.
 */
export type FinalityCheck = 'certificate' | 'epoch' | 'payload' | 'context' | 'key' | 'signature';

/** The outcome of checking one finalization certificate against one block. */
export interface FinalityVerification {
  status: FinalityStatus;
  /** The first check that did not pass; null when verified (or when no certificate was there to check). */
  check: FinalityCheck | null;
  /** Why, in one ASCII sentence. */
  reason: string;
  /** Height of the certified block. */
  certificate_height: number | null;
  /** The certificate's payload (the block hash it finalizes), 0x lower-case hex; null before it decoded. */
  block_hash: `0x${string}` | null;
  /** The certificate's round; null before it decoded. */
  epoch: number | null;
  view: number | null;
  parent_view: number | null;
  /** The epoch from which the group key used has been held (announced or anchored); null when none was used. */
  key_from_epoch: number | null;
  /** True when the key used chains back to the configured anchor through verified boundary certificates. */
  anchored: boolean;
  /** The group key used (compressed G2, 0x hex), so a result can be tied to the key chain it came from; not served. */
  group_key: `0x${string}` | null;
  /** When the check ran, ISO 8601. */
  verified_at: string;
}
