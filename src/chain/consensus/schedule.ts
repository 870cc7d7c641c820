/**
 * When the collector asks for a certificate (docs/integrity.md, "Around the checks, for the collector"): one per 1,000 blocks or per 60 s of collection, whichever comes first; one at the finalized head
 * whenever it catches up; and one for every epoch boundary block, so the key chain follows key changes
 * (./key-chain.ts). Collection never waits for it: blocks are written with finality unknown and upgraded when a
 * covering certificate verifies. Pure.
 */
import { isBoundary } from './epochs.js';

/** The spacing of certificates. */
export interface CertificateSpacing {
  /** Blocks between two certificates (default 1,000). */
  blocks: number;
  /** Milliseconds of collection between two certificates (default 60,000). */
  ms: number;
}

/** Default spacing. */
export const CERTIFICATE_SPACING: CertificateSpacing = { blocks: 1_000, ms: 60_000 };

/** Why a block's certificate is wanted. */
export type CertificateReason = 'boundary' | 'spacing' | 'head';

/**
 * Whether to ask for the certificate of the block just collected.
 * @param last the last block whose certificate was asked for, and when (ms since the epoch); null for none yet
 * @param block the block just collected, and now (ms)
 * @param caughtUp true when this block is the finalized head the collector has caught up to
 * @example certificateDue({ height: 1000, at: 0 }, { height: 2000, at: 5000 }, { caughtUp: false, epochLength: 21600 }) // 'spacing'
 * @returns the reason, or null when none is due
 */
export function certificateDue(
  last: { height: number; at: number } | null,
  block: { height: number; at: number },
  opts: { caughtUp: boolean; epochLength: number; spacing?: CertificateSpacing },
): CertificateReason | null {
  const spacing = opts.spacing ?? CERTIFICATE_SPACING;
  if (isBoundary(block.height, opts.epochLength)) return 'boundary';
  if (opts.caughtUp) return 'head';
  if (last === null || block.height - last.height >= spacing.blocks || block.at - last.at >= spacing.ms) return 'spacing';
  return null;
}
