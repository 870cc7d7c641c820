/**
 * A certificate finalizes its block and, through the parent-hash chain, every block below it: block h is covered
 * when block h + 1 is covered and h + 1's header names h's hash as its parent. Both hashes must be the ones
 * paywatch recomputed (integrity stage 2), so the chain is bound by the headers themselves, not by the node's
 * word. Pure: the caller passes the stored blocks (the `blocks` table), newest first.
 */

/** A collected block's link in the chain. */
export interface ChainLink {
  height: number;
  /** The recomputed block hash; null when it was not recomputed (the chain cannot pass through it). */
  hash: string | null;
  parentHash: string;
}

/** How far a certificate's coverage reaches down. */
export interface ParentChainCoverage {
  /** The lowest height covered; null when the first link is not the certified block. */
  coveredFrom: number | null;
  /** The height where the chain breaks (missing, not recomputed, or not its child's parent); null when every link was covered. */
  brokenAt: number | null;
  reason: string;
}

/**
 * Follows the parent-hash chain down from a verified certificate's block.
 * @param certifiedHash the certificate's payload (verifyFinality's `block_hash` of a verified result)
 * @param links the certified block first, then the blocks below it, newest first, down to where coverage should
 *   stop (the previous certificate, say)
 * @example coverByParentChain(h12, [b12, b11, b10]) // { coveredFrom: 10, brokenAt: null, reason: 'blocks 10 to 12 are covered …' }
 */
export function coverByParentChain(certifiedHash: string, links: readonly ChainLink[]): ParentChainCoverage {
  const top = links[0];
  if (!top || top.hash === null || top.hash.toLowerCase() !== certifiedHash.toLowerCase())
    return {
      coveredFrom: null,
      brokenAt: top?.height ?? null,
      reason: `the first block given is not the certified block ${certifiedHash}`,
    };
  let child = top;
  for (const link of links.slice(1)) {
    const at = child.height - 1;
    const broken = (reason: string): ParentChainCoverage => ({ coveredFrom: child.height, brokenAt: at, reason });
    if (link.height !== at) return broken(`block ${at} is missing`);
    if (link.hash === null) return broken(`block ${at}'s hash was not recomputed`);
    if (link.hash.toLowerCase() !== child.parentHash.toLowerCase())
      return broken(`block ${at}'s hash ${link.hash} is not block ${child.height}'s parent hash ${child.parentHash}`);
    child = link;
  }
  return {
    coveredFrom: child.height,
    brokenAt: null,
    reason: `blocks ${child.height} to ${top.height} are covered by the certificate of block ${top.height}`,
  };
}
