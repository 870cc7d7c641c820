/**
 * The collector's finality step (docs/integrity.md, "Finality verified from Tempo's own signatures"): after each
 * written batch, pick the heights whose certificate is due (src/chain/consensus/schedule.ts: one per 1,000
 * blocks or 60 s of collection, one at the finalized head when the collector catches up, every epoch boundary),
 * then, in the background and one at a time, read each certificate (`consensus_getFinalization`), verify it
 * (six checks), follow a key change at a boundary, ask the witnesses, and record the result: a verified
 * certificate upgrades every observation the parent-hash chain below it covers, in one store transaction
 * (src/store/chain/finality.ts).
 *
 * Collection never waits for any of this: `afterWrite` only queues heights and returns; a node without the
 * `consensus_*` namespace is asked again only every UNSUPPORTED_RETRY_MS (finality stays unknown meanwhile),
 * and every failure here is logged, never thrown into the collector.
 */
import type { Logger } from 'pino';
import { finalityChecks, finalityVerifiedHeight, finalityVerifySeconds, witnessDisagreements } from '../../ops/metrics.js';
import type { Store } from '../../store/db.js';
import {
  checkStatusAt,
  COVER_MAX_BLOCKS,
  readBlocks,
  readFinalityState,
  recordFinality,
  saveKeyChain,
  type StoredBlock,
} from '../../store/chain/index.js';
import { redactUrl } from '../../net/redact-url.js';
import {
  acceptBoundary,
  anchorKeyChain,
  boundaryBlock,
  type CertificateSpacing,
  certificateDue,
  compareWitnesses,
  type ConsensusRequest,
  coverByParentChain,
  finalityBlock,
  finalityEvidence,
  finalityUnknown,
  type FinalityVerification,
  isBoundary,
  type KeyChain,
  mainnetKeyChain,
  readFinalization,
  restoreKeyChain,
  verifyFinality,
  type WitnessComparison,
  type WitnessReport,
} from '../consensus/index.js';
import { httpJsonRpc } from '../consensus/transport.js';
import type { RpcBlock } from '../types.js';

/** How long a node that answered "method not found" is not asked again, ms. */
export const UNSUPPORTED_RETRY_MS = 10 * 60_000;
/** Budget of one certificate or witness read, ms. */
const READ_TIMEOUT_MS = 5_000;
/** Largest witness answer accepted (a header without transactions), bytes. */
const WITNESS_MAX_BYTES = 256 * 1024;
/** Heights waiting for a check, at most (older ones are dropped: a later certificate covers them anyway). */
const MAX_QUEUED = 64;

/** One witness: what it is shown as (no credentials, path or query) and how to ask it. */
export interface Witness {
  name: string;
  request: ConsensusRequest;
}

export interface FinalityStepOptions {
  store: Store;
  log: Logger;
  /** How to ask the consensus node. */
  request: ConsensusRequest;
  /** The trusted anchor: a genesis extraData (hex) holding the epoch DKG outcome; null: mainnet's genesis. */
  genesis: string | null;
  /** Blocks per epoch (21,600 on mainnet). */
  epochLength: number;
  witnesses?: Witness[];
  /** Agreeing witnesses wanted; default all. */
  quorum?: number | null;
  /** Certificate spacing (default 1,000 blocks or 60 s). */
  spacing?: CertificateSpacing;
}

/** What the collector calls after each write (its only contact with this module). */
export interface FinalityHook {
  /**
   * Queues the checks due for the blocks just written; returns at once, never throws.
   * @param caughtUp true when the batch ends at the finalized head
   */
  afterWrite(blocks: readonly { height: number }[], caughtUp: boolean): void;
}

/** The finality step of one collector (see the module comment). */
export class FinalityStep implements FinalityHook {
  private keyChain: KeyChain | null = null;
  /** The configured anchor, parsed at start; null until first needed for mainnet's (parsing loads BLS, ~0.3 s). */
  private anchorChain: KeyChain | null;
  private last: { height: number; at: number } | null = null;
  private wasCaughtUp = false;
  private readonly queue: number[] = [];
  private running: Promise<void> | null = null;
  private unsupported: { until: number; reason: string } | null = null;
  /** The highest height this step's unknown checks covered since its last verified or failed one; null: none. */
  private unknownTo: number | null = null;

  /** @throws ConsensusDecodeError when `genesis` does not hold a DKG outcome (a configuration error, at start) */
  constructor(private readonly opts: FinalityStepOptions) {
    this.anchorChain = opts.genesis ? anchorKeyChain(opts.genesis, 'configured genesis outcome (--consensus-genesis)') : null;
  }

  /** The trust root: the configured genesis outcome's key, else mainnet's. */
  private get anchor(): KeyChain {
    this.anchorChain ??= mainnetKeyChain();
    return this.anchorChain;
  }

  afterWrite(blocks: readonly { height: number }[], caughtUp: boolean): void {
    try {
      const now = Date.now();
      const lastHeight = blocks.at(-1)?.height;
      for (const b of blocks) {
        const atHead = caughtUp && b.height === lastHeight;
        // The head is checked when the collector catches up; while it stays caught up, the spacing applies.
        const due = certificateDue(
          this.last,
          { height: b.height, at: now },
          {
            caughtUp: atHead && !this.wasCaughtUp,
            epochLength: this.opts.epochLength,
            spacing: this.opts.spacing,
          },
        );
        if (due === null) continue;
        if (due !== 'boundary') this.last = { height: b.height, at: now };
        this.queue.push(b.height);
      }
      this.wasCaughtUp = caughtUp;
      while (this.queue.length > MAX_QUEUED) this.queue.shift();
      if (this.queue.length && !this.running) this.running = this.drain();
    } catch (e) {
      this.opts.log.warn({ err: String(e) }, 'finality: could not schedule a certificate check');
    }
  }

  /** Resolves once every queued check has ended (a command awaits it before closing the store). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length) {
        const height = this.queue.shift()!;
        try {
          await this.check(height);
        } catch (e) {
          this.opts.log.warn(
            { err: String((e as Error)?.message ?? e), height },
            'finality: certificate check failed; finality stays unknown',
          );
        }
      }
    } finally {
      this.running = null;
    }
  }

  /** The key chain: the stored one when it grows from the configured anchor, else the anchor. */
  private async chain(): Promise<KeyChain> {
    if (this.keyChain) return this.keyChain;
    const stored = (await readFinalityState(this.opts.store.db)).keyChain;
    let chain = this.anchor;
    if (stored) {
      try {
        const restored = restoreKeyChain(stored);
        if (restored.keys[0]!.key === this.anchor.keys[0]!.key && restored.keys[0]!.from_epoch === this.anchor.keys[0]!.from_epoch)
          chain = restored;
      } catch {
        // A malformed stored chain is dropped: the anchor is the trust root, the rest is re-followed.
      }
    }
    this.keyChain = chain;
    return chain;
  }

  /** Reads, verifies and records the certificate of block `height`. */
  private async check(height: number): Promise<void> {
    const { store, log, epochLength } = this.opts;
    const [stored] = await readBlocks(store.db, height, height, 1);
    if (!stored) return;
    // A certificate verified here already (a height queued twice, a boundary met again) is not read or paired again.
    if ((await checkStatusAt(store.db, height)) === 'verified') return;
    if (this.unsupported && Date.now() < this.unsupported.until) {
      await this.record(stored, finalityUnknown(this.unsupported.reason, height), null, null);
      return;
    }
    const answer = await readFinalization(this.opts.request, { height }, { timeoutMs: READ_TIMEOUT_MS });
    if (answer.kind === 'unsupported') {
      if (!this.unsupported)
        log.warn({ reason: answer.reason }, 'finality: the consensus node does not serve consensus_*; finality stays unknown');
      this.unsupported = { until: Date.now() + UNSUPPORTED_RETRY_MS, reason: answer.reason };
      await this.record(stored, finalityUnknown(answer.reason, height), null, null);
      return;
    }
    this.unsupported = null;
    if (answer.kind !== 'certified') {
      // Not certified there yet, or the read failed: the blocks stay "awaiting certificate" for a later check.
      log.debug({ height, reason: answer.reason }, 'finality: no certificate read');
      return;
    }
    // The served header must reproduce the hash stored for this height (integrity stage 2's recomputation).
    const header = { ...answer.block.header, hash: stored.hash } as unknown as RpcBlock;
    const chain = await this.chain();
    const started = process.hrtime.bigint();
    const v = verifyFinality({ certificate: answer.block.certificate, ...finalityBlock(header) }, { keyChain: chain, epochLength });
    finalityVerifySeconds.observe(Number(process.hrtime.bigint() - started) / 1e9);
    if (v.status === 'verified' && isBoundary(height, epochLength)) {
      const boundary = boundaryBlock(header);
      if (boundary) {
        const a = acceptBoundary(chain, boundary, v, epochLength);
        if (a.chain !== chain) {
          this.keyChain = a.chain;
          await saveKeyChain(store, a.chain);
        }
        log.info({ height, accepted: a.accepted, keyChanged: a.keyChanged, epoch: a.epoch }, `finality: ${a.reason}`);
      }
    }
    const witnesses = v.status === 'verified' ? await this.askWitnesses(height, stored.hash) : null;
    await this.record(stored, v, answer.block.certificate, witnesses);
  }

  /** Asks every witness for its finalized head and its hash at `height`; logs each disagreement (an alarm). */
  private async askWitnesses(height: number, ours: string): Promise<WitnessComparison | null> {
    const list = this.opts.witnesses ?? [];
    if (!list.length) return null;
    const reports = await Promise.all(list.map((w) => readWitness(w, height)));
    // A witness that did not answer is only pending: its error is logged, the others and the check go on.
    for (const r of reports)
      if (r.error) this.opts.log.warn({ witness: r.witness, height, err: r.error }, 'finality: a witness answer was refused');
    const c = compareWitnesses({ height, hash: ours }, reports, this.opts.quorum ?? undefined);
    for (const d of c.disagreements) {
      witnessDisagreements.inc();
      this.opts.log.error(d, 'finality: ALARM a witness reports another block hash for a height it calls finalized');
    }
    if (!c.quorumMet) this.opts.log.warn({ height, agreeing: c.agreeing, quorum: c.quorum }, 'finality: witness quorum not met');
    return c;
  }

  /** Records a check: the blocks it covers (below a verified certificate: as far as the parent-hash chain holds). */
  private async record(
    block: StoredBlock,
    v: FinalityVerification,
    certificate: string | null,
    witnesses: WitnessComparison | null,
  ): Promise<void> {
    const { store, log } = this.opts;
    const state = await readFinalityState(store.db);
    let from = Math.max((state.last_verified_height ?? -1) + 1, block.height - COVER_MAX_BLOCKS + 1);
    // Blocks an earlier unknown check covered say unknown already: re-pointing them at every later unknown check
    // would rewrite up to COVER_MAX_BLOCKS `blocks` rows per check against a node without consensus_*.
    if (v.status === 'unknown' && this.unknownTo !== null) from = Math.max(from, this.unknownTo + 1);
    let cover: { from: number; to: number } | null = from <= block.height ? { from, to: block.height } : null;
    if (v.status === 'verified' && cover) {
      const links = (await readBlocks(store.db, from, block.height)).map((b) => ({
        height: b.height,
        // The certified block's hash is the certificate's payload; below it only recomputed hashes carry the chain.
        hash: b.height === block.height || b.recomputed ? b.hash : null,
        parentHash: b.parentHash,
      }));
      const coverage = coverByParentChain(v.block_hash ?? block.hash, links);
      if (coverage.brokenAt !== null)
        log.warn({ height: block.height, brokenAt: coverage.brokenAt, reason: coverage.reason }, 'finality: the parent-hash chain breaks');
      cover = coverage.coveredFrom === null ? null : { from: coverage.coveredFrom, to: block.height };
    }
    const d = witnesses?.disagreements[0];
    const now = new Date().toISOString();
    await recordFinality(store, {
      height: block.height,
      status: v.status,
      evidence: { ...finalityEvidence(v, witnesses), block_hash: v.block_hash },
      certificate,
      cover,
      alarm: d ? { ...d, at: now } : null,
      now,
    });
    if (v.status !== 'unknown') this.unknownTo = null;
    else if (cover) this.unknownTo = Math.max(this.unknownTo ?? cover.to, cover.to);
    finalityChecks.inc({ status: v.status });
    if (v.status === 'verified' && cover) finalityVerifiedHeight.set(cover.to);
    const level = v.status === 'failed' ? 'warn' : v.status === 'verified' ? 'info' : 'debug';
    log[level]({ height: block.height, status: v.status, check: v.check, cover }, `finality: ${v.reason}`);
  }
}

/**
 * One witness's finalized head and its block hash at `height`; nulls where it did not answer, with the first
 * error (each read capped at WITNESS_MAX_BYTES and READ_TIMEOUT_MS).
 */
async function readWitness(w: Witness, height: number): Promise<WitnessReport> {
  let error: string | null = null;
  const ask = async (tag: string): Promise<{ number?: unknown; hash?: unknown } | null> => {
    const signal = AbortSignal.timeout(READ_TIMEOUT_MS);
    try {
      const r = await w.request('eth_getBlockByNumber', [tag, false], { signal, maxBytes: WITNESS_MAX_BYTES });
      return r && typeof r === 'object' ? (r as { number?: unknown; hash?: unknown }) : null;
    } catch (e) {
      error ??= String((e as Error)?.message ?? e).slice(0, 200);
      return null;
    }
  };
  const [head, at] = await Promise.all([ask('finalized'), ask(`0x${height.toString(16)}`)]);
  const n = typeof head?.number === 'string' && /^0x[0-9a-f]{1,13}$/i.test(head.number) ? Number.parseInt(head.number, 16) : null;
  const hash = typeof at?.hash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(at.hash) ? at.hash.toLowerCase() : null;
  return { witness: w.name, finalizedHeight: n, hash, error };
}

/**
 * The finality step for a collector from its settings.
 * @param config the collector's settings: `rpcUrl`, `consensusRpc` (default rpcUrl), `consensusGenesis`,
 *   `consensusEpochLength`, `witnesses`, `witnessQuorum`
 * @throws ConsensusDecodeError when `--consensus-genesis` does not hold a DKG outcome
 */
export function finalityStepFor(
  config: {
    rpcUrl: string;
    consensusRpc: string | null;
    consensusGenesis: string | null;
    consensusEpochLength: number;
    witnesses: readonly string[];
    witnessQuorum: number | null;
  },
  store: Store,
  log: Logger,
): FinalityStep {
  return new FinalityStep({
    store,
    log,
    request: httpJsonRpc(config.consensusRpc ?? config.rpcUrl),
    genesis: config.consensusGenesis,
    epochLength: config.consensusEpochLength,
    witnesses: config.witnesses.map((url) => ({ name: redactUrl(url), request: httpJsonRpc(url) })),
    quorum: config.witnessQuorum,
  });
}
