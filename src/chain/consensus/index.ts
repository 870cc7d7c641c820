/**
 * Finality verified from Tempo's own signatures (docs/integrity.md, the section of that name): a finalization
 * certificate from `consensus_getFinalization` is checked against the block hash paywatch recomputed (integrity
 * stage 2) and the group key anchored at the chain's genesis DKG outcome, followed across epoch boundaries. Pure
 * except the reader, whose transport the caller supplies.
 *
 * @example
 * const keyChain = mainnetKeyChain();                   // or anchorKeyChain(--consensus-genesis)
 * if (certificateDue(last, { height, at: Date.now() }, { caughtUp, epochLength })) {
 *   const answer = await readFinalization(request, { height });
 *   const v = answer.kind === 'certified'
 *     ? verifyFinality({ certificate: answer.block.certificate, ...finalityBlock(f.block, commitment.blockHash) }, { keyChain, epochLength })
 *     : finalityUnknown(answer.reason, height);
 *   const evidence = finalityEvidence(v, witnesses);   // detail.evidence.finality
 *   const independent = isConsensusVerified(v);        // integrity.independent_consensus_verified
 * }
 */
export { boundaryBlock, finalityBlock } from './block.js';
export { GROUP_KEY_BYTES, type GroupKey, parseGroupKey, verifySignature } from './bls.js';
export { CERTIFICATE_MAX_BYTES, decodeFinalization, type Finalization } from './certificate.js';
export { ConsensusDecodeError, type ConsensusItem } from './errors.js';
export { type DkgOutcome, DKG_OUTCOME_MAX_BYTES, MAX_VALIDATORS, parseDkgOutcome } from './dkg-outcome.js';
export { boundaryHeight, epochOf, isBoundary } from './epochs.js';
export { type FinalityEvidence, finalityEvidence, isConsensusVerified } from './evidence.js';
export {
  acceptBoundary,
  anchorKeyChain,
  type BoundaryAcceptance,
  type BoundaryBlock,
  type HeldKey,
  type KeyChain,
  keyForEpoch,
  mainnetKeyChain,
  restoreKeyChain,
} from './key-chain.js';
export { MAINNET_EPOCH_LENGTH, MAINNET_GENESIS_OUTCOME, MAINNET_NETWORK_IDENTITY } from './mainnet.js';
export { type ChainLink, coverByParentChain, type ParentChainCoverage } from './parent-chain.js';
export { FINALIZE_NAMESPACE, MINSIG_DST, NOTARIZE_NAMESPACE, SEED_NAMESPACE, signedMessage, TEMPO_NAMESPACE } from './messages.js';
export {
  type CertifiedBlock,
  CONSENSUS_READ_DEFAULTS,
  type ConsensusRequest,
  type FinalizationAnswer,
  type FinalizationQuery,
  type ReadOptions,
  readFinalization,
  readLatestFinalized,
  type RequestLimits,
} from './reader.js';
export { CERTIFICATE_SPACING, type CertificateReason, type CertificateSpacing, certificateDue } from './schedule.js';
export type { FinalityCheck, FinalityStatus, FinalityVerification } from './types.js';
export { type ContextRound, type FinalityInput, type FinalityOptions, finalityUnknown, verifyFinality } from './verify.js';
export { compareWitnesses, type WitnessComparison, type WitnessReport, type WitnessSummary } from './witnesses.js';
