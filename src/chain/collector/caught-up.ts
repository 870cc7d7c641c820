/**
 * `collect --once` on a store already at the node's finalized head: checks the node (chain id 4217) and records
 * the collector's stopped state, as the full collector would, without loading the decoder, viem or the store
 * writer thread (most of a command's start-up), so a scheduled `collect --once` with nothing to do is cheap.
 */
import type { Config } from '../../config.js';
import { acquireCollectorLock } from '../../store/chain/collector-lock.js';
import { getCheckpoint, saveCollectorState } from '../../store/chain/index.js';
import type { Store } from '../../store/db.js';
import { TempoRpc } from '../rpc.js';

/** What a run with nothing to do saw: block heights. */
export interface CaughtUp {
  last_block: number;
  finalized_head: number;
  source: string;
}

/**
 * Takes the store's collector lock, reads the checkpoint and the node's finalized head; when the checkpoint is at
 * (or past) the head, saves the collector state `stopped` and returns what it saw; otherwise returns null and the
 * caller runs the collector. The lock is released before returning either way.
 * @throws CollectorLockedError when another collector holds the store; WrongChainError / RpcUnavailableError
 *   from TempoRpc.connect (as launchCollector would)
 */
export async function caughtUp(config: Config, store: Store): Promise<CaughtUp | null> {
  const lock = await acquireCollectorLock(store, config.db);
  try {
    const rpc = await TempoRpc.connect({
      url: config.rpcUrl,
      concurrency: 1,
      timeoutMs: config.rpcTimeoutMs,
      batchCalls: config.rpcBatchCalls,
      rate: config.rpcRate,
    });
    const cp = await getCheckpoint(store);
    if (!cp) return null;
    const head = await rpc.finalizedHead();
    if (cp.height < head.height) return null;
    await saveCollectorState(store, {
      state: 'stopped',
      source: rpc.source,
      last_block: cp.height,
      finalized_head: head.height,
      rate_tx_per_s: null,
      rate_blocks_per_s: null,
      last_error: null,
      last_error_at: null,
      updated_at: new Date().toISOString(),
    });
    return { last_block: cp.height, finalized_head: head.height, source: rpc.source };
  } finally {
    await lock.release();
  }
}
