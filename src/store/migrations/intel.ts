import { sql, type Kysely, type Migration } from 'kysely';
import { isPostgres } from './dialect.js';
import type { Offer } from '../../domain/intel.js';
import { rowToOffer } from '../intel/rows.js';
import type { Database } from '../schema.js';

/** Migrations of the intel area, named "intel_NNNN_what" (unique across areas, applied in name order). */
export const intelMigrations: Record<string, Migration> = {
  intel_0001_init: {
    async up(db: Kysely<unknown>) {
      const pg = isPostgres(db);
      // An auto-increment integer id in both dialects (serial, not bigserial: pg returns int8 as a string).
      const idType = pg ? sql`serial` : sql`integer`;
      const bytesType = pg ? sql`bytea` : sql`blob`;

      await db.schema
        .createTable('intel_providers')
        .addColumn('domain', 'text', (c) => c.primaryKey())
        .addColumn('first_seen', 'text', (c) => c.notNull())
        .addColumn('last_seen', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('intel_services')
        .addColumn('service_id', 'text', (c) => c.primaryKey())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('tool', 'text')
        .addColumn('description', 'text')
        .addColumn('first_seen', 'text', (c) => c.notNull())
        .addColumn('last_seen', 'text', (c) => c.notNull())
        .addColumn('sources', 'text', (c) => c.notNull())
        .addColumn('last_snapshot_id', 'text')
        .addColumn('last_checked_at', 'text')
        .addColumn('last_outcome', 'text')
        .addColumn('last_http_status', 'integer')
        .addColumn('last_good_at', 'text')
        .addColumn('failing_since', 'text')
        .execute();
      await db.schema.createIndex('intel_services_domain').on('intel_services').columns(['domain']).execute();
      await db.schema.createIndex('intel_services_failing').on('intel_services').columns(['failing_since']).execute();
      await db.schema.createIndex('intel_services_outcome').on('intel_services').columns(['last_outcome', 'domain']).execute();

      await db.schema
        .createTable('intel_sources')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('last_attempt_at', 'text')
        .addColumn('last_success_at', 'text')
        .addColumn('last_error', 'text')
        .addColumn('item_count', 'integer')
        .addColumn('samples', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('intel_snapshots')
        .addColumn('snapshot_id', 'text', (c) => c.primaryKey())
        .addColumn('service_id', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('checked_at', 'text', (c) => c.notNull())
        .addColumn('http_status', 'integer')
        .addColumn('latency_ms', 'integer')
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('evidence_hash', 'text')
        .execute();
      await db.schema.createIndex('intel_snapshots_service_time').on('intel_snapshots').columns(['service_id', 'checked_at']).execute();
      await db.schema.createIndex('intel_snapshots_domain_time').on('intel_snapshots').columns(['domain', 'checked_at']).execute();

      await db.schema
        .createTable('intel_evidence')
        .addColumn('snapshot_id', 'text', (c) => c.primaryKey())
        .addColumn('sha256', 'text', (c) => c.notNull())
        .addColumn('encoding', 'text', (c) => c.notNull())
        .addColumn('bytes', bytesType, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('intel_offers')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('service_id', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('snapshot_id', 'text')
        .addColumn('source_name', 'text')
        .addColumn('observed_at', 'text', (c) => c.notNull())
        .addColumn('protocol', 'text', (c) => c.notNull())
        .addColumn('x402_version', 'integer')
        .addColumn('scheme', 'text')
        .addColumn('method', 'text')
        .addColumn('network', 'text')
        .addColumn('asset', 'text')
        .addColumn('amount_atomic', 'text')
        .addColumn('amount', 'text')
        .addColumn('decimals', 'integer')
        .addColumn('pay_to', 'text')
        .addColumn('max_timeout_seconds', 'integer')
        .addColumn('expires', 'text')
        .addColumn('description', 'text')
        .addColumn('resource', 'text')
        .addColumn('extra', 'text')
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('evidence_hash', 'text')
        .execute();
      await db.schema.createIndex('intel_offers_service_time').on('intel_offers').columns(['service_id', 'observed_at']).execute();
      await db.schema.createIndex('intel_offers_domain_time').on('intel_offers').columns(['domain', 'observed_at']).execute();
      await db.schema.createIndex('intel_offers_time').on('intel_offers').columns(['observed_at']).execute();
      await db.schema.createIndex('intel_offers_snapshot').on('intel_offers').columns(['snapshot_id', 'network']).execute();

      await db.schema
        .createTable('intel_changes')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('service_id', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('at', 'text', (c) => c.notNull())
        .addColumn('before_snapshot_id', 'text')
        .addColumn('after_snapshot_id', 'text', (c) => c.notNull())
        .addColumn('before', 'text', (c) => c.notNull())
        .addColumn('after', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('intel_changes_service_time').on('intel_changes').columns(['service_id', 'at']).execute();
      await db.schema.createIndex('intel_changes_domain_time').on('intel_changes').columns(['domain', 'at']).execute();
      await db.schema.createIndex('intel_changes_time').on('intel_changes').columns(['at']).execute();

      await db.schema
        .createTable('intel_collect_runs')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .addColumn('services', 'integer')
        .addColumn('snapshots', 'integer')
        .addColumn('changes', 'integer')
        .addColumn('error', 'text')
        .execute();

      await db.schema
        .createTable('intel_archive_runs')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text', (c) => c.notNull())
        .addColumn('checked', 'integer', (c) => c.notNull())
        .addColumn('verified', 'integer', (c) => c.notNull())
        .addColumn('failed', 'text', (c) => c.notNull())
        .execute();
    },
  },
  intel_0002_service_latest: {
    async up(db: Kysely<unknown>) {
      for (const [name, type] of [
        ['last_latency_ms', 'integer'],
        ['last_error', 'text'],
        ['last_evidence_hash', 'text'],
        ['last_offers', 'text'],
      ] as const) {
        await db.schema.alterTable('intel_services').addColumn(name, type).execute();
      }
    },
  },
  /**
   * Provider search without scanning every service: (1) intel_services(domain, failing_since) so "has a listed
   * service" per provider is answered from the index; (2) an index for the `q` substring search over
   * "domain url description" (docs/intelligence.md): on PostgreSQL a pg_trgm GIN index on that lower-cased
   * expression (LIKE '%q%' uses it), on SQLite an FTS5 trigram table kept in step by triggers and backfilled here.
   */
  intel_0003_search: {
    async up(db: Kysely<unknown>) {
      await db.schema.createIndex('intel_services_domain_failing').on('intel_services').columns(['domain', 'failing_since']).execute();
      if (isPostgres(db)) {
        // pg_trgm is a trusted extension (PostgreSQL 13+): the database owner may create it.
        await sql`create extension if not exists pg_trgm`.execute(db);
        await sql`create index intel_services_search_trgm on intel_services using gin ((${SEARCH_TEXT}) gin_trgm_ops)`.execute(db);
        return;
      }
      // The FTS rowid is the service row's rowid; the text is what `q` matches.
      await sql`create virtual table intel_services_search using fts5(text, tokenize = 'trigram')`.execute(db);
      const text = (r: string) => sql.raw(`${r}.domain || ' ' || ${r}.url || ' ' || coalesce(${r}.description, '')`);
      await sql`insert into intel_services_search (rowid, text) select rowid, ${text('intel_services')} from intel_services`.execute(db);
      await sql`create trigger intel_services_search_ai after insert on intel_services begin
        insert into intel_services_search (rowid, text) values (new.rowid, ${text('new')}); end`.execute(db);
      await sql`create trigger intel_services_search_au after update of domain, url, description on intel_services begin
        update intel_services_search set text = ${text('new')} where rowid = old.rowid; end`.execute(db);
      await sql`create trigger intel_services_search_ad after delete on intel_services begin
        delete from intel_services_search where rowid = old.rowid; end`.execute(db);
    },
  },
  /**
   * Fills the intel_0002 copies (latency, error, evidence hash, offers of the last check) on service rows written
   * without them (before intel_0002, or by the bulk seeder), so a listing never has to join snapshots and offers.
   * Batches of 2,000 services in service_id order; offers in stored (id) order, as the join would read them.
   */
  // Uses rowToOffer, the same mapping the join fallback of the readers uses.
  intel_0004_latest_backfill: {
    async up(db: Kysely<unknown>) {
      const d = db as unknown as Kysely<Database>;
      let after = '';
      for (;;) {
        const svcs = await d
          .selectFrom('intel_services')
          .select(['service_id', 'last_snapshot_id'])
          .where('last_snapshot_id', 'is not', null)
          .where('last_offers', 'is', null)
          .where('service_id', '>', after)
          .orderBy('service_id')
          .limit(2000)
          .execute();
        if (!svcs.length) return;
        after = svcs[svcs.length - 1].service_id;
        const ids = svcs.map((s) => s.last_snapshot_id!);
        const [snaps, offers] = await Promise.all([
          d
            .selectFrom('intel_snapshots')
            .select(['snapshot_id', 'latency_ms', 'error', 'evidence_hash'])
            .where('snapshot_id', 'in', ids)
            .execute(),
          d.selectFrom('intel_offers').selectAll().where('snapshot_id', 'in', ids).orderBy('id').execute(),
        ]);
        const bySnap = new Map<string, Offer[]>();
        for (const o of offers) bySnap.set(o.snapshot_id!, [...(bySnap.get(o.snapshot_id!) ?? []), rowToOffer(o)]);
        const snapById = new Map(snaps.map((s) => [s.snapshot_id, s]));
        for (const s of svcs) {
          const snap = snapById.get(s.last_snapshot_id!);
          if (!snap) continue; // a dangling id: readers keep their join fallback
          await d
            .updateTable('intel_services')
            .set({
              last_latency_ms: snap.latency_ms,
              last_error: snap.error,
              last_evidence_hash: snap.evidence_hash,
              last_offers: JSON.stringify(bySnap.get(snap.snapshot_id) ?? []),
            })
            .where('service_id', '=', s.service_id)
            .execute();
        }
      }
    },
  },
  /**
   * Directory evidence: one row per archived source answer (a directory page, a catalog), its bytes in intel_evidence
   * under the same id; directory offers cite it by snapshot_id and evidence_hash (docs/intelligence.md).
   */
  intel_0005_source_answers: {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('intel_source_answers')
        .addColumn('snapshot_id', 'text', (c) => c.primaryKey())
        .addColumn('source_name', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('fetched_at', 'text', (c) => c.notNull())
        .addColumn('http_status', 'integer', (c) => c.notNull())
        .addColumn('evidence_hash', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('intel_source_answers_source_time')
        .on('intel_source_answers')
        .columns(['source_name', 'fetched_at'])
        .execute();
    },
  },
  /** Notes about a source's last pass: entries refused when read (src/intel/read-bounds.ts), JSON array. */
  intel_0006_source_notes: {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('intel_sources')
        .addColumn('notes', 'text', (c) => c.notNull().defaultTo('[]'))
        .execute();
    },
  },
};

/**
 * The text `q` searches, lower-cased (both dialects): on PostgreSQL the same expression must appear in the index
 * (intel_0003) and in the query (src/intel/queries.ts) for the planner to use the index.
 */
export const SEARCH_TEXT = sql.raw(`lower(domain || ' ' || url || ' ' || coalesce(description, ''))`);
