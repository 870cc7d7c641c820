/**
 * The collector: a restartable loop that copies finalized Tempo blocks into the store, in height order.
 *
 * Each turn: read the source's finalized head; fetch the next run of at most `batchSize` blocks with receipts
 * (fetchConsistentRun: cross-checked, refetched until consistent); resolve their tokens; evaluate integrity;
 * decode; write the run's observations, coverage and checkpoint in one store transaction. Several runs are in
 * flight ahead of the write (pipelineDepth), fetched concurrently (the client bounds the HTTP requests), and
 * integrity + decode may run on worker threads (DecodePool), so fetching, decoding and writing overlap; the
 * parent-hash link between runs is checked in height order before the write (a break refetches from it), and
 * writes stay strictly in height order, so the checkpoint is always contiguous. Any failure is recorded (`error`), backed off with
 * jitter, and the turn starts again from the stored checkpoint, so a crash or a fault never skips or repeats
 * a block. See docs/collector.md.
 */
import { PaywatchError } from '../../domain/errors.js';
import { backoffDelayMs, sleep } from '../../net/backoff.js';
import { withRetry } from '../../net/retry.js';
import { isStoreOutage } from '../../store/outage.js';
import { collectorFinalizedHead, recordCollectorState, recordWrite } from '../../ops/metrics.js';
import type { Logger } from 'pino';
import type { Store } from '../../store/db.js';
import { CollectorLockLostError, type CollectorLock } from '../../store/chain/collector-lock.js';
import { firstLine, type RpcStats, type TempoRpc } from '../rpc.js';
import type { FetchedBlock } from '../types.js';
import {
  getCheckpoint,
  saveCollectorState,
  inlineWriter,
  tokenAddressesOf,
  type CollectorState,
  type PreparedBlock,
  type StoreWriter,
  type TokenRegistry,
} from './deps.js';
import { fetchConsistentRun, InconsistentAnswerError } from './fetch.js';
import type { FinalityHook } from './finality.js';
import type { RetentionHook } from './retention.js';
import { DecodePool } from './pool.js';
import { processWithQuarantine } from './quarantine.js';
import { RateMeter, toStoredState, type CollectorPhase, type CollectorStatus } from './state.js';

/** Blocks behind the finalized head where a fresh store starts when no `from` is given (docs/collector.md). */
export const DEFAULT_BACKFILL_BLOCKS = 10_000;

/**
 * Runs in flight (fetching or decoding) ahead of the one being written, at least; bounds memory to ~that many
 * runs (with the default 50 blocks of ~10 transactions, ~25 MB of parsed blocks). Runs are fetched
 * concurrently, so with the default 8 requests in flight and 40 calls per request, 5 runs keep every request
 * busy (docs/collector.md); more runs only when the node's batch size or `--rpc-concurrency` asks for them.
 */
export const PIPELINE_DEPTH = 5;

/** The most runs in flight whatever the settings (memory: ~5 MB of parsed blocks per run of 50). */
export const MAX_PIPELINE_DEPTH = 32;

/**
 * Decode worker threads by default: none. A worker takes the integrity + decode + serialization of whole runs
 * (rows come back as flat strings, cheap to pass) while the main thread fetches and writes, and runs go inline
 * whenever it is busy or still loading; but loading it costs about 2 s of CPU (tsx + viem in a fresh thread),
 * and on the 2-core benchmark box, where the node takes the other core, a loaded worker gained only ~10%
 * (bench/results/ingest.md). Opt in with PAYWATCH_DECODE_WORKERS on machines with cores to spare.
 */
export const DEFAULT_DECODE_WORKERS = 0;

export interface CollectorOptions {
  store: Store;
  rpc: TempoRpc;
  tokens: TokenRegistry;
  log: Logger;
  /** First height on a fresh store; null = finalized head − 10,000 (never below 0). Ignored once a checkpoint exists. */
  from: number | null;
  /** Blocks per fetch-and-write run. */
  batchSize: number;
  /** Milliseconds between head polls once caught up. */
  pollIntervalMs: number;
  /** Collect up to the finalized head read at start, then return. */
  once?: boolean;
  /** Milliseconds without a new finalized block before the state becomes `stalled` (default max(30 s, 10 polls)). */
  stallAfterMs?: number;
  /** With `once`, consecutive failed turns before giving up (default 6). */
  maxFailedTurns?: number;
  /** Worker threads for integrity + decode (default DEFAULT_DECODE_WORKERS; 0 = on the main thread). */
  decodeWorkers?: number;
  /**
   * The store's collector lock (acquireCollectorLock), checked before each write: a lost PostgreSQL session is
   * taken again, and a lock another collector took meanwhile ends `run()` with CollectorFailed.
   */
  lock?: Pick<CollectorLock, 'assertHeld'>;
  /**
   * Where runs are written (openStoreWriter: a thread of its own on a SQLite file); default inline on `store`.
   * The collector closes it when `run()` returns.
   */
  writer?: StoreWriter;
  /** The finality step (./finality.ts): told of each written batch; it never makes collection wait. */
  finality?: FinalityHook;
  /** The retention step (./retention.ts, `--retain-days`): run between writes, a short budget each time. */
  retention?: RetentionHook;
  /** Called after each written run: last written height, the target head, and counts written in this run. */
  onProgress?: (p: { lastBlock: number; head: number; startHeight: number; blocks: number; transactions: number }) => void;
}

/**
 * The collector cannot go on (only with `once`, or for a store that does not fit the source); `cause` is the
 * CollectorLockLostError when another collector took the lock (lostLock tells).
 */
export class CollectorFailed extends PaywatchError {
  constructor(message: string, cause?: unknown) {
    super(message, { code: 'collector_failed', cause });
  }
}

/** True when `e` ended a collector because another collector took the lock (it may stand by again). */
export function lostLock(e: unknown): boolean {
  return e instanceof CollectorFailed && e.cause instanceof CollectorLockLostError;
}

/**
 * Decoded runs written together in one store transaction at most, when they are ready at once (the writer was
 * slower for a moment): each commit rewrites every index page it touched, so fewer, larger transactions cost
 * less per transaction stored (docs/decisions.md). Never waits for a run: a write takes only what is decoded
 * already.
 */
export const RUNS_PER_WRITE = 4;

/**
 * Blocks per run: `batchSize` rounded to the nearest multiple of the blocks whose calls (2 a block: the block and
 * its receipts) fill whole requests of `batchCalls` calls, so no request of a run goes out part-empty (a run of
 * 50 blocks at 40 calls per request is 40 + 40 + 20 calls: 3 requests where 2.5 would do, which a node that
 * limits requests per second, or a distant one, makes 17% slower). A batch size below that unit is kept.
 * @param batchSize `--batch-size`, blocks (≥ 1)
 * @param batchCalls the node's calls per request in use (≥ 1)
 * @returns blocks per run, ≥ 1
 */
export function runBlocksFor(batchSize: number, batchCalls: number): number {
  const unit = batchCalls % 2 === 0 ? batchCalls / 2 : batchCalls;
  if (unit > batchSize) return batchSize;
  return Math.max(unit, Math.round(batchSize / unit) * unit);
}

/** Attempts of one store write refused as unavailable (isStoreOutage) before the turn fails. */
export const WRITE_ATTEMPTS = 3;

/** Hash of the last block of a fetched run (the checkpoint after it, and the parent of the next run). */
const lastHashOf = (fetched: FetchedBlock[]): string => fetched[fetched.length - 1].block.hash;

/** A run once fetched, checked inside itself and decoded: what its link check and its write need. */
interface DecodedRun {
  first: number;
  last: number;
  /** Hash of the run's last block (the checkpoint after it). */
  lastHash: string;
  /** parentHash of the run's first block (checked against the block before it at write time). */
  parentHash: string;
  blocks: PreparedBlock[];
}

/**
 * One run in the pipeline, evaluated and decoded. The fetched blocks themselves are not kept: once decoded they
 * are garbage, so the runs waiting in the queue hold only their serialized rows (less to copy at each
 * young-generation collection).
 */
interface Run {
  first: number;
  last: number;
  decoded: Promise<DecodedRun>;
  /** Set once `decoded` has resolved. */
  done?: DecodedRun;
}

/** What a turn (from the checkpoint to a failure or a stop) carries from one write to the next. */
interface Turn {
  head: { height: number; hash: `0x${string}` };
  /** When the head was last read (Date.now()). */
  headReadAt: number;
  /** The next height to write, and the hash of the block before it (null when unknown: a fresh store). */
  next: number;
  previousHash: string | null;
  queue: Run[];
}

/** What lasts across turns. */
interface Progress {
  /** Consecutive failed turns. */
  failures: number;
  /** The last height to collect: the head read at start with `once`, else +∞; null before the first head. */
  target: number | null;
  /** When the finalized head last advanced (Date.now()). */
  headSeenAt: number;
  /** The first height this collector wrote (for progress bars); null before the first turn. */
  startHeight: number | null;
}

/**
 * One collector. `run()` collects until `stop()` (or, with `once`, until the head read at start);
 * `status()` is its live state for /api/status.
 */
export class Collector {
  private readonly opts: CollectorOptions;
  private readonly abort = new AbortController();
  private readonly meter = new RateMeter();
  private readonly current: CollectorStatus;
  private readonly pool: DecodePool;
  private readonly writer: StoreWriter;
  private lastSaved = 0;

  constructor(opts: CollectorOptions) {
    this.opts = opts;
    // Started now so the workers load (seconds of CPU, see DEFAULT_DECODE_WORKERS) while the caller gets ready.
    this.pool = new DecodePool(opts.decodeWorkers ?? DEFAULT_DECODE_WORKERS);
    this.writer = opts.writer ?? inlineWriter(opts.store);
    const now = new Date().toISOString();
    this.current = {
      state: 'starting',
      last_block: null,
      finalized_head: null,
      behind_blocks: null,
      rate: null,
      last_error: null,
      source: opts.rpc.source,
      started_at: now,
      updated_at: now,
    };
  }

  /** A copy of the live state. */
  status(): CollectorStatus {
    return { ...this.current, rate: this.meter.rate() };
  }

  /**
   * The state as /api/status shows it: the stored form (CollectorState of src/store/chain/index.ts: state, source, last_block,
   * finalized_head, rate_tx_per_s, rate_blocks_per_s, last_error, last_error_at, updated_at) plus
   * `behind_blocks`, `started_at` and `rpc` (the client's batch size, pace, retries and last error: RpcStats).
   */
  report(): CollectorState & { behind_blocks: number | null; started_at: string; rpc: RpcStats } {
    const s = this.status();
    return { ...toStoredState(s), behind_blocks: s.behind_blocks, started_at: s.started_at, rpc: this.opts.rpc.stats() };
  }

  /**
   * Resolves once the decode workers and the writer thread have loaded or failed (at once with none). Optional:
   * until then runs are decoded and written on the main thread.
   */
  async whenReady(): Promise<void> {
    await Promise.all([this.pool.whenReady(), this.writer.whenReady()]);
  }

  /** Asks `run()` to finish after the write in progress (never in the middle of one). */
  stop(): void {
    this.abort.abort();
  }

  /**
   * Collects until stopped (or, with `once`, up to the finalized head read at start).
   * Errors are recorded in the state and retried with backoff.
   * @throws CollectorFailed with `once` after `maxFailedTurns` consecutive failed turns; at once, in any mode,
   *   when the collector lock passed to another collector (the state shows the error)
   */
  async run(): Promise<void> {
    const { opts } = this;
    const signal = this.abort.signal;
    const stallAfterMs = opts.stallAfterMs ?? Math.max(30_000, 10 * opts.pollIntervalMs);
    try {
      await this.loop(this.pool, signal, stallAfterMs);
    } finally {
      await Promise.all([this.pool.close(), this.writer.close()]);
    }
  }

  private async loop(pool: DecodePool, signal: AbortSignal, stallAfterMs: number): Promise<void> {
    const progress: Progress = { failures: 0, target: null, headSeenAt: Date.now(), startHeight: null };
    while (!signal.aborted) {
      try {
        const turn = await this.startTurn(progress);
        while (!signal.aborted) {
          const limit = Math.min(turn.head.height, progress.target ?? Number.POSITIVE_INFINITY);
          if (turn.next > limit) {
            if (this.opts.once) return this.finish();
            await this.waitForNewHead(turn, progress, signal, stallAfterMs);
            continue;
          }
          await this.refreshHeadDuringBackfill(turn, progress);
          await this.writeNextRuns(turn, pool, limit, progress);
        }
      } catch (e) {
        await this.afterFailedTurn(e, ++progress.failures, signal);
      }
      // Runs still in flight after a failure or a stop are dropped; the next turn starts from the checkpoint.
    }
    await this.finish();
  }

  /** A turn starts from the stored checkpoint and the source's finalized head, with an empty pipeline. */
  private async startTurn(progress: Progress): Promise<Turn> {
    const { opts } = this;
    const cp = await getCheckpoint(opts.store);
    const head = await opts.rpc.finalizedHead();
    progress.target ??= opts.once ? head.height : Number.POSITIVE_INFINITY;
    const next = cp ? cp.height + 1 : (opts.from ?? Math.max(0, head.height - DEFAULT_BACKFILL_BLOCKS));
    progress.startHeight ??= next;
    this.updateStatus({ last_block: cp?.height ?? null, finalized_head: head.height });
    return { head, headReadAt: Date.now(), next, previousHash: cp?.hash ?? null, queue: [] };
  }

  /** Caught up: shows running (or stalled), sleeps a poll interval, reads the head again. */
  private async waitForNewHead(turn: Turn, progress: Progress, signal: AbortSignal, stallAfterMs: number): Promise<void> {
    this.setState(Date.now() - progress.headSeenAt >= stallAfterMs ? 'stalled' : 'running');
    await this.opts.retention?.step();
    await sleep(this.opts.pollIntervalMs, signal);
    if (signal.aborted) return;
    turn.head = await this.pollHead(turn.head, () => (progress.headSeenAt = Date.now()));
    turn.headReadAt = Date.now();
  }

  /** During a backfill, reads the head now and then so the status shows how far behind the collector is. */
  private async refreshHeadDuringBackfill(turn: Turn, progress: Progress): Promise<void> {
    if (this.opts.once || Date.now() - turn.headReadAt <= Math.max(this.opts.pollIntervalMs, 5000)) return;
    turn.head = await this.pollHead(turn.head, () => (progress.headSeenAt = Date.now()));
    turn.headReadAt = Date.now();
  }

  /**
   * Keeps the pipeline full, waits for its first run, and writes it with the runs right behind it that are
   * decoded already and link to it (one store transaction: fewer commits, each rewriting the index pages it
   * touched, see RUNS_PER_WRITE).
   */
  private async writeNextRuns(turn: Turn, pool: DecodePool, limit: number, progress: Progress): Promise<void> {
    const { opts } = this;
    this.topUpPipeline(turn.queue, pool, turn.next, turn.previousHash, limit, turn.head.height);
    this.setState(limit - turn.queue[0].last >= opts.batchSize ? 'catching_up' : 'running');
    await turn.queue[0].decoded;
    const group = this.takeLinkedRuns(turn);
    if (group.length === 0) return; // the first run did not link: refetched from the checkpoint, link checked
    const last = group[group.length - 1];
    this.topUpPipeline(turn.queue, pool, last.last + 1, last.lastHash, limit, turn.head.height);
    const blocks = group.flatMap((g) => g.blocks);
    await opts.lock?.assertHeld();
    // A write the store refused for now (SQLite's SQLITE_BUSY_SNAPSHOT when another connection committed during
    // it) wrote nothing: it is tried again before the turn fails, which would drop every run in flight.
    await withRetry(() => this.writer.write(blocks, { height: last.last, hash: last.lastHash }), {
      attempts: WRITE_ATTEMPTS,
      baseMs: 100,
      maxMs: 1000,
      shouldRetry: isStoreOutage,
    });
    opts.finality?.afterWrite(blocks, last.last >= turn.head.height);
    const txs = blocks.reduce((n, b) => n + b.observations.length, 0);
    progress.failures = 0;
    turn.next = last.last + 1;
    turn.previousHash = last.lastHash;
    this.meter.record(blocks.length, txs);
    recordWrite(last.last, blocks.length, txs, blocks.at(-1)?.time ?? null);
    this.updateStatus({ last_block: last.last, finalized_head: turn.head.height });
    opts.onProgress?.({
      lastBlock: last.last,
      head: limit,
      startHeight: progress.startHeight ?? last.last,
      blocks: blocks.length,
      transactions: txs,
    });
    await this.save(false);
    await opts.retention?.step();
  }

  /**
   * The parent-hash link check between runs, in height order (the runs were fetched concurrently, each checked
   * inside itself by fetchConsistentRun): takes the decoded runs at the head of the queue whose first block's
   * parentHash is the hash of the block before (the checkpoint, then each taken run's last), at most
   * RUNS_PER_WRITE. At a break the runs from it on are dropped, so the next top-up fetches again from the break
   * with the link checked there (fetchConsistentRun refetches a block whose parent does not match).
   */
  private takeLinkedRuns(turn: Turn): DecodedRun[] {
    const group: DecodedRun[] = [];
    let parent = turn.previousHash;
    while (group.length < RUNS_PER_WRITE && turn.queue[0]?.done) {
      const run = turn.queue[0].done;
      if (parent !== null && run.parentHash.toLowerCase() !== parent.toLowerCase()) {
        this.opts.log.warn(
          { height: run.first, parent_hash: run.parentHash, expected: parent },
          'parent link broken between runs; fetching again from the break',
        );
        turn.queue.length = 0;
        break;
      }
      group.push(run);
      turn.queue.shift();
      parent = run.lastHash;
    }
    return group;
  }

  /**
   * Records a failed turn and backs off (at most 30 s apart, so a sick node is not hammered).
   * @throws CollectorFailed when the lock passed to another collector, or with `once` after `maxFailedTurns`
   */
  private async afterFailedTurn(e: unknown, failures: number, signal: AbortSignal): Promise<void> {
    const { opts } = this;
    const message = firstLine(e);
    this.current.last_error = { message, at: new Date().toISOString() };
    this.setState('error');
    opts.log.warn({ err: message, failures }, 'collector turn failed; retrying from the checkpoint');
    await this.save(true).catch(() => {});
    // Another collector writes this store now: going on would make two writers.
    if (e instanceof CollectorLockLostError) throw new CollectorFailed(message, e);
    if (opts.once && failures >= (opts.maxFailedTurns ?? 6)) {
      const hint =
        e instanceof InconsistentAnswerError && e.problems.some((p) => p.includes('parentHash'))
          ? ' (is this store from another chain?)'
          : '';
      throw new CollectorFailed(`collection failed ${failures} times in a row; last error: ${message}${hint}`);
    }
    await sleep(backoffDelayMs(failures + 1, 500, 30_000), signal);
  }

  /**
   * Tops the pipeline up to its depth (pipelineDepth), the first run starting at `next` (whose parent is
   * `previousHash`), none past `limit`. Runs are fetched concurrently (the client bounds the HTTP requests in
   * flight to `--rpc-concurrency`); only a run starting the pipeline is link-checked against `previousHash`
   * while fetched, the others at write time (takeLinkedRuns). Tokens are resolved here, on the main thread,
   * before a run goes to a worker.
   */
  private topUpPipeline(
    queue: Run[],
    pool: DecodePool,
    next: number,
    previousHash: string | null,
    limit: number,
    finalizedHeight: number,
  ): void {
    const depth = this.pipelineDepth();
    while (queue.length < depth) {
      const prev = queue[queue.length - 1];
      const first = prev ? prev.last + 1 : next;
      if (first > limit) return;
      const last = Math.min(first + this.runBlocks() - 1, limit);
      const decoded = this.fetchRun(first, last, finalizedHeight, prev ? null : previousHash).then(
        async (fetched): Promise<DecodedRun> => ({
          first,
          last,
          lastHash: lastHashOf(fetched),
          parentHash: fetched[0].block.parentHash,
          // A block that keeps failing its process step is quarantined and left out (./quarantine.ts).
          blocks: await processWithQuarantine(fetched, await this.tokensOf(fetched), {
            store: this.opts.store,
            log: this.opts.log,
            process: (f, t) => pool.process(f, t),
          }),
        }),
      );
      const run: Run = { first, last, decoded };
      // Registered before anyone awaits `decoded`, so `done` is set by the time an awaiter resumes; `decoded` is
      // awaited later (or dropped after a failure), so a rejection before then is not unhandled.
      decoded.then(
        (d) => (run.done = d),
        () => {},
      );
      queue.push(run);
    }
  }

  /**
   * Runs in flight: PIPELINE_DEPTH, or more when that many runs would not keep twice `--rpc-concurrency` HTTP
   * requests queued (a run of b blocks is 2b calls, sent batchCalls per request): a request is waiting whenever
   * one ends, even while the runs at the head of the queue are decoded and written.
   */
  private pipelineDepth(): number {
    const { rpc } = this.opts;
    const requestsPerRun = Math.max(1, Math.ceil((2 * this.runBlocks()) / rpc.stats().batch_calls));
    return Math.min(MAX_PIPELINE_DEPTH, Math.max(PIPELINE_DEPTH, Math.ceil((2 * rpc.concurrency) / requestsPerRun) + 1));
  }

  /** Blocks per run: runBlocksFor the batch size and the node's calls per request in use. */
  private runBlocks(): number {
    return runBlocksFor(this.opts.batchSize, this.opts.rpc.stats().batch_calls);
  }

  private fetchRun(first: number, last: number, finalizedHeight: number, previousHash: string | null): Promise<FetchedBlock[]> {
    return fetchConsistentRun(this.opts.rpc, first, last, finalizedHeight, previousHash, {
      onInconsistent: (height, problems) => this.opts.log.warn({ height, problems }, 'inconsistent answer from the node; fetching again'),
    });
  }

  /** Token metadata for every token the run's logs touch (TokenRegistry, cached, RPC on first sight). */
  private tokensOf(fetched: FetchedBlock[]) {
    const addresses = new Set<string>();
    for (const f of fetched) for (const a of tokenAddressesOf(f)) addresses.add(a.toLowerCase());
    return this.opts.tokens.resolve([...addresses]);
  }

  private async pollHead(head: { height: number; hash: `0x${string}` }, onAdvance: () => void) {
    const h = await this.opts.rpc.finalizedHead();
    if (h.height > head.height) onAdvance();
    this.updateStatus({ finalized_head: h.height });
    return h.height >= head.height ? h : head;
  }

  private updateStatus(p: Partial<CollectorStatus>): void {
    Object.assign(this.current, p);
    const { last_block, finalized_head } = this.current;
    this.current.behind_blocks = finalized_head !== null ? Math.max(0, finalized_head - (last_block ?? -1)) : null;
    this.current.updated_at = new Date().toISOString();
    if (p.finalized_head != null) collectorFinalizedHead.set(p.finalized_head);
    if (p.state) recordCollectorState(p.state);
  }

  private setState(state: CollectorPhase): void {
    if (this.current.state === state) return;
    this.opts.log.info({ from: this.current.state, to: state, last_block: this.current.last_block }, 'collector state');
    this.updateStatus({ state });
    void this.save(true).catch(() => {});
  }

  /** Saves the state to the store: on every change of state, else at most once a second. */
  private async save(force: boolean): Promise<void> {
    if (!force && Date.now() - this.lastSaved < 1000) return;
    this.lastSaved = Date.now();
    await saveCollectorState(this.opts.store, toStoredState(this.status()));
  }

  private async finish(): Promise<void> {
    this.updateStatus({ state: 'stopped' });
    await this.save(true).catch((e) => this.opts.log.warn({ err: firstLine(e) }, 'could not save the collector state'));
  }
}
