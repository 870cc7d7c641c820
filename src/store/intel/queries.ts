/**
 * The read side of provider intelligence: one function per endpoint, each returning the response body. The HTTP
 * routes (src/api/routes/providers.ts, intelligence.ts) and the MCP tools (src/mcp) call these same functions
 * with input parsed by the same zod shapes (./params.ts).
 */
import { sql, type Selectable, type SelectQueryBuilder } from 'kysely';
import { InvalidInput, NotFound, Unavailable } from '../../domain/errors.js';
import type { Snapshot } from '../../domain/intel.js';
import type { Database } from '../schema.js';
import type { DialectName, Store } from '../db.js';
import { SEARCH_TEXT } from '../migrations/intel.js';
import type { IntelServiceRow, IntelSnapshotRow } from '../tables/intel.js';
import { cachedRead } from './cache.js';
import { summarizeProvider } from './listing.js';
import { DISCLAIMERS, type IntelQuery, type ProvidersQuery } from './params.js';
import { isoFromUnix, isoTime, parseJson, rowToChange, rowToOffer, rowToSnapshot, rowToStoredOffer, type StoredChange, type StoredOffer } from './rows.js';
import type { ChangeKind, Offer } from '../../domain/intel.js';

/** What every query needs besides its parameters. */
export interface QueryOptions {
  /** Days a service may fail (since its first failing check after the last good one) before it is stale. */
  staleAfterDays: number;
  /** The current time (tests pin it); default now. */
  now?: Date;
}

/** The ISO time before which a failing_since makes a service stale. */
function staleCutoff(o: QueryOptions): string {
  return new Date((o.now ?? new Date()).getTime() - o.staleAfterDays * 86_400_000).toISOString();
}

/** Escapes LIKE wildcards in user text (the pattern uses ESCAPE '\'). */
function likePattern(q: string): string {
  return `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

type ServiceQuery = SelectQueryBuilder<Database, 'intel_services', object>;

/** Applies the search filters of ProvidersQuery to a query over intel_services (`fromIndex`: see searchCondition). */
function filterServices(qb: ServiceQuery, dialect: DialectName, p: ProvidersQuery, o: QueryOptions, fromIndex = true): ServiceQuery {
  let q = qb;
  if (!p.include_stale) {
    const cutoff = staleCutoff(o);
    q = q.where((eb) => eb.or([eb('intel_services.failing_since', 'is', null), eb('intel_services.failing_since', '>', cutoff)]));
  }
  if (p.check === 'unchecked') q = q.where('intel_services.last_outcome', 'is', null);
  else if (p.check) q = q.where('intel_services.last_outcome', '=', p.check);
  if (p.network) {
    const network = p.network;
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('intel_offers')
          .select(sql`1`.as('one'))
          .whereRef('intel_offers.snapshot_id', '=', 'intel_services.last_snapshot_id')
          .where('intel_offers.network', '=', network),
      ),
    );
  }
  if (p.q && p.q.trim()) q = q.where(searchCondition(dialect, p.q.trim(), fromIndex));
  return q;
}

/**
 * The `q` condition: a case-insensitive substring of "domain url description" (one space between), answered
 * from the intel_0003 trigram index: pg_trgm GIN on PostgreSQL; on SQLite an FTS5 trigram phrase (a contiguous
 * substring, case-folded) for three or more characters and LIKE over the same table below that (FTS5 trigram
 * phrases shorter than three characters match nothing). `fromIndex` false tests each row's text instead (SQLite
 * would otherwise read every index match to check a page's few services; PostgreSQL's planner picks by itself).
 */
function searchCondition(dialect: DialectName, q: string, fromIndex: boolean) {
  const pat = likePattern(q);
  if (dialect === 'postgres' || !fromIndex) return sql<boolean>`${SEARCH_TEXT} like ${pat} escape '\\'`;
  // q is restricted to [A-Za-z0-9:._-/ ] (ProvidersQuery), so it has no double quote to escape in the phrase.
  const inner = [...q].length >= 3 ? sql`intel_services_search match ${`"${q}"`}` : sql`text like ${pat} escape '\\'`;
  return sql<boolean>`intel_services.rowid in (select rowid from intel_services_search where ${inner})`;
}

/**
 * Latest check and offers of each service, in the listing shape: from the copies on the service row
 * (intel_0002), or by joining the snapshot and its offers for rows written without them.
 */
async function serviceListings(store: Store, services: IntelServiceRow[], o: QueryOptions) {
  const joinIds = services.filter((s) => s.last_snapshot_id !== null && (s.last_offers ?? null) === null).map((s) => s.last_snapshot_id!);
  const [snaps, offersBySnap] = await Promise.all([
    joinIds.length ? store.db.selectFrom('intel_snapshots').selectAll().where('snapshot_id', 'in', joinIds).execute() : [],
    offersOfSnapshots(store, joinIds),
  ]);
  const snapById = new Map(snaps.map((s) => [s.snapshot_id, s]));
  const cutoff = staleCutoff(o);
  return services.map((s) => {
    const copied = s.last_snapshot_id !== null && (s.last_offers ?? null) !== null;
    const snap = s.last_snapshot_id ? snapById.get(s.last_snapshot_id) : undefined;
    const latest = copied
      ? { snapshot_id: s.last_snapshot_id!, checked_at: s.last_checked_at!, outcome: s.last_outcome!, http_status: s.last_http_status, latency_ms: s.last_latency_ms ?? null, error: s.last_error ?? null, evidence_hash: s.last_evidence_hash ?? null }
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
 * Source freshness: every configured source that has been attempted, by name.
 * This is the `service_sources` member of /api/status (items: name, kind, url, last_attempt_at, last_success_at,
 * last_error, item_count, samples).
 */
export async function getServiceSources(store: Store) {
  const rows = await store.db.selectFrom('intel_sources').selectAll().orderBy('name').execute();
  return rows.map((r) => ({ ...r, samples: parseJson<unknown[]>(r.samples) ?? [] }));
}

/**
 * GET /api/providers: providers with at least one service matching the filters (stale services hidden unless
 * include_stale), ordered by domain, each as a summary of its matching services (./listing.ts: counts,
 * networks, protocols, price ranges, newest dated check, the first few services), with the source freshness and
 * pagination. The full services and offers are in getProvider.
 */
async function searchProvidersUncached(store: Store, p: ProvidersQuery, o: QueryOptions) {
  const asOf = isoTime(o.now ?? new Date());
  // Every provider with a matching service, once per filter set and TTL: the index-driven read (q through the
  // trigram index) of the matching services' distinct domains.
  const key = JSON.stringify([p.q ?? null, p.network ?? null, p.check ?? null, Boolean(p.include_stale), o.staleAfterDays, o.now?.getTime() ?? null]);
  const [all, sources] = await Promise.all([
    cachedRead(store, `domains:${key}`, async () =>
      (await filterServices(store.db.selectFrom('intel_services'), store.dialect, p, o).select('intel_services.domain').distinct().orderBy('intel_services.domain').execute()).map((r) => r.domain),
    ),
    getServiceSources(store),
  ]);
  const total = all.length;
  const domains = all.slice(p.offset, p.offset + p.limit);
  let providers: ({ domain: string; first_seen: string; last_seen: string; profile: string } & ReturnType<typeof summarizeProvider>)[] = [];
  if (domains.length) {
    const [provRows, svcRows] = await Promise.all([
      store.db.selectFrom('intel_providers').selectAll().where('domain', 'in', domains).execute(),
      filterServices(store.db.selectFrom('intel_services'), store.dialect, p, o, false).selectAll().where('intel_services.domain', 'in', domains).orderBy('url').orderBy('service_id').execute(),
    ]);
    const listings = await serviceListings(store, svcRows, o);
    const byDomain = new Map(provRows.map((r) => [r.domain, { row: r, services: [] as typeof listings }]));
    svcRows.forEach((s, i) => byDomain.get(s.domain)?.services.push(listings[i]));
    providers = domains.flatMap((d) => {
      const p = byDomain.get(d);
      return p ? [{ ...p.row, profile: `/api/providers/${encodeURIComponent(d)}`, ...summarizeProvider(p.services) }] : [];
    });
  }
  return {
    disclaimer: DISCLAIMERS.providers,
    as_of: asOf,
    total,
    limit: p.limit,
    offset: p.offset,
    stale_after_days: o.staleAfterDays,
    sources,
    providers,
  };
}

/**
 * GET /api/providers/{domain}: the provider's profile with all its services (stale ones marked), their latest
 * offers and their 20 most recent dated checks.
 * @throws NotFound when the domain is not listed
 */
export async function getProvider(store: Store, domain: string, o: QueryOptions) {
  const prov = await store.db.selectFrom('intel_providers').selectAll().where('domain', '=', domain).executeTakeFirst();
  if (!prov) throw new NotFound(`provider ${domain} is not listed`);
  const svcRows = await store.db.selectFrom('intel_services').selectAll().where('domain', '=', domain).orderBy('url').orderBy('service_id').execute();
  const listings = await serviceListings(store, svcRows, o);
  const services = await Promise.all(
    listings.map(async (l) => ({
      ...l,
      checks: (
        await store.db.selectFrom('intel_snapshots').selectAll().where('service_id', '=', l.service_id).orderBy('checked_at', 'desc').orderBy('snapshot_id', 'desc').limit(20).execute()
      ).map(checkOf),
    })),
  );
  return {
    disclaimer: DISCLAIMERS.providers,
    as_of: isoTime(o.now ?? new Date()),
    stale_after_days: o.staleAfterDays,
    provider: { ...prov, services },
  };
}

/** Collection is available once one run has finished; remembered per store (it never becomes unavailable again). */
const available = new WeakSet<Store>();

/**
 * Throws 503 while no collection run has finished yet: until then an empty answer would read as "no offers",
 * and a missing record is not zero activity.
 * @throws Unavailable (Retry-After 30)
 */
export async function assertCollectionAvailable(store: Store): Promise<void> {
  if (available.has(store)) return;
  const run = await store.db.selectFrom('intel_collect_runs').select('id').where('finished_at', 'is not', null).limit(1).executeTakeFirst();
  if (!run) throw new Unavailable('collection temporarily unavailable: no provider collection run has finished yet; retry later', { retryAfterSeconds: 30 });
  available.add(store);
}

type TimedTable = 'intel_offers' | 'intel_changes' | 'intel_snapshots';

/** The time column and the tie-breaker of each time-ordered intel table (pages are newest first). */
const TIMED = {
  intel_offers: { time: 'observed_at', tie: 'id' },
  intel_changes: { time: 'at', tie: 'id' },
  intel_snapshots: { time: 'checked_at', tie: 'snapshot_id' },
} as const;

/** Rejects since ≥ until (an empty window is almost always a client mistake). @throws InvalidInput naming `until` */
function checkWindow(p: IntelQuery): void {
  if (p.since !== undefined && p.until !== undefined && p.until <= p.since) throw new InvalidInput("invalid query parameter 'until': must be greater than 'since'");
}

/**
 * Checks the window, requires a finished collection pass, then counts the rows of `table` matching domain,
 * service_id, since (inclusive) and until (exclusive), and reads one page of them, newest first.
 * @throws InvalidInput when until ≤ since; Unavailable before the first collection pass
 */
async function timedPage<T extends TimedTable>(store: Store, table: T, p: IntelQuery): Promise<{ total: number; rows: Selectable<Database[T]>[] }> {
  checkWindow(p);
  await assertCollectionAvailable(store);
  const { time, tie } = TIMED[table];
  let q = store.db.selectFrom(table as TimedTable);
  if (p.domain) q = q.where('domain', '=', p.domain);
  if (p.service_id) q = q.where('service_id', '=', p.service_id);
  if (p.since !== undefined) q = q.where(sql.ref(time), '>=', isoFromUnix(p.since));
  if (p.until !== undefined) q = q.where(sql.ref(time), '<', isoFromUnix(p.until));
  const [count, rows] = await Promise.all([
    q.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    q.selectAll().orderBy(sql.ref(time), 'desc').orderBy(sql.ref(tie), 'desc').limit(p.limit).offset(p.offset).execute(),
  ]);
  return { total: Number(count.n), rows: rows as unknown as Selectable<Database[T]>[] };
}

/** Pagination members of a list response. */
function pageOf(p: IntelQuery, total: number, o: QueryOptions) {
  return { as_of: isoTime(o.now ?? new Date()), total, limit: p.limit, offset: p.offset };
}

/**
 * GET /api/intelligence/offers: every retained offer (endpoint checks and directory listings), newest first
 * (observed_at desc, id desc).
 * @throws Unavailable before the first collection run; BadRequest when until ≤ since
 */
async function listOffersUncached(store: Store, p: IntelQuery, o: QueryOptions): Promise<{ disclaimer: string; as_of: string; total: number; limit: number; offset: number; offers: StoredOffer[] }> {
  const { total, rows } = await timedPage(store, 'intel_offers', p);
  return { disclaimer: DISCLAIMERS.offers, ...pageOf(p, total, o), offers: rows.map((r) => rowToStoredOffer({ ...r, id: Number(r.id) })) };
}

/**
 * GET /api/intelligence/changes: dated change records, newest first (at desc, id desc).
 * @throws Unavailable before the first collection run; BadRequest when until ≤ since
 */
async function listChangesUncached(store: Store, p: IntelQuery, o: QueryOptions): Promise<{ disclaimer: string; as_of: string; total: number; limit: number; offset: number; changes: StoredChange[] }> {
  const { total, rows } = await timedPage(store, 'intel_changes', p);
  return { disclaimer: DISCLAIMERS.changes, ...pageOf(p, total, o), changes: rows.map((r) => rowToChange({ ...r, id: Number(r.id) })) };
}

/**
 * GET /api/intelligence/history: the dated checks of a service or a provider with the offers each advertised,
 * newest first (checked_at desc, snapshot_id desc).
 * @throws InvalidInput naming `domain` when neither domain nor service_id is given, or when until ≤ since;
 *   Unavailable before the first collection run
 */
async function listHistoryUncached(store: Store, p: IntelQuery, o: QueryOptions) {
  if (!p.domain && !p.service_id) throw new InvalidInput("invalid query parameter 'domain': history requires 'domain' or 'service_id'");
  const { total, rows } = await timedPage(store, 'intel_snapshots', p);
  const offers = await offersOfSnapshots(store, rows.map((r) => r.snapshot_id));
  return {
    disclaimer: DISCLAIMERS.history,
    ...pageOf(p, total, o),
    checks: rows.map((r) => ({ ...checkOf(r), service_id: r.service_id, domain: r.domain, offers: offers.get(r.snapshot_id) ?? [] })),
  };
}

/**
 * Wraps a list read so that the same parameters within READ_TTL_MS reuse its answer (./cache.ts: the data changes
 * only when collection writes; writes in this process invalidate at once). Errors are never reused.
 */
function reused<P extends object, R>(name: string, read: (store: Store, p: P, o: QueryOptions) => Promise<R>) {
  return (store: Store, p: P, o: QueryOptions): Promise<R> =>
    cachedRead(store, JSON.stringify([name, p, o.staleAfterDays, o.now?.getTime() ?? null]), () => read(store, p, o));
}

/** GET /api/providers (searchProvidersUncached), answers reused for up to five seconds. */
export const searchProviders = reused('providers', searchProvidersUncached);
/** GET /api/intelligence/offers (listOffersUncached), answers reused for up to five seconds. */
export const listOffers = reused('offers', listOffersUncached);
/** GET /api/intelligence/changes (listChangesUncached), answers reused for up to five seconds. */
export const listChanges = reused('changes', listChangesUncached);
/** GET /api/intelligence/history (listHistoryUncached), answers reused for up to five seconds. */
export const listHistory = reused('history', listHistoryUncached);

/** Most change records serviceChangesSince returns (the newest ones): a bound on a service that changes on every probe. */
export const SERVICE_CHANGES_MAX = 1000;

/**
 * The change records of one service of the given kinds dated at or after `since`, oldest first (at, then id), as
 * GET /api/intelligence/changes serves them (same ids), at most SERVICE_CHANGES_MAX (the newest). Read by the
 * trust check; one range of the intel_changes (service_id, at) index.
 * @param since ISO 8601 (normalised here, so any valid time string works)
 * @throws RangeError when `since` is not a valid time
 */
export async function serviceChangesSince(store: Store, serviceId: string, since: string, kinds: readonly ChangeKind[]): Promise<StoredChange[]> {
  if (!kinds.length) return [];
  const rows = await store.db
    .selectFrom('intel_changes')
    .selectAll()
    .where('service_id', '=', serviceId)
    .where('at', '>=', isoTime(since))
    .where('kind', 'in', kinds)
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(SERVICE_CHANGES_MAX)
    .execute();
  return rows.reverse().map((r) => rowToChange({ ...r, id: Number(r.id) }));
}

/** The offers of each snapshot id, in stored order. */
async function offersOfSnapshots(store: Store, ids: string[]): Promise<Map<string, Offer[]>> {
  const m = new Map<string, Offer[]>();
  if (!ids.length) return m;
  const rows = await store.db.selectFrom('intel_offers').selectAll().where('snapshot_id', 'in', ids).orderBy('id').execute();
  for (const r of rows) {
    const list = m.get(r.snapshot_id!) ?? [];
    list.push(rowToOffer(r));
    m.set(r.snapshot_id!, list);
  }
  return m;
}

/**
 * The latest snapshot of a service (by checked_at, then snapshot_id) with its offers, or null when never checked.
 * The collector diffs each new snapshot against it.
 */
export async function latestSnapshot(store: Store, serviceId: string): Promise<Snapshot | null> {
  const r = await store.db
    .selectFrom('intel_snapshots')
    .selectAll()
    .where('service_id', '=', serviceId)
    .orderBy('checked_at', 'desc')
    .orderBy('snapshot_id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!r) return null;
  return rowToSnapshot(r, (await offersOfSnapshots(store, [r.snapshot_id])).get(r.snapshot_id) ?? []);
}

/**
 * GET /api/intelligence/status: collection health (last run, availability), source freshness, history coverage
 * (counts and first/last check) and the latest archive verification result. Never 503: it reports the health.
 */
export async function intelligenceStatus(store: Store, o: QueryOptions) {
  const db = store.db;
  const n = (x: { n: number | string | bigint } | undefined) => Number(x?.n ?? 0);
  const cutoff = staleCutoff(o);
  const [lastRun, lastOk, sources, providers, services, stale, snapshots, offers, changes, span, archive] = await Promise.all([
    db.selectFrom('intel_collect_runs').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirst(),
    db.selectFrom('intel_collect_runs').select('finished_at').where('finished_at', 'is not', null).where('error', 'is', null).orderBy('id', 'desc').limit(1).executeTakeFirst(),
    getServiceSources(store),
    db.selectFrom('intel_providers').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
    db.selectFrom('intel_services').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
    db.selectFrom('intel_services').select((eb) => eb.fn.countAll<number>().as('n')).where('failing_since', '<=', cutoff).executeTakeFirst(),
    db.selectFrom('intel_snapshots').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
    db.selectFrom('intel_offers').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
    db.selectFrom('intel_changes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
    db.selectFrom('intel_snapshots').select((eb) => [eb.fn.min('checked_at').as('first'), eb.fn.max('checked_at').as('last')]).executeTakeFirst(),
    db.selectFrom('intel_archive_runs').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirst(),
  ]);
  const finishedAny = await db.selectFrom('intel_collect_runs').select('id').where('finished_at', 'is not', null).limit(1).executeTakeFirst();
  return {
    disclaimer: DISCLAIMERS.status,
    as_of: isoTime(o.now ?? new Date()),
    collection: {
      available: finishedAny !== undefined,
      last_run: lastRun
        ? { started_at: lastRun.started_at, finished_at: lastRun.finished_at, services: lastRun.services, snapshots: lastRun.snapshots, changes: lastRun.changes, error: lastRun.error }
        : null,
      last_successful_run_at: lastOk?.finished_at ?? null,
    },
    sources,
    history: {
      providers: n(providers),
      services: n(services),
      services_stale: n(stale),
      snapshots: n(snapshots),
      offers: n(offers),
      changes: n(changes),
      first_check_at: (span?.first as string | null) ?? null,
      last_check_at: (span?.last as string | null) ?? null,
    },
    stale_after_days: o.staleAfterDays,
    archive_verification: archive
      ? { started_at: archive.started_at, finished_at: archive.finished_at, checked: archive.checked, verified: archive.verified, failed: JSON.parse(archive.failed) as string[] }
      : null,
  };
}
