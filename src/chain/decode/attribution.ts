/** MPP attribution memos: decoded in src/domain/mpp-attribution.ts (shared with the payment matcher), re-exported here. */
export { decodeMppAttribution, mppFingerprint, type MppAttribution } from '../../domain/mpp-attribution.js';
