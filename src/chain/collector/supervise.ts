/**
 * The chain collector of a long-running process (`paywatch start`): launches it, and while the node cannot be
 * reached at start-up keeps trying with backoff instead of giving up, showing `error` with the last message in
 * /api/status (live and in the store) and /readyz, so the API keeps serving what is stored. Once launched, the
 * collector itself retries a node lost later (./collector.ts). On PostgreSQL, while another collector holds the
 * store it stands by (`standby`, polling the lock) and takes over when that one goes, also after losing the lock
 * itself. `collect --once` does not use this: it fails fast.
 */
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import { getCheckpoint, saveCollectorState, type CollectorState } from '../../store/chain/index.js';
import type { Store } from '../../store/db.js';
import { withRetry } from '../../net/retry.js';
import { recordCollectorState } from '../../ops/metrics.js';
import { RpcUnavailableError, type RpcStats } from '../rpc.js';
import { redactUrl } from '../../net/redact-url.js';
import { acquireOrStandBy } from '../../store/chain/collector-lock.js';
import { launchCollector, lostLock, type LaunchedCollector } from './index.js';
import { shortMessage } from '../../domain/errors.js';

/** What /api/status shows of the collector (CollectorState plus its live members). */
export type CollectorReport = CollectorState & { behind_blocks: number | null; started_at: string; rpc?: RpcStats };

/** A supervised collector. */
export interface SupervisedCollector {
  /** The collector's state now (the launched collector's, or the supervisor's while it waits for the node). */
  report(): CollectorReport;
  /** Asks it to stop: ends the current write, or the wait for the node. */
  stop(): void;
  /**
   * Resolves once stopped; rejects with the fatal error (wrong chain, store held by another collector, a store
   * that does not fit the node) after which the process should stop.
   */
  done: Promise<void>;
}

/**
 * Starts supervising a collector over `store`.
 * @param retry the backoff between launch attempts, milliseconds (default 1 s doubling to 30 s, full jitter)
 */
export function superviseCollector(
  config: Config,
  store: Store,
  log: Logger,
  retry = { baseMs: 1000, maxMs: 30_000 },
): SupervisedCollector {
  const abort = new AbortController();
  const startedAt = new Date().toISOString();
  let launched: LaunchedCollector | null = null;
  let waiting: CollectorReport = {
    state: 'running',
    source: redactUrl(config.rpcUrl),
    last_block: null,
    finalized_head: null,
    rate_tx_per_s: null,
    rate_blocks_per_s: null,
    last_error: null,
    last_error_at: null,
    updated_at: startedAt,
    behind_blocks: null,
    started_at: startedAt,
  };

  const standBy = (holder: number | null) => {
    const now = new Date().toISOString();
    waiting = { ...waiting, state: 'standby', updated_at: now };
    recordCollectorState('standby');
    log.info({ holder_pid: holder }, 'another collector holds the store; standing by');
  };

  // Until the node answers or the process stops: the API serves what is stored meanwhile.
  const launch = async (): Promise<LaunchedCollector | null> => {
    try {
      return await withRetry(
        async () => {
          const lock = await acquireOrStandBy(store, config.db, { signal: abort.signal, onStandby: standBy });
          return lock && (await launchCollector(config, store, log, {}, lock));
        },
        {
          attempts: Infinity,
          baseMs: retry.baseMs,
          maxMs: retry.maxMs,
          signal: abort.signal,
          shouldRetry: (e) => e instanceof RpcUnavailableError,
          onRetry: async ({ attempt, error }) => {
            const message = shortMessage(error);
            const now = new Date().toISOString();
            const cp = await getCheckpoint(store).catch(() => null);
            waiting = {
              ...waiting,
              state: 'error',
              last_block: cp?.height ?? null,
              last_error: message,
              last_error_at: now,
              updated_at: now,
            };
            recordCollectorState('error');
            log.warn({ err: message, attempt }, 'cannot reach the node; serving what is stored and trying again');
            const { behind_blocks: _b, started_at: _s, ...stored } = waiting;
            await saveCollectorState(store, stored).catch(() => {});
          },
        },
      );
    } catch (e) {
      if (abort.signal.aborted && e instanceof RpcUnavailableError) return null;
      throw e;
    }
  };

  const done = (async () => {
    while (!abort.signal.aborted) {
      launched = await launch();
      if (!launched) return;
      try {
        if (!abort.signal.aborted) await launched.collector.run();
        return;
      } catch (e) {
        // Another collector took the lock while this one's session was lost: it writes now; stand by again.
        if (!lostLock(e)) throw e;
        log.warn({ err: shortMessage(e) }, 'lost the collector lock to another collector; standing by');
      } finally {
        await launched.release();
        launched = null;
      }
    }
  })();
  done.catch(() => {}); // the caller awaits it; never an unhandled rejection meanwhile

  return {
    report: () => (launched ? launched.collector.report() : waiting),
    stop: () => {
      abort.abort();
      launched?.collector.stop();
    },
    done,
  };
}
