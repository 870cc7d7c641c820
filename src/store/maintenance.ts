/**
 * Statements over the whole database rather than one area's tables: the readiness ping, and the settings and
 * statistics of a bulk load (the seeders, src/seed/).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { Store } from './store.js';
import { ROLLUP_TABLES } from './chain/rollups.js';

/** The chain tables whose reads the planner must know after a bulk load: observations, details, legs, every rollup. */
const PLANNED_TABLES = ['observations', 'observation_details', 'leg_recipients', 'first_fundings', ...ROLLUP_TABLES] as const;

/**
 * Runs a trivial query (`select 1`): resolves once the database answers.
 * @throws StoreUnavailable (./outage.ts) when it cannot answer; the driver's error otherwise
 */
export async function pingDatabase(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}

/** Thrown inside the write probe's transaction so that it rolls back (never seen outside probeWrite). */
class RollBack extends Error {}

/**
 * A tiny write that is never kept: one row inserted into Kysely's migration table inside a transaction that is
 * rolled back. On SQLite the row takes 16 pages of 4 KiB (more than the few a full file may still have free), so it
 * fails on a full file (SQLITE_FULL)
 * as on a read-only one; on PostgreSQL it fails in a read-only transaction (25006) or on a full disk (53100).
 * @param db the store's database
 * @param dialect the store's dialect (the row's size: PostgreSQL's column holds 255 characters)
 * @throws StoreUnavailable (./outage.ts) when the store cannot write
 */
export async function probeWrite(db: Kysely<Database>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  const payload = 'w'.repeat(dialect === 'sqlite' ? 65_536 : 255);
  try {
    await db.transaction().execute(async (tx) => {
      await sql`insert into kysely_migration (name, timestamp) values (${'~write-probe'}, ${payload})`.execute(tx);
      throw new RollBack();
    });
  } catch (e) {
    if (!(e instanceof RollBack)) throw e;
  }
}

/**
 * Before a bulk load on SQLite: a 256 MiB page cache for this connection keeps the growing indexes in memory during
 * the load (SQLite's default is 2 MiB). Nothing on PostgreSQL.
 */
export async function widenPageCacheForBulkLoad(store: Store): Promise<void> {
  if (store.dialect === 'sqlite') await sql`pragma cache_size = -262144`.execute(store.db);
}

/**
 * After a bulk load: PostgreSQL needs VACUUM ANALYZE before it uses index-only scans (visibility map) and good
 * plans; SQLite's planner gets statistics from ANALYZE.
 */
export async function refreshPlannerStatistics(store: Store): Promise<void> {
  if (store.dialect === 'postgres') await sql`vacuum analyze ${sql.join(PLANNED_TABLES.map((t) => sql.table(t)))}`.execute(store.db);
  else await sql`analyze`.execute(store.db);
}

/** Bytes one table or index of the store takes on disk (SQLite: its pages; PostgreSQL: its relation with TOAST). */
export interface StoredObject {
  name: string;
  /** The table an index belongs to (the table itself for a table). */
  table: string;
  kind: 'table' | 'index';
  bytes: number;
}

/**
 * Bytes per table and index of the whole store, largest first. SQLite: the `dbstat` virtual table (pages in use by
 * each b-tree, free pages of the file under "(free pages)"); PostgreSQL: pg_total_relation_size of each table minus
 * its indexes (heap, TOAST and their maps) and pg_relation_size of each index.
 */
export async function storageUsage(store: Store): Promise<StoredObject[]> {
  if (store.dialect === 'sqlite') {
    const { rows } = await sql<{ name: string; tbl: string | null; type: string | null; bytes: number }>`
      select d.name, m.tbl_name as tbl, m.type, sum(d.pgsize) as bytes from dbstat d
      left join sqlite_schema m on m.name = d.name group by d.name order by bytes desc`.execute(store.db);
    const free = await sql<{
      n: number;
      size: number;
    }>`select freelist_count as n, page_size as size from pragma_freelist_count(), pragma_page_size()`.execute(store.db);
    const out: StoredObject[] = rows.map((r) => ({
      name: r.name,
      table: r.tbl ?? r.name,
      kind: r.type === 'index' ? 'index' : 'table',
      bytes: Number(r.bytes),
    }));
    const f = free.rows[0];
    if (f && f.n > 0) out.push({ name: '(free pages)', table: '(free pages)', kind: 'table', bytes: f.n * f.size });
    return out;
  }
  const { rows } = await sql<{ name: string; tbl: string; kind: string; bytes: string }>`
    select c.relname as name, c.relname as tbl, 'table' as kind,
           pg_total_relation_size(c.oid) - pg_indexes_size(c.oid) as bytes
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p') and n.nspname = current_schema()
    union all
    select i.relname, t.relname, 'index', pg_relation_size(i.oid)
    from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
    join pg_namespace n on n.oid = t.relnamespace where n.nspname = current_schema()
    order by bytes desc`.execute(store.db);
  return rows.map((r) => ({ name: r.name, table: r.tbl, kind: r.kind === 'index' ? 'index' : 'table', bytes: Number(r.bytes) }));
}

/** What compactStore did: the store's bytes (storageUsage summed) before and after, and the statements run. */
export interface CompactResult {
  before: number;
  after: number;
  statements: string[];
}

/**
 * Gives the store's free space back to the disk. SQLite: `VACUUM` rewrites the file packed (it needs the file's
 * size again in free disk for the rewrite, and holds the write lock meanwhile: the collector waits), or with
 * `into` `VACUUM INTO` writes a packed copy and leaves the store alone (no lock held beyond a read). PostgreSQL:
 * `VACUUM (ANALYZE)` makes dead rows' space reusable without locking writers and `REINDEX … CONCURRENTLY`
 * rebuilds the chain indexes full; with `full`, `VACUUM FULL` rewrites the tables (returning space to the
 * operating system) under an exclusive lock.
 * @param opts.into SQLite only: the file to write the packed copy to (must not exist)
 * @throws Error from the database (e.g. `into` on PostgreSQL, or an existing `into` file)
 */
export async function compactStore(store: Store, opts: { into?: string; full?: boolean } = {}): Promise<CompactResult> {
  const total = async () => (await storageUsage(store)).reduce((s, o) => s + o.bytes, 0);
  const before = await total();
  const statements: string[] = [];
  const run = async (text: string) => {
    statements.push(text);
    await sql.raw(text).execute(store.db);
  };
  if (store.dialect === 'sqlite') {
    if (opts.into) {
      statements.push('vacuum into ?');
      await sql`vacuum into ${opts.into}`.execute(store.db);
    } else {
      await run('vacuum');
      await run('pragma wal_checkpoint(truncate)');
    }
  } else {
    if (opts.into) throw new Error('--into is for SQLite stores (PostgreSQL: use pg_dump)');
    if (opts.full) await run('vacuum (full, analyze) observations, observation_details, leg_recipients');
    else {
      await run('vacuum (analyze) observations, observation_details, leg_recipients');
      for (const t of ['observations', 'observation_details', 'leg_recipients']) await run(`reindex table concurrently ${t}`);
    }
  }
  return { before, after: opts.into ? before : await total(), statements };
}
