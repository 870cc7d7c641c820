/**
 * Quarantine: a block that cannot be processed within its budget never stops collection. When a run's process
 * step (integrity, decode, serialization and the byte budget of ./budget.ts) fails, its blocks are processed again
 * one by one on this thread to find the one at fault; that block's failure is counted in the store, and once it
 * has failed CHAIN_DATA_LIMITS block_attempts turns in a row it is quarantined: the run is written without it (its
 * height stays a gap in coverage, its reason shown by /api/coverage and /api/status) and collection moves past it.
 * `paywatch collect --retry-quarantined` tries quarantined blocks again (retryQuarantined). A failure no single
 * block reproduces (a worker that died, say) is not a block's fault and fails the turn as before.
 */
import type { Logger } from 'pino';
import type { Store } from '../../store/db.js';
import {
  getCheckpoint,
  readQuarantined,
  recordBlockFailure,
  releaseQuarantined,
  writePreparedBlocks,
  type QuarantinedBlock,
} from '../../store/chain/index.js';
import { firstLine, type TempoRpc } from '../rpc.js';
import type { FetchedBlock, TokenMap } from '../types.js';
import { CHAIN_DATA_LIMITS } from '../decode/limits.js';
import { tokenAddressesOf, type PreparedBlock, type TokenRegistry } from './deps.js';
import { fetchConsistentRun } from './fetch.js';
import { processRun } from './process.js';

/** Longest reason stored for a failed block, characters (one line of a log or a status answer). */
const REASON_CHARS = 300;

/** Height of a fetched block (its `number`, a hex quantity). */
const heightOf = (f: FetchedBlock): number => Number(f.block.number);

/** One line naming why `e` failed a block, at most REASON_CHARS characters. */
function reasonOf(e: unknown): string {
  const code = (e as { code?: unknown })?.code;
  const line = firstLine(e);
  const text = typeof code === 'string' && !line.startsWith(code) ? `${code}: ${line}` : line;
  return text.length > REASON_CHARS ? `${text.slice(0, REASON_CHARS - 1)}…` : text;
}

/** The first block of `fetched` whose processing alone fails, with its error; null when each passes alone. */
async function blockAtFault(fetched: FetchedBlock[], tokens: TokenMap): Promise<{ block: FetchedBlock; error: unknown } | null> {
  for (const f of fetched) {
    try {
      await processRun([f], tokens);
    } catch (error) {
      return { block: f, error };
    }
  }
  return null;
}

/** What processWithQuarantine needs besides the run. */
export interface QuarantineContext {
  store: Store;
  log: Logger;
  /** The process step (DecodePool.process, or processRun inline). */
  process: (fetched: FetchedBlock[], tokens: TokenMap) => Promise<PreparedBlock[]>;
}

/**
 * Processes a run like `ctx.process`, quarantining the block at fault when it fails (see the module comment).
 * @returns the prepared blocks of the run, quarantined blocks left out (their heights stay gaps)
 * @throws the process step's error while the block at fault has failed fewer than block_attempts turns, and
 *   whenever no single block reproduces the failure; the store's error when the failure cannot be recorded
 */
export async function processWithQuarantine(fetched: FetchedBlock[], tokens: TokenMap, ctx: QuarantineContext): Promise<PreparedBlock[]> {
  try {
    return await ctx.process(fetched, tokens);
  } catch (e) {
    const fault = await blockAtFault(fetched, tokens);
    if (!fault) throw e;
    const height = heightOf(fault.block);
    const reason = reasonOf(fault.error);
    const row = await recordBlockFailure(
      ctx.store,
      { height, hash: fault.block.block.hash, reason },
      CHAIN_DATA_LIMITS.block_attempts.value,
      heightOf(fetched[0]),
    );
    if (row.quarantined_at === null) {
      ctx.log.warn({ height, attempts: row.attempts, reason }, 'block processing failed; retrying from the checkpoint');
      throw fault.error;
    }
    ctx.log.error(
      { height, attempts: row.attempts, reason },
      'block quarantined: collection moves past it (collect --retry-quarantined tries it again)',
    );
    const rest = fetched.filter((f) => f !== fault.block);
    return rest.length ? processWithQuarantine(rest, tokens, ctx) : [];
  }
}

/** What retryQuarantined did. */
export interface RetryOutcome {
  /** Heights written now (their gap is closed). */
  written: number[];
  /** Heights still quarantined, with the new reason. */
  failed: QuarantinedBlock[];
  /** Heights above the checkpoint: released, the collector processes them in order. */
  released: number[];
}

/**
 * Tries every quarantined block once more: fetched, its tokens resolved, processed, and on success written with
 * its coverage (the checkpoint is not moved) and released; on failure its attempts and reason are updated and it
 * stays quarantined. Run it while holding the collector lock, before the collector starts.
 * @throws the node's or the store's errors (RpcUnavailableError, StoreUnavailable); a block's own failure is not thrown
 */
export async function retryQuarantined(opts: { store: Store; rpc: TempoRpc; tokens: TokenRegistry; log: Logger }): Promise<RetryOutcome> {
  const { store, rpc, tokens, log } = opts;
  const out: RetryOutcome = { written: [], failed: [], released: [] };
  const blocks = await readQuarantined(store);
  if (!blocks.length) return out;
  const head = await rpc.finalizedHead();
  for (const q of blocks) {
    const checkpoint = await getCheckpoint(store);
    if (!checkpoint || q.height > checkpoint.height || q.height > head.height) {
      await releaseQuarantined(store, q.height);
      out.released.push(q.height);
      continue;
    }
    const [f] = await fetchConsistentRun(rpc, q.height, q.height, head.height, null);
    const map = await tokens.resolve([...new Set([...tokenAddressesOf(f)].map((a) => a.toLowerCase()))]);
    try {
      const prepared = await processRun([f], map);
      await writePreparedBlocks(store, prepared, { height: checkpoint.height, hash: checkpoint.hash });
      await releaseQuarantined(store, q.height);
      out.written.push(q.height);
      log.info({ height: q.height }, 'quarantined block written');
    } catch (e) {
      const row = await recordBlockFailure(store, { height: q.height, hash: f.block.hash, reason: reasonOf(e) }, 1, 0);
      out.failed.push(row);
      log.warn({ height: q.height, reason: row.reason, attempts: row.attempts }, 'quarantined block failed again; it stays quarantined');
    }
  }
  return out;
}
