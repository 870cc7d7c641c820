/**
 * Tempo's fixed-length epochs (commonware `consensus/src/types.rs` `FixedEpocher`, built by tempoxyz/tempo
 * `crates/consensus/src/consensus/engine.rs` from the genesis `config.epochLength`): epoch = height / length
 * (integer division); an epoch's last block, height % length == length − 1, is its boundary and carries the next
 * epoch's DKG outcome (tempoxyz/tempo `crates/consensus/src/consensus/application/actor.rs`).
 */

/** @throws RangeError unless `epochLength` is a positive safe integer */
function checkLength(epochLength: number): void {
  if (!Number.isSafeInteger(epochLength) || epochLength < 1) throw new RangeError(`epoch length ${epochLength} is not a positive integer`);
}

/**
 * The epoch of a block height.
 * @example epochOf(25403305, 21600) // 1176
 */
export function epochOf(height: number, epochLength: number): number {
  checkLength(epochLength);
  return Math.floor(height / epochLength);
}

/**
 * Whether the height is its epoch's last block (whose `extraData` announces the next epoch's outcome).
 * @example isBoundary(21599, 21600) // true
 */
export function isBoundary(height: number, epochLength: number): boolean {
  checkLength(epochLength);
  return height % epochLength === epochLength - 1;
}

/**
 * The last block of an epoch: the boundary block announcing epoch + 1's outcome.
 * @example boundaryHeight(0, 21600) // 21599
 */
export function boundaryHeight(epoch: number, epochLength: number): number {
  checkLength(epochLength);
  return (epoch + 1) * epochLength - 1;
}
