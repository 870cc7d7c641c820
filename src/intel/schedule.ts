/**
 * The intel collector's schedule in a running process: a collection pass, then an archive verification pass, every
 * `intelIntervalSeconds`, never two at once.
 */
import type { AppContext } from '../context.js';
import { parseSources } from './sources/index.js';
import { collectOnce, newProber, type CollectOptions, type CollectSummary } from './collect.js';
import { verifyArchive, type ArchiveVerification } from './archive.js';
import { shortMessage } from '../domain/errors.js';

/** A running collector: its state for /api/status and a way to stop it. */
export interface IntelCollector {
  /** Stops scheduling; resolves when the run in progress has finished. */
  stop(): Promise<void>;
  /** The latest summary, the running flag and the last error. */
  state(): { running: boolean; last: CollectSummary | null; last_error: string | null; last_verification: ArchiveVerification | null };
}

/**
 * Starts the collection loop in this process: one pass now, then one every `config.intelIntervalSeconds`, each
 * followed by an archive verification pass; never two at once. Sources: `opts.sources`, else the `sources` setting (PAYWATCH_SOURCES; default the public
 * CDP Bazaar and mpp.dev registry).
 * @throws Error when the `sources` setting cannot be parsed
 */
export function startIntelCollector(ctx: AppContext, opts: CollectOptions = {}): IntelCollector {
  const sources = opts.sources ?? parseSources(ctx.config.sources);
  const prober = opts.prober ?? newProber(opts);
  const log = opts.log ?? ctx.log;
  let running = false;
  let stopped = false;
  let last: CollectSummary | null = null;
  let lastError: string | null = null;
  let lastVerification: ArchiveVerification | null = null;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();

  const pass = async () => {
    if (stopped) return;
    running = true;
    try {
      last = await collectOnce(ctx.store, { ...opts, sources, prober, log });
      lastVerification = await verifyArchive(ctx.store);
      lastError = null;
    } catch (err) {
      lastError = shortMessage(err);
      log?.warn({ err: lastError }, 'intel collection run failed');
    } finally {
      running = false;
    }
    if (!stopped) timer = setTimeout(() => (current = pass()), ctx.config.intelIntervalSeconds * 1000);
  };
  current = pass();
  const collector: IntelCollector = {
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current;
    },
    state: () => ({ running, last, last_error: lastError, last_verification: lastVerification }),
  };
  return collector;
}
