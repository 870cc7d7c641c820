/**
 * One provider-intelligence collection pass (docs/intelligence.md): read every configured source, upsert the services it lists
 * (and the offers it advertises for them), probe every known service once with the polite Prober, store each
 * snapshot with its evidence and offers, and derive the dated changes against the service's previous snapshot
 * (src/intel/changes.ts). The schedule that repeats it is ./schedule.ts, the archive verification ./archive.ts.
 * All SQL stays in src/store/intel/.
 */
import {
  finishCollectRun,
  insertChanges,
  latestDirectoryOffers,
  latestSnapshot,
  listProbeTargets,
  loadSourceFreshness,
  recordDirectoryOffers,
  recordSnapshot,
  saveSourceFreshness,
  startCollectRun,
  upsertService,
} from '../store/intel/index.js';
import type { Store } from '../store/db.js';
import { reattributePayments } from '../store/payments/reattribute.js';
import { REFRESH_BUDGET } from '../store/payments/intel-index.js';
import { diffSnapshots, directoryDriftChanges } from './changes.js';
import { archiveSourceAnswer, type ArchivedSourceAnswer } from './evidence.js';
import { Prober, type ProbeResult } from './probe/index.js';
import { providerDomain, serviceId } from './service-id.js';
import { collectSource, DEFAULT_SOURCES, type SourceConfig, type SourceFreshness } from './sources/index.js';
import type { Offer } from '../domain/intel.js';
import { shortMessage } from '../domain/errors.js';

/** Minimal logger (pino-compatible). */
export interface IntelLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface CollectOptions {
  /** The sources to read; default DEFAULT_SOURCES. */
  sources?: readonly SourceConfig[];
  /** Let sources and probes reach loopback addresses (tests and the demo only). */
  allowLoopback?: boolean;
  /** Probe budget per request in milliseconds (default: the prober's, 10,000). */
  probeTimeoutMs?: number;
  /** Probes in flight across hosts (default 8; per host always 1). */
  concurrency?: number;
  /** Reuse a prober (keeps per-host backoff across runs); default a new one per run. */
  prober?: Prober;
  log?: IntelLog;
}

/** Counts of one collection run. */
export interface CollectSummary {
  run_id: number;
  sources: number;
  sources_failed: number;
  services: number;
  snapshots: number;
  changes: number;
  /** Probes whose result could not be stored (the run goes on). */
  store_errors: number;
}

/**
 * Runs one collection pass and records it in intel_collect_runs (a pass whose sources all failed still counts as
 * finished: it is recorded with an error message, and the routes stop answering 503 once any pass finished).
 * @returns the counts of the pass
 * @throws only when the store itself fails outside a single probe (the run is then closed with the error)
 */
export async function collectOnce(store: Store, opts: CollectOptions = {}): Promise<CollectSummary> {
  const sources = opts.sources ?? DEFAULT_SOURCES;
  const runId = await startCollectRun(store);
  const sum: CollectSummary = {
    run_id: runId,
    sources: sources.length,
    sources_failed: 0,
    services: 0,
    snapshots: 0,
    changes: 0,
    store_errors: 0,
  };
  try {
    for (const src of sources) {
      if (!(await readSource(store, src, opts))) sum.sources_failed++;
    }
    const targets = await listProbeTargets(store);
    sum.services = targets.length;
    const prober = opts.prober ?? newProber(opts);
    await Promise.all(
      targets.map(async (t) => {
        try {
          const result = await prober.probe({ method: t.method, url: t.url, tool: t.tool });
          // Await first: `sum.changes += await …` would read sum.changes before the await and lose concurrent counts.
          const written = await storeProbe(store, result, t.sources, t.domain);
          sum.changes += written;
          sum.snapshots++;
        } catch (err) {
          sum.store_errors++;
          opts.log?.warn({ err: shortMessage(err), url: t.url }, 'probe result not stored');
        }
      }),
    );
    await attributeStoredPayments(store, opts);
    const allFailed = sources.length > 0 && sum.sources_failed === sources.length;
    await finishCollectRun(store, runId, {
      services: sum.services,
      snapshots: sum.snapshots,
      changes: sum.changes,
      error: allFailed ? 'every source failed' : null,
    });
    opts.log?.info({ ...sum }, 'intel collection run finished');
    return sum;
  } catch (err) {
    await finishCollectRun(store, runId, {
      services: sum.services,
      snapshots: sum.snapshots,
      changes: sum.changes,
      error: shortMessage(err),
    }).catch(() => {});
    throw err;
  }
}

/**
 * Applies the realms and payTos this pass stored to the payments already collected (src/store/payments/reattribute.ts),
 * pass after pass until no offer is left. A failure is logged and left for the next run: it never fails the intel run.
 */
async function attributeStoredPayments(store: Store, opts: CollectOptions): Promise<void> {
  try {
    for (;;) {
      const r = await reattributePayments(store);
      if (r.changed) opts.log?.info({ ...r }, 'payments re-attributed to services');
      if (r.offers < REFRESH_BUDGET) return;
    }
  } catch (err) {
    opts.log?.warn({ err: shortMessage(err) }, 'payments not re-attributed; the next run tries again');
  }
}

/** A prober with the given limits; unset ones keep the prober's defaults (undefined must not override them). */
export function newProber(opts: CollectOptions): Prober {
  const set = Object.entries({ allowLoopback: opts.allowLoopback, timeoutMs: opts.probeTimeoutMs, concurrency: opts.concurrency }).filter(
    ([, v]) => v !== undefined,
  );
  return new Prober(Object.fromEntries(set));
}

/** Reads one source and stores its freshness, services and listed offers. @returns false when the source failed */
async function readSource(store: Store, src: SourceConfig, opts: CollectOptions): Promise<boolean> {
  const prev = (await loadSourceFreshness(store, src.name)) as SourceFreshness | null;
  const res = await collectSource(src, prev, { allowLoopback: opts.allowLoopback });
  const ok = res.freshness.last_error === null;
  const samples = ok ? res.services.slice(0, 5).map((s) => ({ method: s.method, url: s.url, tool: s.tool })) : null;
  await saveSourceFreshness(store, res.freshness, samples);
  if (!ok) opts.log?.warn({ source: src.name, error: res.freshness.last_error }, 'source failed');
  const seenAt = res.freshness.last_attempt_at ?? new Date().toISOString();
  for (const a of res.answers) {
    // Archived once per answer, and only when a listing read from it is stored (docs/intelligence.md, "Directory evidence").
    let archived: ArchivedSourceAnswer | undefined;
    const evidence = () => (archived ??= archiveSourceAnswer(src.name, a));
    for (const d of a.services) {
      let id: string;
      let domain: string;
      try {
        id = serviceId(d.method, d.url, d.tool);
        domain = providerDomain(d.url);
      } catch {
        continue; // not an absolute URL: the source collector already warned
      }
      await upsertService(store, {
        service_id: id,
        domain,
        method: d.method.toUpperCase(),
        url: d.url,
        tool: d.tool,
        description: d.description,
        source: d.source,
        seen_at: seenAt,
      });
      if (d.offers.length)
        await recordDirectoryOffers(store, { service_id: id, domain, source_name: d.source, observed_at: seenAt }, d.offers, evidence);
    }
  }
  return ok;
}

/**
 * Stores one probe result and the changes it introduces (against the service's previous snapshot, and against the
 * offers its directories list).
 * @param sourceNames the sources listing the service (their latest listed offers are checked for drift)
 * @returns the number of change records written
 */
export async function storeProbe(store: Store, result: ProbeResult, sourceNames: readonly string[], domain: string): Promise<number> {
  const snap = result.snapshot;
  const prev = await latestSnapshot(store, snap.service_id);
  const evidence = result.evidence ? { sha256: result.evidence.sha256, encoding: 'gzip', bytes: result.evidence.bytes } : null;
  await recordSnapshot(store, snap, domain, evidence);
  const listed: Offer[] = [];
  for (const name of sourceNames) listed.push(...(await latestDirectoryOffers(store, snap.service_id, name)));
  const changes = [...diffSnapshots(prev, snap, { domain }), ...directoryDriftChanges(listed, prev, snap, { domain })];
  await insertChanges(store, changes);
  return changes.length;
}
