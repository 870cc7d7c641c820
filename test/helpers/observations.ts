/**
 * Realistic synthetic observations for store and API tests (the same generator as `paywatch seed`), plus
 * small builders for hand-made edge cases.
 */
import type { BlockObservations, Observation } from '../../src/domain/observation.js';
import { syntheticBlocks, type SyntheticOptions } from '../../src/seed/chain.js';

/** All blocks of a synthetic set, as an array (tests use sets of a few hundred observations). */
export function makeBlocks(opts: SyntheticOptions): BlockObservations[] {
  return [...syntheticBlocks(opts)];
}

/**
 * Synthetic blocks `spacing` seconds apart from `startTime` whose details name a payer: the sender, or for every
 * `selfEvery`-th observation that is not an exchange the recipient (a self-payment).
 */
export function* blocksWithPayers(
  opts: SyntheticOptions & { startTime: number; spacing: number; selfEvery: number },
): Generator<BlockObservations> {
  let k = 0;
  const first = opts.startHeight ?? 1_000_000;
  for (const b of syntheticBlocks(opts)) {
    for (const o of b.observations) {
      if (o.exchange) continue;
      (o.detail as { payer?: string | null }).payer = k++ % opts.selfEvery === 0 ? o.recipient : o.sender;
    }
    const time = opts.startTime + (b.height - first) * opts.spacing;
    yield { ...b, time, observations: b.observations.map((o) => ({ ...o, time })) };
  }
}

/** The observations of `blocks`, flattened. */
export function observationsOf(blocks: BlockObservations[]): Observation[] {
  return blocks.flatMap((b) => b.observations);
}

/** The public sort: time descending, then hash ascending. */
export function publicOrder(a: { time: number; hash: string }, b: { time: number; hash: string }): number {
  return b.time - a.time || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0);
}

/** An empty block at `height` (coverage without observations). */
export function emptyBlock(height: number, time = 1_767_225_600 + height): BlockObservations {
  return { height, time, hash: `0x${height.toString(16).padStart(64, '0')}`, observations: [] };
}

/** A copy of `b` moved to another height and time, with fresh hashes (for out-of-order writes). */
export function relocate(b: BlockObservations, height: number, time: number): BlockObservations {
  const tag = height.toString(16).padStart(8, '0');
  return {
    height,
    time,
    hash: `0x${tag}${b.hash.slice(10)}`,
    observations: b.observations.map((o) => ({ ...o, height, time, hash: `0x${tag}${o.hash.slice(10)}` as `0x${string}` })),
  };
}
