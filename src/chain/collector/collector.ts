/**
 * The collector: a restartable loop that copies finalized Tempo blocks into the store, in height order.
 *
 * Each turn: read the source's finalized head; fetch the next run of at most `batchSize` blocks with receipts
 * (fetchConsistentRun: cross-checked, refetched until consistent); resolve their tokens; evaluate integrity;
 * decode; write the run's observations, coverage and checkpoint in one store transaction. Up to PIPELINE_DEPTH
 * runs are in flight ahead of the write: fetched one after another on the main thread, and integrity + decode
 * run on worker threads (DecodePool), so fetching, decoding and writing overlap; writes stay strictly in
 * height order, so the checkpoint is always contiguous. Any failure is recorded (`error`), backed off with
 * jitter, and the turn starts again from the stored checkpoint, so a crash or a fault never skips or repeats
 * a block. See docs/collector.md.
 */
import { PaywatchError } from '../../domain/errors.js';
import { backoffDelayMs, sleep } from '../../net/backoff.js';
import { collectorFinalizedHead, recordCollectorState, recordWrite } from '../../ops/metrics.js';
import type { Logger } from 'pino';
import type { Store } from '../../store/db.js';
import { CollectorLockLostError, type CollectorLock } from '../../store/chain/collector-lock.js';
import { firstLine, type TempoRpc } from '../rpc.js';
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
import { DecodePool } from './pool.js';
import { processWithQuarantine } from './quarantine.js';
import { RateMeter, toStoredState, type CollectorPhase, type CollectorStatus } from './state.js';

/** Blocks behind the finalized head where a fresh store starts when no `from` is given (docs/collector.md). */
export const DEFAULT_BACKFILL_BLOCKS = 10_000;

/**
 * Runs in flight (fetching or decoding) ahead of the one being written; bounds memory to ~that many runs (with
 * the default 50 blocks of ~10 transactions, ~25 MB of parsed blocks). Fetching stays one run at a time; the
 * depth only lets it run ahead while decoding is slower for a moment (5 measured best: docs/collector.md).
 */
export const PIPELINE_DEPTH = 5;

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

/** Hash of the last block of a fetched run (the checkpoint after it, and the parent of the next run). */
const lastHashOf = (fetched: FetchedBlock[]): string => fetched[fetched.length - 1].block.hash;

/** A run once fetched, checked and decoded: what its write needs. */
interface DecodedRun {
  last: number;
  /** Hash of the run's last block (the checkpoint after it). */
  lastHash: string;
  blocks: PreparedBlock[];
}

/**
 * One run in the pipeline: the hash of its last block once fetched (the next run's fetch waits for it), and the
 * run evaluated and decoded. The fetched blocks themselves are not kept: once decoded they are garbage, so the
 * runs waiting in the queue hold only their serialized rows (less to copy at each young-generation collection).
 */
interface Run {
  first: number;
  last: number;
  lastHash: Promise<string>;
  decoded: Promise<DecodedRun>;
  /** Set once `decoded` has resolved. */
  done?: DecodedRun;
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
   * `behind_blocks` and `started_at`.
   */
  report(): CollectorState & { behind_blocks: number | null; started_at: string } {
    const s = this.status();
    return { ...toStoredState(s), behind_blocks: s.behind_blocks, started_at: s.started_at };
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
    const { opts } = this;
    let failures = 0;
    let target: number | null = null;
    let headSeenAt = Date.now();
    let startHeight: number | null = null;
    while (!signal.aborted) {
      let queue: Run[] = [];
      try {
        const cp = await getCheckpoint(opts.store);
        let head = await opts.rpc.finalizedHead();
        if (target === null) target = opts.once ? head.height : Number.POSITIVE_INFINITY;
        let next = cp ? cp.height + 1 : (opts.from ?? Math.max(0, head.height - DEFAULT_BACKFILL_BLOCKS));
        let previousHash: string | null = cp?.hash ?? null;
        startHeight ??= next;
        this.note({ last_block: cp?.height ?? null, finalized_head: head.height });
        let headReadAt = Date.now();

        while (!signal.aborted) {
          const limit = Math.min(head.height, target);
          if (next > limit) {
            if (opts.once) return this.finish();
            this.setState(Date.now() - headSeenAt >= stallAfterMs ? 'stalled' : 'running');
            await sleep(opts.pollIntervalMs, signal);
            if (signal.aborted) break;
            head = await this.pollHead(head, () => (headSeenAt = Date.now()));
            headReadAt = Date.now();
            continue;
          }
          // During backfill, refresh the head now and then so the status shows how far behind we are.
          if (!opts.once && Date.now() - headReadAt > Math.max(opts.pollIntervalMs, 5000)) {
            head = await this.pollHead(head, () => (headSeenAt = Date.now()));
            headReadAt = Date.now();
          }
          if (queue.length && queue[0].first !== next) queue = []; // cannot happen; never write out of order
          this.fill(queue, pool, next, previousHash, limit, head.height);
          this.setState(limit - queue[0].last >= opts.batchSize ? 'catching_up' : 'running');
          await queue[0].decoded;
          // The first run, and the runs right behind it that are decoded already, go in one write (one
          // transaction): fewer commits, each rewriting the index pages it touched (see RUNS_PER_WRITE).
          const group: DecodedRun[] = [];
          while (group.length < RUNS_PER_WRITE && queue[0]?.done) group.push(queue.shift()!.done!);
          const last = group[group.length - 1];
          this.fill(queue, pool, last.last + 1, last.lastHash, limit, head.height);
          const blocks = group.flatMap((g) => g.blocks);
          await opts.lock?.assertHeld();
          await this.writer.write(blocks, { height: last.last, hash: last.lastHash });
          opts.finality?.afterWrite(blocks, last.last >= head.height);
          const txs = blocks.reduce((n, b) => n + b.observations.length, 0);
          failures = 0;
          next = last.last + 1;
          previousHash = last.lastHash;
          this.meter.record(blocks.length, txs);
          recordWrite(last.last, blocks.length, txs, blocks.at(-1)?.time ?? null);
          this.note({ last_block: last.last, finalized_head: head.height });
          opts.onProgress?.({ lastBlock: last.last, head: limit, startHeight, blocks: blocks.length, transactions: txs });
          await this.save(false);
        }
      } catch (e) {
        failures++;
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
        // At most 30 s apart, so a sick node is not hammered.
        await sleep(backoffDelayMs(failures + 1, 500, 30_000), signal);
      }
      // Runs still in flight after a failure or a stop are dropped; the next turn starts from the checkpoint.
    }
    await this.finish();
  }

  /**
   * Tops the pipeline up to PIPELINE_DEPTH runs, the first starting at `next` (whose parent is `previousHash`),
   * none past `limit`. Each run's fetch starts when the previous run's fetch has ended (it needs that run's last
   * hash for the link check); its tokens are resolved here, on the main thread, before it goes to a worker.
   */
  private fill(queue: Run[], pool: DecodePool, next: number, previousHash: string | null, limit: number, finalizedHeight: number): void {
    while (queue.length < PIPELINE_DEPTH) {
      const prev = queue[queue.length - 1];
      const first = prev ? prev.last + 1 : next;
      if (first > limit) return;
      const last = Math.min(first + this.opts.batchSize - 1, limit);
      const blocks = prev
        ? prev.lastHash.then((hash) => this.fetchRun(first, last, finalizedHeight, hash))
        : this.fetchRun(first, last, finalizedHeight, previousHash);
      const decoded = blocks.then(
        async (fetched): Promise<DecodedRun> => ({
          last,
          lastHash: lastHashOf(fetched),
          // A block that keeps failing its process step is quarantined and left out (./quarantine.ts).
          blocks: await processWithQuarantine(fetched, await this.tokensOf(fetched), {
            store: this.opts.store,
            log: this.opts.log,
            process: (f, t) => pool.process(f, t),
          }),
        }),
      );
      const run: Run = { first, last, lastHash: blocks.then(lastHashOf), decoded };
      // Registered before anyone awaits `decoded`, so `done` is set by the time an awaiter resumes; both promises
      // are awaited later (or dropped after a failure), so a rejection before then is not unhandled.
      decoded.then(
        (d) => (run.done = d),
        () => {},
      );
      run.lastHash.catch(() => {});
      queue.push(run);
    }
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
    this.note({ finalized_head: h.height });
    return h.height >= head.height ? h : head;
  }

  private note(p: Partial<CollectorStatus>): void {
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
    this.note({ state });
    void this.save(true).catch(() => {});
  }

  /** Saves the state to the store: on every change of state, else at most once a second. */
  private async save(force: boolean): Promise<void> {
    if (!force && Date.now() - this.lastSaved < 1000) return;
    this.lastSaved = Date.now();
    await saveCollectorState(this.opts.store, toStoredState(this.status()));
  }

  private async finish(): Promise<void> {
    this.note({ state: 'stopped' });
    await this.save(true).catch((e) => this.opts.log.warn({ err: firstLine(e) }, 'could not save the collector state'));
  }
}
