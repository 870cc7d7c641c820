/**
 * Writes of the intel area: services and providers, source freshness, snapshots with their evidence and offers,
 * directory offers, changes, collection runs and archive verification runs. Every multi-row write is one
 * transaction, so a crash never leaves a snapshot without its offers.
 */
import type { IntelSourceRow } from '../tables/intel.js';
import type { Change, Offer, Snapshot } from '../../domain/intel.js';
import type { Store } from '../store.js';
import { changeToRow, GOOD_OUTCOMES, isoTime, offerToRow, rowToOffer, snapshotToRow } from './rows.js';

/** A service as the collector saw it in a source listing. */
export interface ServiceSighting {
  service_id: string;
  domain: string;
  method: string;
  url: string;
  tool: string | null;
  description: string | null;
  /** Name of the source that listed it. */
  source: string;
  /** When it was seen (ISO 8601 or Date). */
  seen_at: string | Date;
}

/**
 * Inserts or refreshes a service and its provider: first_seen is kept, last_seen moves forward, the source name is
 * added to `sources`, a non-null description replaces the stored one.
 */
export async function upsertService(store: Store, s: ServiceSighting): Promise<void> {
  const at = isoTime(s.seen_at);
  await store.db.transaction().execute(async (tx) => {
    await tx
      .insertInto('intel_providers')
      .values({ domain: s.domain, first_seen: at, last_seen: at })
      .onConflict((oc) => oc.column('domain').doUpdateSet({ last_seen: at }))
      .execute();
    const prev = await tx
      .selectFrom('intel_services')
      .select(['sources', 'description'])
      .where('service_id', '=', s.service_id)
      .executeTakeFirst();
    if (!prev) {
      await tx
        .insertInto('intel_services')
        .values({
          service_id: s.service_id,
          domain: s.domain,
          method: s.method,
          url: s.url,
          tool: s.tool,
          description: s.description,
          first_seen: at,
          last_seen: at,
          sources: JSON.stringify([s.source]),
          last_snapshot_id: null,
          last_checked_at: null,
          last_outcome: null,
          last_http_status: null,
          last_good_at: null,
          failing_since: null,
        })
        .execute();
      return;
    }
    const sources = new Set(JSON.parse(prev.sources) as string[]);
    sources.add(s.source);
    await tx
      .updateTable('intel_services')
      .set({ last_seen: at, sources: JSON.stringify([...sources].sort()), description: s.description ?? prev.description })
      .where('service_id', '=', s.service_id)
      .execute();
  });
  store.cache.intelWritten(); // after the write, so a read started meanwhile is not kept as current (../cache.ts)
}

/** Freshness of one source as the source collector computes it (src/intel/sources SourceFreshness). */
export type SourceFreshnessRecord = Omit<IntelSourceRow, 'samples' | 'notes'>;

/**
 * Saves a source's freshness as given (the collector keeps last success and item count across failures).
 * @param samples a few recent items ({method, url, tool}), at most 5 kept; null keeps the stored samples
 * @param notes the pass's notes ({kind, detail, url}, already bounded by the reader); null keeps the stored notes
 */
export async function saveSourceFreshness(
  store: Store,
  f: SourceFreshnessRecord,
  samples: unknown[] | null,
  notes: unknown[] | null = null,
): Promise<void> {
  const norm = (t: string | null) => (t === null ? null : isoTime(t));
  const row = {
    kind: f.kind,
    url: f.url,
    last_attempt_at: norm(f.last_attempt_at),
    last_success_at: norm(f.last_success_at),
    last_error: f.last_error,
    item_count: f.item_count,
  };
  const json = samples === null ? null : JSON.stringify(samples.slice(0, 5));
  const notesJson = notes === null ? null : JSON.stringify(notes);
  const update = { ...row, ...(json === null ? {} : { samples: json }), ...(notesJson === null ? {} : { notes: notesJson }) };
  await store.db
    .insertInto('intel_sources')
    .values({ name: f.name, ...row, samples: json ?? '[]', notes: notesJson ?? '[]' })
    .onConflict((oc) => oc.column('name').doUpdateSet(update))
    .execute();
  store.cache.intelWritten(); // after the write, so a read started meanwhile is not kept as current (../cache.ts)
}

/** The stored freshness of a source, or null when never recorded. */
export async function loadSourceFreshness(store: Store, name: string): Promise<SourceFreshnessRecord | null> {
  const r = await store.db
    .selectFrom('intel_sources')
    .select(['name', 'kind', 'url', 'last_attempt_at', 'last_success_at', 'last_error', 'item_count'])
    .where('name', '=', name)
    .executeTakeFirst();
  return r ?? null;
}

/** Archived evidence of a snapshot: the compressed raw response and the sha256 hex of the uncompressed bytes. */
export interface EvidenceBlob {
  sha256: string;
  /** Compression of `bytes` ("gzip"). */
  encoding: string;
  bytes: Uint8Array;
}

/**
 * Stores one snapshot with its offers and evidence, and moves the service's check state forward: last check,
 * last good check (outcomes in GOOD_OUTCOMES) and failing_since (the first failing check after the last good one).
 * A snapshot older than the service's last check is stored but does not move the state back.
 * @param domain the provider domain of the service (the service must exist: see upsertService)
 * @throws when the snapshot id already exists
 */
export async function recordSnapshot(store: Store, s: Snapshot, domain: string, evidence: EvidenceBlob | null): Promise<void> {
  const row = snapshotToRow(s, domain);
  await store.db.transaction().execute(async (tx) => {
    await tx.insertInto('intel_snapshots').values(row).execute();
    if (evidence) {
      await tx
        .insertInto('intel_evidence')
        .values({ snapshot_id: s.snapshot_id, sha256: evidence.sha256, encoding: evidence.encoding, bytes: evidence.bytes })
        .execute();
    }
    if (s.offers.length) {
      await tx
        .insertInto('intel_offers')
        .values(
          s.offers.map((o) =>
            offerToRow(o, {
              service_id: s.service_id,
              domain,
              snapshot_id: s.snapshot_id,
              source_name: null,
              observed_at: row.checked_at,
              evidence_hash: s.evidence_hash,
            }),
          ),
        )
        .execute();
    }
    const svc = await tx
      .selectFrom('intel_services')
      .select(['last_checked_at', 'last_good_at', 'failing_since'])
      .where('service_id', '=', s.service_id)
      .executeTakeFirst();
    if (!svc || (svc.last_checked_at !== null && svc.last_checked_at > row.checked_at)) return;
    const good = GOOD_OUTCOMES.includes(s.outcome);
    await tx
      .updateTable('intel_services')
      .set({
        last_snapshot_id: s.snapshot_id,
        last_checked_at: row.checked_at,
        last_outcome: s.outcome,
        last_http_status: s.http_status,
        last_good_at: good ? row.checked_at : svc.last_good_at,
        failing_since: good ? null : (svc.failing_since ?? row.checked_at),
        last_latency_ms: row.latency_ms,
        last_error: row.error,
        last_evidence_hash: row.evidence_hash,
        last_offers: JSON.stringify(
          s.offers.map((o) =>
            rowToOffer(
              offerToRow(o, {
                service_id: s.service_id,
                domain,
                snapshot_id: s.snapshot_id,
                source_name: null,
                observed_at: row.checked_at,
                evidence_hash: s.evidence_hash,
              }),
            ),
          ),
        ),
      })
      .where('service_id', '=', s.service_id)
      .execute();
  });
  store.cache.intelWritten(); // after the write, so a read started meanwhile is not kept as current (../cache.ts)
}

/**
 * The offers a source (directory, well-known, openapi) last listed for a service, or [] when none were recorded.
 */
export async function latestDirectoryOffers(store: Store, serviceId: string, sourceName: string): Promise<Offer[]> {
  const last = await store.db
    .selectFrom('intel_offers')
    .select('observed_at')
    .where('service_id', '=', serviceId)
    .where('source_name', '=', sourceName)
    .orderBy('observed_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!last) return [];
  const rows = await store.db
    .selectFrom('intel_offers')
    .selectAll()
    .where('service_id', '=', serviceId)
    .where('source_name', '=', sourceName)
    .where('observed_at', '=', last.observed_at)
    .orderBy('id')
    .execute();
  return rows.map(rowToOffer);
}

/** An archived source answer (a directory page): the evidence the offers listed from it cite. */
export interface SourceAnswerEvidence {
  /** UUID v7 of this answer (src/intel/probe/snapshot-id.ts). */
  snapshot_id: string;
  source_name: string;
  /** The final URL of the answer. */
  url: string;
  /** When it was received (ISO 8601 or Date). */
  fetched_at: string | Date;
  http_status: number;
  evidence: EvidenceBlob;
}

/**
 * Stores the offers a source lists for a service, unless they equal what that source listed last time (a listing
 * that did not change is not re-stored, so the offers table grows with changes, not with polls). A stored listing
 * cites the source answer it was read from: that answer (its row and archived bytes) is stored in the same
 * transaction, once however many listings of it are stored (src/intel/evidence.ts, verified like a probe's).
 * @param answer the archived answer the offers were read from; called only when the listing is stored (archiving
 *   costs a gzip of the whole answer)
 * @returns true when a new listing was stored
 */
export async function recordDirectoryOffers(
  store: Store,
  at: { service_id: string; domain: string; source_name: string; observed_at: string | Date },
  offers: Offer[],
  answer: () => SourceAnswerEvidence,
): Promise<boolean> {
  if (!offers.length) return false;
  const observed_at = isoTime(at.observed_at);
  const bare = {
    service_id: at.service_id,
    domain: at.domain,
    snapshot_id: null,
    source_name: at.source_name,
    observed_at,
    evidence_hash: null,
  };
  const prev = await latestDirectoryOffers(store, at.service_id, at.source_name);
  // Compare in stored form (a round trip through the row), so an unchanged listing is recognised.
  if (JSON.stringify(prev) === JSON.stringify(offers.map((o) => rowToOffer(offerToRow(o, bare))))) return false;
  const a = answer();
  const where = { ...bare, snapshot_id: a.snapshot_id, evidence_hash: a.evidence.sha256 };
  await store.db.transaction().execute(async (tx) => {
    await tx
      .insertInto('intel_source_answers')
      .values({
        snapshot_id: a.snapshot_id,
        source_name: a.source_name,
        url: a.url,
        fetched_at: isoTime(a.fetched_at),
        http_status: a.http_status,
        evidence_hash: a.evidence.sha256,
      })
      .onConflict((oc) => oc.column('snapshot_id').doNothing())
      .execute();
    await tx
      .insertInto('intel_evidence')
      .values({ snapshot_id: a.snapshot_id, sha256: a.evidence.sha256, encoding: a.evidence.encoding, bytes: a.evidence.bytes })
      .onConflict((oc) => oc.column('snapshot_id').doNothing())
      .execute();
    await tx
      .insertInto('intel_offers')
      .values(offers.map((o) => offerToRow(o, where)))
      .execute();
  });
  store.cache.intelWritten(); // after the write, so a read started meanwhile is not kept as current (../cache.ts)
  return true;
}

/** Appends change records (ids are assigned by the store). */
export async function insertChanges(store: Store, changes: Change[]): Promise<void> {
  if (!changes.length) return;
  await store.db.insertInto('intel_changes').values(changes.map(changeToRow)).execute();
  store.cache.intelWritten(); // after the write, so a read started meanwhile is not kept as current (../cache.ts)
}

/** Opens a collection run. @returns its id */
export async function startCollectRun(store: Store, startedAt: string | Date = new Date()): Promise<number> {
  const r = await store.db
    .insertInto('intel_collect_runs')
    .values({ started_at: isoTime(startedAt), finished_at: null, services: null, snapshots: null, changes: null, error: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  store.cache.intelWritten(); // after the write, so a read started meanwhile is not kept as current (../cache.ts)
  return Number(r.id);
}

/** Closes a collection run with its counts, or the error that stopped it. */
export async function finishCollectRun(
  store: Store,
  id: number,
  result: { services: number; snapshots: number; changes: number; error: string | null },
  finishedAt: string | Date = new Date(),
): Promise<void> {
  await store.db
    .updateTable('intel_collect_runs')
    .set({ finished_at: isoTime(finishedAt), ...result })
    .where('id', '=', id)
    .execute();
  store.cache.intelWritten(); // after the write, so a read started meanwhile is not kept as current (../cache.ts)
}

/** Records the result of one archive verification pass. */
export async function recordArchiveRun(
  store: Store,
  r: { started_at: string | Date; finished_at: string | Date; checked: number; verified: number; failed: string[] },
): Promise<void> {
  await store.db
    .insertInto('intel_archive_runs')
    .values({
      started_at: isoTime(r.started_at),
      finished_at: isoTime(r.finished_at),
      checked: r.checked,
      verified: r.verified,
      failed: JSON.stringify(r.failed),
    })
    .execute();
  store.cache.intelWritten(); // after the write, so a read started meanwhile is not kept as current (../cache.ts)
}

/**
 * Reads archived evidence in snapshot-id order, `batch` rows at a time, for the verification job, with the
 * evidence hash its snapshot (an endpoint check, or an archived source answer) cites (null when neither row exists).
 * @param after the last snapshot id of the previous batch ('' to start)
 */
export async function readEvidenceBatch(
  store: Store,
  after: string,
  batch: number,
): Promise<{ snapshot_id: string; sha256: string; encoding: string; bytes: Uint8Array; evidence_hash: string | null }[]> {
  return store.db
    .selectFrom('intel_evidence')
    .leftJoin('intel_snapshots', 'intel_snapshots.snapshot_id', 'intel_evidence.snapshot_id')
    .leftJoin('intel_source_answers', 'intel_source_answers.snapshot_id', 'intel_evidence.snapshot_id')
    .select((eb) => [
      'intel_evidence.snapshot_id',
      'intel_evidence.sha256',
      'intel_evidence.encoding',
      'intel_evidence.bytes',
      eb.fn.coalesce('intel_snapshots.evidence_hash', 'intel_source_answers.evidence_hash').as('evidence_hash'),
    ])
    .where('intel_evidence.snapshot_id', '>', after)
    .orderBy('intel_evidence.snapshot_id')
    .limit(batch)
    .execute();
}

/** The services the collector probes: every known service, in a stable order. */
export async function listProbeTargets(
  store: Store,
): Promise<{ service_id: string; domain: string; method: string; url: string; tool: string | null; sources: string[] }[]> {
  const rows = await store.db
    .selectFrom('intel_services')
    .select(['service_id', 'domain', 'method', 'url', 'tool', 'sources'])
    .orderBy('domain')
    .orderBy('service_id')
    .execute();
  return rows.map((r) => ({ ...r, sources: JSON.parse(r.sources) as string[] }));
}
