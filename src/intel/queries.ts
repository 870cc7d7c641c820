/**
 * The intel area's query layer: one function per read endpoint, parameters parsed by the wire schemas
 * (./schemas.ts) in, the answer out (pagination, disclaimers, staleness, remembered answers, NotFound and
 * Unavailable). The HTTP routes (src/api/routes/providers.ts, intelligence.ts) and the MCP tools (src/mcp) call
 * these same functions; the SQL is in src/store/intel/reads.ts.
 */
import { InvalidInput, NotFound, Unavailable } from '../domain/errors.js';
import type { Offer } from '../domain/intel.js';
import type { Store } from '../store/db.js';
import type { IntelServiceRow, IntelSnapshotRow } from '../store/tables/intel.js';
import {
  getServiceSources,
  hasFinishedRun,
  matchingDomains,
  offersOfSnapshots,
  providerRow,
  providerRows,
  recentSnapshotRows,
  serviceRows,
  snapshotRows,
  statusRows,
  timedRows,
  type ServiceFilter,
  type TimedTable,
} from '../store/intel/reads.js';
import { isoTime, rowToChange, rowToStoredOffer, type StoredChange, type StoredOffer } from '../store/intel/rows.js';
import { summarizeProvider } from './listing.js';
import { servicesPayingTo } from '../store/trust/pay-to.js';
import { COLLECTION_VERSION, DISCLAIMERS, type IntelQuery, type ProvidersQuery } from './schemas.js';
import { sinceNotBeforeUntil } from '../domain/query-params.js';

/** What every query needs besides its parameters. */
export interface QueryOptions {
  /** Days a service may fail (since its first failing check after the last good one) before it is stale. */
  staleAfterDays: number;
  /** The current time (tests pin it); default now. */
  now?: Date;
}

/** Dated checks shown per service in a provider's profile. */
const CHECKS_PER_SERVICE = 20;

/** The ISO time before which a failing_since makes a service stale. */
function staleCutoff(o: QueryOptions): string {
  return new Date((o.now ?? new Date()).getTime() - o.staleAfterDays * 86_400_000).toISOString();
}

/** The store's service filter for a provider search. */
function serviceFilter(p: ProvidersQuery, o: QueryOptions): ServiceFilter {
  return { q: p.q, network: p.network, check: p.check, staleBefore: p.include_stale ? null : staleCutoff(o) };
}

/** The public member set of a snapshot row. */
function checkOf(s: IntelSnapshotRow) {
  return {
    snapshot_id: s.snapshot_id,
    checked_at: s.checked_at,
    outcome: s.outcome,
    http_status: s.http_status,
    latency_ms: s.latency_ms,
    error: s.error,
    evidence_hash: s.evidence_hash,
  };
}

/**
 * Latest check and offers of each service, in the listing shape: from the copies on the service row
 * (intel_0002), or by joining the snapshot and its offers for rows written without them.
 */
async function serviceListings(store: Store, services: IntelServiceRow[], o: QueryOptions) {
  const joinIds = services.filter((s) => s.last_snapshot_id !== null && (s.last_offers ?? null) === null).map((s) => s.last_snapshot_id!);
  const [snaps, offersBySnap] = await Promise.all([snapshotRows(store, joinIds), offersOfSnapshots(store, joinIds)]);
  const snapById = new Map(snaps.map((s) => [s.snapshot_id, s]));
  const cutoff = staleCutoff(o);
  return services.map((s) => {
    const copied = s.last_snapshot_id !== null && (s.last_offers ?? null) !== null;
    const snap = s.last_snapshot_id ? snapById.get(s.last_snapshot_id) : undefined;
    const latest = copied
      ? {
          snapshot_id: s.last_snapshot_id!,
          checked_at: s.last_checked_at!,
          outcome: s.last_outcome!,
          http_status: s.last_http_status,
          latency_ms: s.last_latency_ms ?? null,
          error: s.last_error ?? null,
          evidence_hash: s.last_evidence_hash ?? null,
        }
      : snap
        ? checkOf(snap)
        : null;
    return {
      service_id: s.service_id,
      method: s.method,
      url: s.url,
      tool: s.tool,
      description: s.description,
      sources: JSON.parse(s.sources) as string[],
      first_seen: s.first_seen,
      last_seen: s.last_seen,
      stale: s.failing_since !== null && s.failing_since <= cutoff,
      last_good_check_at: s.last_good_at,
      failing_since: s.failing_since,
      latest_check: latest,
      offers: copied ? (JSON.parse(s.last_offers!) as Offer[]) : (s.last_snapshot_id && offersBySnap.get(s.last_snapshot_id)) || [],
    };
  });
}

/**
 * GET /api/providers: providers with at least one service matching the filters (stale services hidden unless
 * include_stale), ordered by domain, each as a summary of its matching services (./listing.ts: counts,
 * networks, protocols, price ranges, newest dated check, the first few services), with the source freshness and
 * pagination. The full services and offers are in getProvider.
 * @throws Unavailable before the first collection run (zero providers would read as "none exist")
 */
async function searchProvidersUncached(store: Store, p: ProvidersQuery, o: QueryOptions) {
  await assertCollectionAvailable(store);
  const asOf = isoTime(o.now ?? new Date());
  const filter = serviceFilter(p, o);
  // Every provider with a matching service, once per filter set and TTL.
  const key = JSON.stringify([
    p.q ?? null,
    p.network ?? null,
    p.check ?? null,
    Boolean(p.include_stale),
    o.staleAfterDays,
    o.now?.getTime() ?? null,
  ]);
  const [matching, sources, paying] = await Promise.all([
    store.cache.intelAnswer(`domains:${key}`, () => matchingDomains(store, filter)),
    getServiceSources(store),
    p.pay_to ? servicesPayingTo(store, p.pay_to, p.network ?? null) : null,
  ]);
  // With pay_to: only the providers of services whose offers name it (every one of them, not only the listed 100).
  const payingDomains = paying && new Set(paying.domains);
  const all = payingDomains ? matching.filter((d) => payingDomains.has(d)) : matching;
  const total = all.length;
  const domains = all.slice(p.offset, p.offset + p.limit);
  let providers: ({ domain: string; first_seen: string; last_seen: string; profile: string } & ReturnType<typeof summarizeProvider>)[] = [];
  if (domains.length) {
    const [provRows, svcRows] = await Promise.all([providerRows(store, domains), serviceRows(store, domains, filter)]);
    const listings = await serviceListings(store, svcRows, o);
    const byDomain = new Map(provRows.map((r) => [r.domain, { row: r, services: [] as typeof listings }]));
    for (const [i, s] of svcRows.entries()) byDomain.get(s.domain)?.services.push(listings[i]);
    providers = domains.flatMap((d) => {
      const p = byDomain.get(d);
      return p ? [{ ...p.row, profile: `/api/providers/${encodeURIComponent(d)}`, ...summarizeProvider(p.services) }] : [];
    });
  }
  return {
    disclaimer: DISCLAIMERS.providers,
    collection_version: COLLECTION_VERSION,
    as_of: asOf,
    total,
    limit: p.limit,
    offset: p.offset,
    stale_after_days: o.staleAfterDays,
    sources,
    providers,
    ...(paying ? { pay_to_services: paying.services } : {}),
  };
}

/**
 * GET /api/providers/{domain}: the provider's profile with all its services (stale ones marked), their latest
 * offers and their CHECKS_PER_SERVICE most recent dated checks.
 * @throws Unavailable before the first collection run (an unlisted provider then proves nothing); NotFound when the
 *   domain is not listed
 */
export async function getProvider(store: Store, domain: string, o: QueryOptions) {
  await assertCollectionAvailable(store);
  const prov = await providerRow(store, domain);
  if (!prov) throw new NotFound(`provider ${domain} is not listed`);
  const listings = await serviceListings(store, await serviceRows(store, [domain], null), o);
  const services = await Promise.all(
    listings.map(async (l) => ({ ...l, checks: (await recentSnapshotRows(store, l.service_id, CHECKS_PER_SERVICE)).map(checkOf) })),
  );
  return {
    disclaimer: DISCLAIMERS.providers,
    collection_version: COLLECTION_VERSION,
    as_of: isoTime(o.now ?? new Date()),
    stale_after_days: o.staleAfterDays,
    provider: { ...prov, services },
  };
}

/**
 * Collection is available once one run has finished: a fact of the store (intel_collect_runs.finished_at, written by
 * the intelligence collector), so every process and replica over it agrees; remembered per store once true (it
 * never becomes unavailable again). /api/intelligence/status reports the same fact as `collection.available`.
 */
const available = new WeakSet<Store>();

/**
 * Throws while no collection run has finished yet: until then an empty answer would read as "no offers",
 * and a missing record is not zero activity.
 * @throws Unavailable (Retry-After 30)
 */
export async function assertCollectionAvailable(store: Store): Promise<void> {
  if (available.has(store)) return;
  if (!(await hasFinishedRun(store)))
    throw new Unavailable('collection temporarily unavailable: no provider collection run has finished yet; retry later', {
      retryAfterSeconds: 30,
    });
  available.add(store);
}

/**
 * Checks the window, requires a finished collection pass, then reads the page of `table` matching `p`.
 * @throws InvalidInput naming `since` when since ≥ until (an empty window is almost always a client mistake;
 *   checked here rather than in the schema so the MCP twins say the same sentence, docs/decisions.md); Unavailable before the first collection pass
 */
async function timedPage<T extends TimedTable>(store: Store, table: T, p: IntelQuery) {
  if (p.since !== undefined && p.until !== undefined && p.until <= p.since)
    throw new InvalidInput(`invalid query parameter 'since': ${sinceNotBeforeUntil(p.since, p.until)}`);
  await assertCollectionAvailable(store);
  return timedRows(store, table, p);
}

/** The members every list answer starts with: what it is not, the collection version, and its pagination. */
function pageOf(disclaimer: string, p: IntelQuery, total: number, o: QueryOptions) {
  return {
    disclaimer,
    collection_version: COLLECTION_VERSION,
    as_of: isoTime(o.now ?? new Date()),
    total,
    limit: p.limit,
    offset: p.offset,
  };
}
type ListPage = ReturnType<typeof pageOf>;

/**
 * GET /api/intelligence/offers: every retained offer (endpoint checks and directory listings), newest first
 * (observed_at desc, id desc).
 * @throws Unavailable before the first collection run; InvalidInput when since ≥ until
 */
async function listOffersUncached(store: Store, p: IntelQuery, o: QueryOptions): Promise<ListPage & { offers: StoredOffer[] }> {
  const { total, rows } = await timedPage(store, 'intel_offers', p);
  return {
    ...pageOf(DISCLAIMERS.offers, p, total, o),
    offers: rows.map((r) => rowToStoredOffer({ ...r, id: Number(r.id) })),
  };
}

/**
 * GET /api/intelligence/changes: dated change records, newest first (at desc, id desc).
 * @throws Unavailable before the first collection run; InvalidInput when since ≥ until
 */
async function listChangesUncached(store: Store, p: IntelQuery, o: QueryOptions): Promise<ListPage & { changes: StoredChange[] }> {
  const { total, rows } = await timedPage(store, 'intel_changes', p);
  return {
    ...pageOf(DISCLAIMERS.changes, p, total, o),
    changes: rows.map((r) => rowToChange({ ...r, id: Number(r.id) })),
  };
}

/**
 * GET /api/intelligence/history: the dated checks of a service or a provider with the offers each advertised,
 * newest first (checked_at desc, snapshot_id desc).
 * @throws InvalidInput naming `domain` when neither domain nor service_id is given, or when since ≥ until;
 *   Unavailable before the first collection run
 */
async function listHistoryUncached(store: Store, p: IntelQuery, o: QueryOptions) {
  if (!p.domain && !p.service_id) throw new InvalidInput("invalid query parameter 'domain': history requires 'domain' or 'service_id'");
  const { total, rows } = await timedPage(store, 'intel_snapshots', p);
  const offers = await offersOfSnapshots(
    store,
    rows.map((r) => r.snapshot_id),
  );
  return {
    ...pageOf(DISCLAIMERS.history, p, total, o),
    checks: rows.map((r) => ({ ...checkOf(r), service_id: r.service_id, domain: r.domain, offers: offers.get(r.snapshot_id) ?? [] })),
  };
}

/**
 * Wraps a list read so that the same parameters within READ_TTL_MS reuse its answer (src/store/cache.ts: the data
 * changes only when collection writes; writes through this store invalidate at once). Errors are never reused.
 */
function reused<P extends object, R>(name: string, read: (store: Store, p: P, o: QueryOptions) => Promise<R>) {
  return (store: Store, p: P, o: QueryOptions): Promise<R> =>
    store.cache.intelAnswer(JSON.stringify([name, p, o.staleAfterDays, o.now?.getTime() ?? null]), () => read(store, p, o));
}

/** GET /api/providers (searchProvidersUncached), answers reused for up to five seconds. */
export const searchProviders = reused('providers', searchProvidersUncached);
/** GET /api/intelligence/offers (listOffersUncached), answers reused for up to five seconds. */
export const listOffers = reused('offers', listOffersUncached);
/** GET /api/intelligence/changes (listChangesUncached), answers reused for up to five seconds. */
export const listChanges = reused('changes', listChangesUncached);
/** GET /api/intelligence/history (listHistoryUncached), answers reused for up to five seconds. */
export const listHistory = reused('history', listHistoryUncached);

/**
 * GET /api/intelligence/status: collection health (last run, availability), source freshness, history coverage
 * (counts and first/last check) and the latest archive verification result. Never 503: it reports the health.
 */
export async function intelligenceStatus(store: Store, o: QueryOptions) {
  const r = await statusRows(store, staleCutoff(o));
  const run = r.lastRun;
  return {
    disclaimer: DISCLAIMERS.status,
    collection_version: COLLECTION_VERSION,
    as_of: isoTime(o.now ?? new Date()),
    collection: {
      available: r.finishedAny,
      last_run: run
        ? {
            started_at: run.started_at,
            finished_at: run.finished_at,
            services: run.services,
            snapshots: run.snapshots,
            changes: run.changes,
            error: run.error,
          }
        : null,
      last_successful_run_at: r.lastSuccessfulRunAt,
    },
    sources: r.sources,
    history: { ...r.counts, first_check_at: r.span.first, last_check_at: r.span.last },
    stale_after_days: o.staleAfterDays,
    archive_verification: r.archive
      ? {
          started_at: r.archive.started_at,
          finished_at: r.archive.finished_at,
          checked: r.archive.checked,
          verified: r.archive.verified,
          failed: JSON.parse(r.archive.failed) as string[],
        }
      : null,
  };
}
