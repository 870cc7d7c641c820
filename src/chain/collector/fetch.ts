/**
 * Fetches a run of consecutive finalized blocks with their receipts and accepts only answers that agree with
 * themselves (findInconsistencies) and with each other (each block's parentHash is the previous block's hash).
 * A disagreeing block is fetched again; nothing inconsistent ever leaves this module.
 */
import { PaywatchError } from '../../domain/errors.js';
import { withRetry } from '../../net/retry.js';
import type { TempoRpc } from '../rpc.js';
import type { FetchedBlock } from '../types.js';
import { findInconsistencies } from './deps.js';

/** The node kept giving inconsistent answers for a block after every attempt. */
export class InconsistentAnswerError extends PaywatchError {
  constructor(
    readonly height: number,
    readonly problems: string[],
  ) {
    super(`block ${height}: the node's answers stayed inconsistent: ${problems[0]}`, { code: 'inconsistent_answer', retryable: true });
  }
}

export interface FetchOptions {
  /** Attempts per block before giving up (default 6). */
  maxAttempts?: number;
  /** First delay between attempts, milliseconds, doubled each time (default 200). */
  baseDelayMs?: number;
  /** Called for each rejected answer, for logs. */
  onInconsistent?: (height: number, problems: string[]) => void;
}

/**
 * Fetches blocks `first..last` (inclusive), each with full transactions and receipts, all at or below the
 * source's finalized head `finalizedHeight`.
 * @param previousHash hash of block `first − 1` as stored (the checkpoint), or null when unknown; block
 *   `first`'s parentHash must equal it
 * @returns FetchedBlocks in height order, each consistent
 * @throws InconsistentAnswerError after `maxAttempts`; RpcUnavailableError from the client
 */
export async function fetchConsistentRun(
  rpc: TempoRpc,
  first: number,
  last: number,
  finalizedHeight: number,
  previousHash: string | null,
  opts: FetchOptions = {},
): Promise<FetchedBlock[]> {
  const maxAttempts = opts.maxAttempts ?? 6;
  const out = new Map<number, FetchedBlock>();
  let pending = Array.from({ length: last - first + 1 }, (_, i) => first + i);
  // Only inconsistent answers are retried here (the blocks concerned alone); the client retries transport failures.
  return withRetry(
    async () => {
      const fetchedAt = new Date().toISOString();
      const answers = await rpc.blocksWithReceipts(pending);
      const problemsOf = new Map<number, string[]>();
      pending.forEach((h, i) => {
        const f: FetchedBlock = { block: answers[i].block!, receipts: answers[i].receipts, finalizedHeight, source: rpc.source, fetchedAt };
        const problems = findInconsistencies(f, h);
        if (problems.length > 0) problemsOf.set(h, problems);
        else out.set(h, f);
      });
      // Link check over the whole run, including blocks accepted in earlier attempts.
      for (let h = first; h <= last; h++) {
        const f = out.get(h);
        const parent = h === first ? previousHash : (out.get(h - 1)?.block.hash ?? null);
        if (!f || parent === null || f.block.parentHash?.toLowerCase() === parent.toLowerCase()) continue;
        const msg = `block ${h} parentHash ${f.block.parentHash} differs from block ${h - 1} hash ${parent}`;
        problemsOf.set(h, [...(problemsOf.get(h) ?? []), msg]);
        out.delete(h);
        // The parent may be the wrong one: fetch it again too, unless it is the stored checkpoint.
        if (h !== first) {
          problemsOf.set(h - 1, [...(problemsOf.get(h - 1) ?? []), msg]);
          out.delete(h - 1);
        }
      }
      if (problemsOf.size === 0) return Array.from({ length: last - first + 1 }, (_, i) => out.get(first + i)!);
      for (const [h, p] of problemsOf) opts.onInconsistent?.(h, p);
      pending = [...problemsOf.keys()].sort((a, b) => a - b);
      const [h, p] = [...problemsOf][0];
      throw new InconsistentAnswerError(h, p);
    },
    { attempts: maxAttempts, baseMs: opts.baseDelayMs ?? 200, maxMs: 10_000, shouldRetry: (e) => e instanceof InconsistentAnswerError },
  );
}
