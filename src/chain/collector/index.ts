/**
 * Wires a collector for a command: connects to the node (checking chain id 4217), takes the store's
 * collector lock, and builds the token registry on the same client (one batch size and pace for the node).
 */
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Store } from '../../store/db.js';
import { acquireCollectorLock, type CollectorLock } from '../../store/chain/collector-lock.js';
import { TempoRpc } from '../rpc.js';
import { Collector, type CollectorOptions } from './collector.js';
import { inlineWriter, openStoreWriter, TokenRegistry, type StoreWriter } from './deps.js';
import { type FinalityStep, finalityStepFor } from './finality.js';
import { RetentionStep } from './retention.js';

export { Collector, CollectorFailed, DEFAULT_BACKFILL_BLOCKS, lostLock } from './collector.js';
export type { CollectorStatus, CollectorPhase } from './state.js';
export { retryQuarantined, type RetryOutcome } from './quarantine.js';

/** A collector ready to `run()`, with the lock it holds. */
export interface LaunchedCollector {
  collector: Collector;
  rpc: TempoRpc;
  /** The collector's token registry (for retryQuarantined). */
  tokens: TokenRegistry;
  /** The finality step (certificate checks after each write). */
  finality: FinalityStep;
  /** Where runs are written: inline on the main thread, or a SqliteWriterThread (LaunchOptions.writerThread). */
  writer: StoreWriter;
  /** Ends the writer thread and releases the store lock (call after `run()` has returned). */
  release(): Promise<void>;
}

/** How a command runs its collector, beside the CollectorOptions it passes through. */
export interface LaunchOptions extends Pick<CollectorOptions, 'once' | 'onProgress' | 'stallAfterMs'> {
  /**
   * Write on a thread of its own (openStoreWriter: on a SQLite file) rather than on the main thread. Default true:
   * the main thread fetches, checks and decodes the next runs meanwhile, and the API of `start` or `demo` never
   * waits behind a write. Inline (false) spends less CPU — no second isolate compiling the store's code, no rows
   * copied to it — but serialises the work on one thread and collects slower on an idle box (docs/decisions.md
   * "The collector writes on its own thread").
   */
  writerThread?: boolean;
}

/**
 * Takes the store's collector lock (unless `held` is given), then connects to `config.rpcUrl` and builds a Collector.
 * @param store the open store; `config.db` must be the value it was opened with (the lock is per store)
 * @param opts `once`, `onProgress`, `stallAfterMs` for the Collector; `writerThread` (see LaunchOptions)
 * @param held a lock already taken (acquireOrStandBy); released like its own on failure and by `release()`
 * @throws CollectorLockedError when another collector holds the store; WrongChainError / RpcUnavailableError
 *   from TempoRpc.connect (the lock is released again in those cases)
 */
export async function launchCollector(
  config: Config,
  store: Store,
  log: Logger,
  opts: LaunchOptions = {},
  held?: CollectorLock,
): Promise<LaunchedCollector> {
  const lock: CollectorLock = held ?? (await acquireCollectorLock(store, config.db));
  try {
    const rpc = await TempoRpc.connect({
      url: config.rpcUrl,
      concurrency: config.rpcConcurrency,
      timeoutMs: config.rpcTimeoutMs,
      batchCalls: config.rpcBatchCalls,
      rate: config.rpcRate,
      log: log.child({ component: 'rpc' }),
      onRetry: ({ attempt, delayMs, error }) => log.debug({ attempt, delayMs, err: error }, 'rpc retry'),
    });
    const { writerThread = true, ...collectorOpts } = opts;
    const writer = writerThread ? openStoreWriter(store, config.db) : inlineWriter(store);
    const tokens = new TokenRegistry(rpc);
    const finality = finalityStepFor(config, store, log.child({ component: 'finality' }));
    const collector = new Collector({
      store,
      rpc,
      tokens,
      log: log.child({ component: 'collector' }),
      from: config.from,
      batchSize: config.batchSize,
      decodeWorkers: config.decodeWorkers ?? undefined,
      pollIntervalMs: config.pollIntervalMs,
      lock,
      writer,
      finality,
      retention: config.retainDays ? new RetentionStep(store, config.retainDays, log.child({ component: 'retention' })) : undefined,
      ...collectorOpts,
    });
    return {
      collector,
      rpc,
      tokens,
      finality,
      writer,
      release: async () => {
        await finality.idle(); // the checks queued by the last writes end before the store closes
        await writer.close(); // closed by run() already, unless it never ran
        await lock.release();
      },
    };
  } catch (e) {
    await lock.release();
    throw e;
  }
}
