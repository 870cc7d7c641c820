/**
 * The rules of the chain metrics that more than the server needs (the explorer imports this module too, so it stays
 * pure: no I/O, no server code). Source: docs/api-chain.md, "Metrics".
 */

/** /api/metrics and /api/metrics/series aggregate the latest this many matches (`analyzed`, `truncated`). */
export const METRICS_WINDOW = 50_000;

/**
 * The success rate: the share of `success` among observations whose execution is known (success or failed);
 * unknown executions count in neither.
 * @returns a number in [0, 1], or null when no execution is known (unknown, not 0)
 * @example successRate(3, 1) // 0.75
 */
export function successRate(success: number, failed: number): number | null {
  return success + failed > 0 ? success / (success + failed) : null;
}
