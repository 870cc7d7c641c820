/**
 * `paywatch integrity verify`: re-checks what the collector stored in the `blocks` table (src/store/chain/finality.ts)
 * without asking any node: every block's parent hash is the stored hash of the block below it, and every stored
 * finalization certificate still verifies (src/chain/consensus/verify.ts checks 1, 2, 3, 5 and 6) against the
 * stored block hash under the key chain anchored at the configured genesis outcome. Check 4 (the header's
 * consensusContext) needs the header, which is not stored; the collector ran it when the certificate was read.
 */
import { anchorKeyChain, type KeyChain, keyForEpoch, mainnetKeyChain, restoreKeyChain, verifyFinality } from './consensus/index.js';
import type { Store } from '../store/db.js';
import { blockRange, readBlocks, readFinalityState, type StoredBlock } from '../store/chain/index.js';

/** Blocks read per query. */
const CHUNK = 10_000;

/** One thing that does not re-verify. */
export interface Mismatch {
  height: number;
  kind: 'parent' | 'certificate';
  reason: string;
}

/** What a re-verification found. */
export interface ReverifyReport {
  from: number | null;
  to: number | null;
  blocks: number;
  /** Links checked (pairs of consecutive stored heights). */
  links: number;
  certificates: number;
  certificates_verified: number;
  /** Heights between from and to with no stored block (not collected). */
  missing: number;
  mismatches: Mismatch[];
}

/**
 * Re-verifies stored blocks in [from, to] (default: every stored block).
 * @param opts.genesis the trusted genesis outcome (hex) or null for mainnet's; opts.epochLength blocks per epoch
 * @param opts.maxMismatches mismatches listed at most (the count of blocks checked goes on)
 */
export async function reverifyStoredBlocks(
  store: Store,
  opts: { from?: number | null; to?: number | null; genesis: string | null; epochLength: number; maxMismatches?: number },
): Promise<ReverifyReport> {
  const range = await blockRange(store.db);
  const from = Math.max(opts.from ?? range?.first ?? 0, range?.first ?? 0);
  const to = Math.min(opts.to ?? range?.last ?? -1, range?.last ?? -1);
  const report: ReverifyReport = {
    from: range ? from : null,
    to: range ? to : null,
    blocks: 0,
    links: 0,
    certificates: 0,
    certificates_verified: 0,
    missing: 0,
    mismatches: [],
  };
  if (!range || from > to) return report;
  const chain = await keyChainOf(store, opts.genesis);
  const max = opts.maxMismatches ?? 1000;
  const add = (m: Mismatch) => {
    if (report.mismatches.length < max) report.mismatches.push(m);
  };
  let below: StoredBlock | null = from > range.first ? ((await readBlocks(store.db, from - 1, from - 1, 1))[0] ?? null) : null;
  for (let start = from; start <= to; start += CHUNK) {
    const end = Math.min(to, start + CHUNK - 1);
    const blocks = (await readBlocks(store.db, start, end, CHUNK)).reverse();
    for (const b of blocks) {
      report.blocks++;
      if (below && below.height === b.height - 1) {
        report.links++;
        if (below.hash !== b.parentHash)
          add({
            height: b.height,
            kind: 'parent',
            reason: `block ${b.height}'s parent hash ${b.parentHash} is not block ${below.height}'s hash ${below.hash}`,
          });
      }
      if (b.certificate) {
        report.certificates++;
        const v = verifyFinality(
          { certificate: b.certificate, height: b.height, blockHash: b.hash, context: null },
          { keyChain: chain, epochLength: opts.epochLength },
        );
        if (v.status === 'verified') report.certificates_verified++;
        else add({ height: b.height, kind: 'certificate', reason: `${v.status}${v.check ? ` (${v.check})` : ''}: ${v.reason}` });
      }
      below = b;
    }
  }
  report.missing = to - from + 1 - report.blocks;
  return report;
}

/** The stored key chain when it grows from the configured anchor (its followed key changes), else the anchor. */
async function keyChainOf(store: Store, genesis: string | null): Promise<KeyChain> {
  const anchor = genesis ? anchorKeyChain(genesis, 'configured genesis outcome (--consensus-genesis)') : mainnetKeyChain();
  const stored = (await readFinalityState(store.db)).keyChain;
  if (!stored) return anchor;
  try {
    const chain = restoreKeyChain(stored);
    const a = keyForEpoch(anchor, anchor.keys[0]!.from_epoch)!;
    return chain.keys[0]!.key === a.key.hex && chain.keys[0]!.from_epoch === anchor.keys[0]!.from_epoch ? chain : anchor;
  } catch {
    return anchor;
  }
}
