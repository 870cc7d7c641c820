/**
 * The intel area's reads: SQL in, rows out. No response shapes, disclaimers or errors here; the answers the API
 * and MCP serve are built from these rows by src/intel/queries.ts.
 */
import { sql, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../schema.js';
import type { DialectName, Store } from '../db.js';
import { SEARCH_TEXT } from '../migrations/intel.js';
import type { IntelProviderRow, IntelServiceRow, IntelSnapshotRow } from '../tables/intel.js';
import { isoFromUnix, isoTime, parseJson, rowToChange, rowToOffer, rowToSnapshot, type StoredChange } from './rows.js';
import type { ChangeKind, Offer, Snapshot } from '../../domain/intel.js';

/** Which services a provider search matches. */
export interface ServiceFilter {
  /** Case-insensitive substring of "domain url description"; restricted to [A-Za-z0-9:._-/ ] by the wire schema. */
  q?: string;
  network?: string;
  /** A probe outcome, or 'unchecked' for services never checked. */
  check?: string;
  /** Services failing since before this ISO time are stale; they are left out unless this is null. */
  staleBefore: string | null;
}

/** Escapes LIKE wildcards in user text (the pattern uses ESCAPE '\'). */
function likePattern(q: string): string {
  return `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

type ServiceQuery = SelectQueryBuilder<Database, 'intel_services', object>;

/** Applies `f` to a query over intel_services (`fromIndex`: see searchCondition). */
function filterServices(qb: ServiceQuery, dialect: DialectName, f: ServiceFilter, fromIndex = true): ServiceQuery {
  let q = qb;
  if (f.staleBefore !== null) {
    const cutoff = f.staleBefore;
    q = q.where((eb) => eb.or([eb('intel_services.failing_since', 'is', null), eb('intel_services.failing_since', '>', cutoff)]));
  }
  if (f.check === 'unchecked') q = q.where('intel_services.last_outcome', 'is', null);
  else if (f.check) q = q.where('intel_services.last_outcome', '=', f.check);
  if (f.network) {
    const network = f.network;
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
  if (f.q?.trim()) q = q.where(searchCondition(dialect, f.q.trim(), fromIndex));
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
  // q is restricted to [A-Za-z0-9:._-/ ] (the wire schema), so it has no double quote to escape in the phrase.
  const inner = [...q].length >= 3 ? sql`intel_services_search match ${`"${q}"`}` : sql`text like ${pat} escape '\\'`;
  return sql<boolean>`intel_services.rowid in (select rowid from intel_services_search where ${inner})`;
}

/** Domains with at least one service matching `f`, in domain order (the index-driven read). */
export async function matchingDomains(store: Store, f: ServiceFilter): Promise<string[]> {
  const rows = await filterServices(store.db.selectFrom('intel_services'), store.dialect, f)
    .select('intel_services.domain')
    .distinct()
    .orderBy('intel_services.domain')
    .execute();
  return rows.map((r) => r.domain);
}

/** The provider rows of `domains` (any order). */
export async function providerRows(store: Store, domains: string[]): Promise<IntelProviderRow[]> {
  return domains.length ? store.db.selectFrom('intel_providers').selectAll().where('domain', 'in', domains).execute() : [];
}

/** The provider row of `domain`, or undefined when not listed. */
export async function providerRow(store: Store, domain: string): Promise<IntelProviderRow | undefined> {
  return store.db.selectFrom('intel_providers').selectAll().where('domain', '=', domain).executeTakeFirst();
}

/** The services of `domains` matching `f` (null: all of them), ordered by url, then service_id. */
export async function serviceRows(store: Store, domains: string[], f: ServiceFilter | null): Promise<IntelServiceRow[]> {
  if (!domains.length) return [];
  const base = store.db.selectFrom('intel_services');
  const q = f ? filterServices(base, store.dialect, f, false) : base;
  return q.selectAll().where('intel_services.domain', 'in', domains).orderBy('url').orderBy('service_id').execute();
}

/** The snapshot rows of `ids` (any order). */
export async function snapshotRows(store: Store, ids: string[]): Promise<IntelSnapshotRow[]> {
  return ids.length ? store.db.selectFrom('intel_snapshots').selectAll().where('snapshot_id', 'in', ids).execute() : [];
}

/** The `limit` most recent snapshot rows of a service, newest first (checked_at, then snapshot_id). */
export async function recentSnapshotRows(store: Store, serviceId: string, limit: number): Promise<IntelSnapshotRow[]> {
  return store.db
    .selectFrom('intel_snapshots')
    .selectAll()
    .where('service_id', '=', serviceId)
    .orderBy('checked_at', 'desc')
    .orderBy('snapshot_id', 'desc')
    .limit(limit)
    .execute();
}

/** The offers of each snapshot id, in stored order. */
export async function offersOfSnapshots(store: Store, ids: string[]): Promise<Map<string, Offer[]>> {
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

/** A note stored with a source's freshness (src/intel/read-bounds.ts SourceNote). */
interface StoredSourceNote {
  kind: 'directory_entry_invalid';
  detail: string;
  url: string | null;
}

/**
 * Source freshness rows: every configured source that has been attempted, by name (members name, kind, url,
 * last_attempt_at, last_success_at, last_error, item_count, samples, notes).
 */
export async function getServiceSources(store: Store) {
  const rows = await store.db.selectFrom('intel_sources').selectAll().orderBy('name').execute();
  return rows.map((r) => ({ ...r, samples: parseJson<unknown[]>(r.samples) ?? [], notes: parseJson<StoredSourceNote[]>(r.notes) ?? [] }));
}

/** True once one collection run has finished. */
export async function hasFinishedRun(store: Store): Promise<boolean> {
  return (
    (await store.db.selectFrom('intel_collect_runs').select('id').where('finished_at', 'is not', null).limit(1).executeTakeFirst()) !==
    undefined
  );
}

/** The time-ordered intel tables. */
export type TimedTable = 'intel_offers' | 'intel_changes' | 'intel_snapshots';

/** The time column and the tie-breaker of each time-ordered intel table (pages are newest first). */
const TIMED = {
  intel_offers: { time: 'observed_at', tie: 'id' },
  intel_changes: { time: 'at', tie: 'id' },
  intel_snapshots: { time: 'checked_at', tie: 'snapshot_id' },
} as const;

/** A window of a time-ordered table: filters and one page. */
export interface TimedFilter {
  domain?: string;
  service_id?: string;
  /** Inclusive lower bound, UTC Unix seconds. */
  since?: number;
  /** Exclusive upper bound, UTC Unix seconds. */
  until?: number;
  limit: number;
  offset: number;
}

/** Counts the rows of `table` matching `f` and reads one page of them, newest first. */
export async function timedRows<T extends TimedTable>(
  store: Store,
  table: T,
  f: TimedFilter,
): Promise<{ total: number; rows: Selectable<Database[T]>[] }> {
  const { time, tie } = TIMED[table];
  let q = store.db.selectFrom(table as TimedTable);
  if (f.domain) q = q.where('domain', '=', f.domain);
  if (f.service_id) q = q.where('service_id', '=', f.service_id);
  if (f.since !== undefined) q = q.where(sql.ref(time), '>=', isoFromUnix(f.since));
  if (f.until !== undefined) q = q.where(sql.ref(time), '<', isoFromUnix(f.until));
  const [count, rows] = await Promise.all([
    q.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    q.selectAll().orderBy(sql.ref(time), 'desc').orderBy(sql.ref(tie), 'desc').limit(f.limit).offset(f.offset).execute(),
  ]);
  return { total: Number(count.n), rows: rows as unknown as Selectable<Database[T]>[] };
}

/** Most change records serviceChangesSince returns (the newest ones): a bound on a service that changes on every probe. */
export const SERVICE_CHANGES_MAX = 1000;

/**
 * The change records of one service of the given kinds dated at or after `since`, oldest first (at, then id), as
 * GET /api/intelligence/changes serves them (same ids), at most SERVICE_CHANGES_MAX (the newest). Read by the
 * trust check; one range of the intel_changes (service_id, at) index.
 * @param since ISO 8601 (normalised here, so any valid time string works)
 * @throws RangeError when `since` is not a valid time
 */
export async function serviceChangesSince(
  store: Store,
  serviceId: string,
  since: string,
  kinds: readonly ChangeKind[],
): Promise<StoredChange[]> {
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

/**
 * The latest snapshot of a service (by checked_at, then snapshot_id) with its offers, or null when never checked.
 * The collector diffs each new snapshot against it.
 */
export async function latestSnapshot(store: Store, serviceId: string): Promise<Snapshot | null> {
  const [r] = await recentSnapshotRows(store, serviceId, 1);
  if (!r) return null;
  return rowToSnapshot(r, (await offersOfSnapshots(store, [r.snapshot_id])).get(r.snapshot_id) ?? []);
}

/** The numbers behind GET /api/intelligence/status, read at once; `staleBefore` as in ServiceFilter. */
export async function statusRows(store: Store, staleBefore: string) {
  const db = store.db;
  const n = (x: { n: number | string | bigint } | undefined) => Number(x?.n ?? 0);
  const [lastRun, lastOk, sources, providers, services, stale, snapshots, offers, changes, span, archive, finished] = await Promise.all([
    db.selectFrom('intel_collect_runs').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirst(),
    db
      .selectFrom('intel_collect_runs')
      .select('finished_at')
      .where('finished_at', 'is not', null)
      .where('error', 'is', null)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst(),
    getServiceSources(store),
    db
      .selectFrom('intel_providers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst(),
    db
      .selectFrom('intel_services')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst(),
    db
      .selectFrom('intel_services')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('failing_since', '<=', staleBefore)
      .executeTakeFirst(),
    db
      .selectFrom('intel_snapshots')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst(),
    db
      .selectFrom('intel_offers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst(),
    db
      .selectFrom('intel_changes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst(),
    db
      .selectFrom('intel_snapshots')
      .select((eb) => [eb.fn.min('checked_at').as('first'), eb.fn.max('checked_at').as('last')])
      .executeTakeFirst(),
    db.selectFrom('intel_archive_runs').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirst(),
    hasFinishedRun(store),
  ]);
  return {
    lastRun,
    lastSuccessfulRunAt: lastOk?.finished_at ?? null,
    finishedAny: finished,
    sources,
    counts: {
      providers: n(providers),
      services: n(services),
      services_stale: n(stale),
      snapshots: n(snapshots),
      offers: n(offers),
      changes: n(changes),
    },
    span: { first: (span?.first as string | null) ?? null, last: (span?.last as string | null) ?? null },
    archive,
  };
}
