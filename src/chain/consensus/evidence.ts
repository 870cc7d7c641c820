/**
 * The detail's `evidence.finality` (the contract leaves `evidence`'s shape open; the OpenAPI document describes
 * it) and the integrity member `independent_consensus_verified`, derived from one verification (./verify.ts) and
 * the witnesses' summary (./witnesses.ts).
 */
import type { FinalityVerification } from './types.js';
import type { WitnessSummary } from './witnesses.js';

/** `evidence.finality` of an observation: the verification of the certificate that covers its block. */
export interface FinalityEvidence {
  status: FinalityVerification['status'];
  /** The first check that did not pass (./types.ts), null when verified. */
  check: FinalityVerification['check'];
  reason: string;
  /** Height of the certified block: the observation's own or a descendant's (covered by the parent-hash chain). */
  certificate_height: number | null;
  epoch: number | null;
  view: number | null;
  key_from_epoch: number | null;
  anchored: boolean;
  witnesses: WitnessSummary;
  verified_at: string;
}

/** No witness configured. */
const NO_WITNESSES: WitnessSummary = { configured: 0, quorum: 0, agreeing: 0, disagreeing: 0 };

/**
 * The `evidence.finality` member. The status is the verification's alone: witnesses never change it.
 * @param witnesses their summary (compareWitnesses), or null when none is configured
 * @example finalityEvidence(verification, null).witnesses // { configured: 0, quorum: 0, agreeing: 0, disagreeing: 0 }
 */
export function finalityEvidence(v: FinalityVerification, witnesses: WitnessSummary | null): FinalityEvidence {
  const w = witnesses ?? NO_WITNESSES;
  return {
    status: v.status,
    check: v.check,
    reason: v.reason,
    certificate_height: v.certificate_height,
    epoch: v.epoch,
    view: v.view,
    key_from_epoch: v.key_from_epoch,
    anchored: v.anchored,
    witnesses: { configured: w.configured, quorum: w.quorum, agreeing: w.agreeing, disagreeing: w.disagreeing },
    verified_at: v.verified_at,
  };
}

/** The integrity member `independent_consensus_verified`: true exactly when checks 1–6 passed. */
export function isConsensusVerified(v: Pick<FinalityVerification, 'status'>): boolean {
  return v.status === 'verified';
}
