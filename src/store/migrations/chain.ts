import { sql, type Kysely, type Migration } from 'kysely';
import { inOneTransaction, isPostgres } from './dialect.js';
import { sumDecimals } from '../../domain/money.js';
import { readStoredDetails } from '../chain/stored-details.js';
import { PARTIAL_INDEXES } from '../chain/partial-indexes.js';
import { fillFirstFundings } from '../chain/first-fundings.js';

/**
 * Indexes serve the public sort (time descending, then hash ascending) alone and after each equality filter,
 * so every list query reads its page straight off one index; `seq` serves rank arithmetic for deep offsets.
 */
const SORTED_BY = ['sender', 'recipient', 'asset_contract', 'asset', 'exchange', 'execution'] as const;

/** The equality prefixes of observations' sorted indexes (chain_0001's SORTED_BY and asset_contract + execution). */
const INDEXED_PREFIXES: readonly (readonly string[])[] = [...SORTED_BY.map((c) => [c]), ['asset_contract', 'execution']];

/** Migrations of the chain area, named "chain_NNNN_what" (unique across areas, applied in name order). */
export const chainMigrations: Record<string, Migration> = {
  chain_0001_observations: {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('observations')
        .addColumn('hash', 'text', (c) => c.primaryKey())
        .addColumn('seq', 'bigint', (c) => c.notNull())
        .addColumn('time', 'bigint', (c) => c.notNull())
        .addColumn('height', 'bigint', (c) => c.notNull())
        .addColumn('tx_index', 'integer', (c) => c.notNull())
        .addColumn('chain_id', 'integer', (c) => c.notNull())
        .addColumn('sender', 'text')
        .addColumn('recipient', 'text')
        .addColumn('asset', 'text')
        .addColumn('asset_contract', 'text')
        .addColumn('amount', 'text')
        .addColumn('nominal', 'text')
        .addColumn('fee', 'text')
        .addColumn('exchange', 'text')
        .addColumn('protocol', 'text')
        .addColumn('category', 'text')
        .addColumn('execution', 'text', (c) => c.notNull())
        .addColumn('decode', 'text', (c) => c.notNull())
        .addColumn('integrity', 'text', (c) => c.notNull())
        .execute();
      await sql`create unique index observations_seq on observations (seq)`.execute(db);
      await sql`create index observations_time_hash on observations (time desc, hash asc)`.execute(db);
      for (const col of SORTED_BY) {
        await sql`create index ${sql.id(`observations_${col}_time`)} on observations (${sql.id(col)}, time desc, hash asc)`.execute(db);
      }
      // asset + execution (e.g. failed payments of one token) counts and pages off one index.
      await sql`create index observations_asset_contract_execution_time on observations (asset_contract, execution, time desc, hash asc)`.execute(
        db,
      );
      await db.schema
        .createTable('observation_details')
        .addColumn('hash', 'text', (c) => c.primaryKey())
        .addColumn('detail', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('leg_recipients')
        .addColumn('recipient', 'text', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('time', 'bigint', (c) => c.notNull())
        .addColumn('execution', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('leg_recipients_pk', ['recipient', 'hash'])
        .execute();
      await db.schema
        .createTable('coverage')
        .addColumn('first', 'bigint', (c) => c.primaryKey())
        .addColumn('last', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('checkpoint')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('height', 'bigint', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('collector_state')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('last_block', 'bigint')
        .addColumn('finalized_head', 'bigint')
        .addColumn('rate_tx_per_s', 'double precision')
        .addColumn('rate_blocks_per_s', 'double precision')
        .addColumn('last_error', 'text')
        .addColumn('last_error_at', 'text')
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('chain_stats')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('observation_count', 'bigint', (c) => c.notNull())
        .addColumn('ordered', 'integer', (c) => c.notNull())
        .addColumn('last_time', 'bigint')
        .addColumn('last_hash', 'text')
        .addColumn('newest_block_time', 'bigint')
        .addColumn('updated_at', 'text')
        .execute();
      await db.insertInto('chain_stats').values({ id: 1, observation_count: 0, ordered: 1 }).execute();
    },
    async down(db: Kysely<any>) {
      for (const t of ['chain_stats', 'collector_state', 'checkpoint', 'coverage', 'leg_recipients', 'observation_details', 'observations'])
        await db.schema.dropTable(t).ifExists().execute();
    },
  },
  chain_0002_detail_lz4: {
    // PostgreSQL compresses every value over ~2 kB before storing it (TOAST), and an observation's detail is
    // ~3 kB of JSON: with the default pglz that compression was about a fifth of the server's CPU per collected
    // transaction (docs/decisions.md). lz4 only where the server was built with it; new rows only (existing ones
    // are read either way). SQLite does not compress.
    async up(db: Kysely<any>) {
      if (isPostgres(db)) await compressDetailsWithLz4(db, 'observation_details');
    },
    async down(db: Kysely<any>) {
      if (isPostgres(db)) await sql`alter table observation_details alter column detail set compression default`.execute(db);
    },
  },
  chain_0003_details_by_seq: {
    // Details keyed by their row's seq instead of the hash: seq grows with each write, so details are appended in
    // key order instead of scattered over a B-tree of random hashes, and on SQLite the key is the rowid itself,
    // not a second index of 66-character hashes (docs/decisions.md). Existing details are copied over.
    async up(db: Kysely<any>) {
      await rekeyDetails(db, 'seq');
    },
    async down(db: Kysely<any>) {
      await rekeyDetails(db, 'hash');
    },
  },
  chain_0004_nominal_parts: {
    // `nominal` depends on the token list, which may change between starts: the store keeps the list-independent
    // parts (what the sender sent per USD-currency token) and answers derive nominal with the list when read.
    async up(db: Kysely<any>) {
      await inOneTransaction(db, async (trx) => {
        if (await hasColumn(trx, 'observations', 'nominal_parts')) return;
        await sql`alter table observations rename column nominal to nominal_parts`.execute(trx);
        // One token: the primary leg's contract carries the whole value (the common case, in one statement).
        await sql`update observations set nominal_parts = '[["' || asset_contract || '","' || nominal_parts || '"]]'
                  where nominal_parts is not null and asset_contract is not null and nominal_parts = amount`.execute(trx);
        // The rest (several tokens, or a primary leg that is not the valued one): from the stored legs.
        for (let after = -1; ; ) {
          const rows = await sql<{
            seq: number | string;
            sender: string | null;
            asset_contract: string | null;
            value: string;
            detail: string;
          }>`
            select o.seq, o.sender, o.asset_contract, o.nominal_parts as value, d.detail from observations o
            join observation_details d on d.seq = o.seq
            where o.nominal_parts is not null and o.nominal_parts not like '[%' and o.seq > ${after} order by o.seq limit 500`.execute(trx);
          if (!rows.rows.length) break;
          for (const r of rows.rows) {
            const legs = (
              (JSON.parse(r.detail) as { legs?: { from: string; asset_contract: string; amount: string }[] | null }).legs ?? []
            ).filter((g) => g.from === r.sender);
            const parts = partsMatching(legs, r.value) ?? [[r.asset_contract ?? legs[0]?.asset_contract ?? '', r.value]];
            await sql`update observations set nominal_parts = ${JSON.stringify(parts)} where seq = ${r.seq}`.execute(trx);
          }
          after = Number(rows.rows[rows.rows.length - 1].seq);
        }
      });
    },
    async down(db: Kysely<any>) {
      await inOneTransaction(db, async (trx) => {
        if (!(await hasColumn(trx, 'observations', 'nominal_parts'))) return;
        const rows = await sql<{
          seq: number | string;
          parts: string;
        }>`select seq, nominal_parts as parts from observations where nominal_parts is not null`.execute(trx);
        for (const r of rows.rows) {
          const total = sumDecimals((JSON.parse(r.parts) as [string, string][]).map(([, amount]) => amount));
          await sql`update observations set nominal_parts = ${total} where seq = ${r.seq}`.execute(trx);
        }
        await sql`alter table observations rename column nominal_parts to nominal`.execute(trx);
      });
    },
  },
  chain_0005_quarantined_blocks: {
    // Blocks whose processing failed, with their attempts; one quarantined (quarantined_at set) is a gap the
    // collector moved past (src/chain/collector/quarantine.ts).
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('quarantined_blocks')
        .ifNotExists()
        .addColumn('height', 'bigint', (c) => c.primaryKey())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().check(sql`attempts >= 1`))
        .addColumn('first_failed_at', 'text', (c) => c.notNull())
        .addColumn('last_failed_at', 'text', (c) => c.notNull())
        .addColumn('quarantined_at', 'text')
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('quarantined_blocks').ifExists().execute();
    },
  },
  chain_0006_blocks_finality: {
    // Every collected block (height, hash, parent hash, certificate or null) so the parent-hash chain and the
    // certificates can be re-checked, and each block's finality. Hashes as raw bytes, and on SQLite the height is
    // the rowid: ~90 bytes a block (docs/integrity.md, "Finality verified from Tempo's own signatures").
    async up(db: Kysely<any>) {
      const pg = isPostgres(db);
      const bytes = pg ? 'bytea' : 'blob';
      await db.schema
        .createTable('blocks')
        .ifNotExists()
        .addColumn('height', pg ? 'bigint' : 'integer', (c) => c.primaryKey())
        .addColumn('hash', bytes, (c) => c.notNull())
        .addColumn('parent_hash', bytes, (c) => c.notNull())
        .addColumn('time', 'bigint', (c) => c.notNull())
        .addColumn('observations', 'integer', (c) => c.notNull())
        .addColumn('recomputed', 'integer', (c) => c.notNull())
        .addColumn('certificate', bytes)
        .addColumn('finality', 'bigint')
        .execute();
      await db.schema
        .createTable('finality_checks')
        .ifNotExists()
        .addColumn('height', 'bigint', (c) => c.primaryKey())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('evidence', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('finality_state')
        .ifNotExists()
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('verified', 'bigint', (c) => c.notNull())
        .addColumn('failed', 'bigint', (c) => c.notNull())
        .addColumn('last_verified_height', 'bigint')
        .addColumn('key_chain', 'text')
        .addColumn('alarm', 'text')
        .addColumn('updated_at', 'text')
        .execute();
      await db.insertInto('finality_state').values({ id: 1, verified: 0, failed: 0 }).execute();
    },
    async down(db: Kysely<any>) {
      for (const t of ['finality_state', 'finality_checks', 'blocks']) await db.schema.dropTable(t).ifExists().execute();
    },
  },
  chain_0007_details_packed: {
    // Details compressed by the application (../chain/detail-codec.ts), ~3.3 kB of JSON to ~390 bytes, on both
    // dialects: a column of its own so a row is either still JSON text or packed, and the rows already stored
    // are packed after the migrations, in batches that survive an interruption (../chain/pack-details.ts).
    async up(db: Kysely<any>) {
      await inOneTransaction(db, async (trx) => {
        if (await hasColumn(trx, 'observation_details', 'packed')) return;
        await trx.schema
          .alterTable('observation_details')
          .addColumn('packed', isPostgres(trx) ? 'bytea' : 'blob')
          .execute();
        // The rows to pack are those below the current count; the pack step advances pack_next batch by batch.
        await trx.schema.alterTable('chain_stats').addColumn('pack_next', 'bigint').execute();
        await trx.schema.alterTable('chain_stats').addColumn('pack_end', 'bigint').execute();
        await sql`update chain_stats set pack_next = 0, pack_end = observation_count where observation_count > 0`.execute(trx);
      });
    },
    async down(db: Kysely<any>) {
      await inOneTransaction(db, async (trx) => {
        if (!(await hasColumn(trx, 'observation_details', 'packed'))) return;
        // Highest seqs first: a grouped detail's text lives in its group's first row, the lowest seq of the group,
        // which must still be packed when the group's other rows are unpacked (src/store/chain/stored-details.ts).
        for (let below: number | null = null; ; ) {
          const rows = await sql<{ seq: number | string; detail: string; packed: Uint8Array }>`
            select seq, detail, packed from observation_details where packed is not null
            ${below === null ? sql`` : sql`and seq < ${below}`} order by seq desc limit 500`.execute(trx);
          if (!rows.rows.length) break;
          const jsons = await readStoredDetails(trx, rows.rows);
          for (const [i, r] of rows.rows.entries()) {
            const json = jsons[i]!;
            if (json instanceof Error) throw json;
            await sql`update observation_details set detail = ${json}, packed = null where seq = ${r.seq}`.execute(trx);
          }
          below = Number(rows.rows[rows.rows.length - 1].seq);
        }
        await trx.schema.alterTable('observation_details').dropColumn('packed').execute();
        await trx.schema.alterTable('chain_stats').dropColumn('pack_next').execute();
        await trx.schema.alterTable('chain_stats').dropColumn('pack_end').execute();
      });
    },
  },
  chain_0008_indexes_in_append_order: {
    // Rows arrive in time order and the indexes sorted time descending, so every insert landed at the front of its
    // range and page splits left 44–50% of those pages empty; sorted (…, time, hash desc) the same inserts append
    // at the end of each range and pages stay full, and every query still reads its index (scanned backwards, the
    // public order exactly reversed: EXPLAIN on both dialects, bench/explain-queries.ts).
    async up(db: Kysely<any>) {
      await inOneTransaction(db, async (trx) => {
        await sql`drop index if exists observations_time_hash`.execute(trx);
        await sql`create index if not exists observations_time_hash_asc on observations (time, hash desc)`.execute(trx);
        for (const cols of INDEXED_PREFIXES) {
          await sql`drop index if exists ${sql.id(`observations_${cols.join('_')}_time`)}`.execute(trx);
          await sql`create index if not exists ${sql.id(`observations_${cols.join('_')}_time_asc`)} on observations (${sql.join(
            cols.map((c) => sql.id(c)),
          )}, time, hash desc)`.execute(trx);
        }
      });
    },
    async down(db: Kysely<any>) {
      await inOneTransaction(db, async (trx) => {
        await sql`drop index if exists observations_time_hash_asc`.execute(trx);
        await sql`create index if not exists observations_time_hash on observations (time desc, hash asc)`.execute(trx);
        for (const cols of INDEXED_PREFIXES) {
          await sql`drop index if exists ${sql.id(`observations_${cols.join('_')}_time_asc`)}`.execute(trx);
          await sql`create index if not exists ${sql.id(`observations_${cols.join('_')}_time`)} on observations (${sql.join(
            cols.map((c) => sql.id(c)),
          )}, time desc, hash asc)`.execute(trx);
        }
      });
    },
  },
  chain_0009_payments: {
    // Who paid and which service a payment is attributed to (docs/decoding.md, "Payer", "Attribution"): nullable
    // columns, null = unknown. Rows already stored get payer, self_payment and the fingerprints from their details
    // after the migrations, in batches that survive an interruption (../chain/backfill-payments.ts); the service
    // columns are the matcher's (src/payments/attribute.ts). Partial indexes serve the payer, service and provider
    // filters in the public order without an entry for every row that has none.
    async up(db: Kysely<any>) {
      await inOneTransaction(db, async (trx) => {
        if (await hasColumn(trx, 'observations', 'payer')) return;
        for (const [column, type] of PAYMENT_COLUMNS) await trx.schema.alterTable('observations').addColumn(column, type).execute();
        await trx.schema.alterTable('chain_stats').addColumn('payments_next', 'bigint').execute();
        await trx.schema.alterTable('chain_stats').addColumn('payments_end', 'bigint').execute();
        // The last intel_offers id whose realms and payTos the attribution pass has applied to stored rows.
        await trx.schema.alterTable('chain_stats').addColumn('payments_offer_id', 'bigint').execute();
        await sql`update chain_stats set payments_next = 0, payments_end = observation_count where observation_count > 0`.execute(trx);
        // A realm seen for the first time re-attributes the rows whose memo names it (few: only memo-carrying rows).
        await sql`create index if not exists observations_server_fingerprint on observations (server_fingerprint) where server_fingerprint is not null`.execute(
          trx,
        );
        for (const column of PAYMENT_INDEXED)
          await sql`create index if not exists ${sql.id(`observations_${column}_time_asc`)} on observations (${sql.id(column)}, time, hash desc) where ${sql.id(column)} is not null`.execute(
            trx,
          );
      });
    },
    async down(db: Kysely<any>) {
      await inOneTransaction(db, async (trx) => {
        if (!(await hasColumn(trx, 'observations', 'payer'))) return;
        for (const column of PAYMENT_INDEXED) await sql`drop index if exists ${sql.id(`observations_${column}_time_asc`)}`.execute(trx);
        await sql`drop index if exists observations_server_fingerprint`.execute(trx);
        for (const [column] of PAYMENT_COLUMNS) await trx.schema.alterTable('observations').dropColumn(column).execute();
        await trx.schema.alterTable('chain_stats').dropColumn('payments_next').execute();
        await trx.schema.alterTable('chain_stats').dropColumn('payments_end').execute();
        await trx.schema.alterTable('chain_stats').dropColumn('payments_offer_id').execute();
      });
    },
  },
  chain_0010_payment_rollups: {
    // Rankings read per-day rollups the collector keeps as it writes (src/store/chain/rollups.ts) instead of scanning
    // observations; the payer is part of the key so a window's distinct payers stay exact. chain_0013 replaced the
    // table and rolls up the existing observations.
    async up(db: Kysely<any>) {
      await inOneTransaction(db, async (trx) => {
        await trx.schema
          .createTable('payment_rollups')
          .ifNotExists()
          .addColumn('dim', 'text', (c) => c.notNull())
          .addColumn('day', 'integer', (c) => c.notNull())
          .addColumn('subject', 'text', (c) => c.notNull())
          .addColumn('payer', 'text', (c) => c.notNull())
          .addColumn('protocol', 'text', (c) => c.notNull())
          .addColumn('self', 'integer', (c) => c.notNull())
          .addColumn('method', 'text', (c) => c.notNull())
          .addColumn('client', 'text', (c) => c.notNull())
          .addColumn('provider', 'text')
          .addColumn('payments', 'integer', (c) => c.notNull())
          .addColumn('nominal_parts', 'text')
          .addColumn('first_time', 'bigint', (c) => c.notNull())
          .addColumn('last_time', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('payment_rollups_pk', ['dim', 'day', 'subject', 'payer', 'protocol', 'self', 'method', 'client'])
          .execute();
        // A service's payments read its rows by subject, a provider's by provider, each over a window of days.
        await sql`create index if not exists payment_rollups_subject on payment_rollups (dim, subject, day)`.execute(trx);
        await sql`create index if not exists payment_rollups_provider on payment_rollups (provider, day) where provider is not null`.execute(
          trx,
        );
      });
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('payment_rollups').ifExists().execute();
    },
  },
  chain_0012_compact_payments: {
    // The payer, execution, exchange and asset + execution indexes held an entry for every row although their
    // filters pick few rows: payer = sender on nearly every transfer (the sender index serves those), and success
    // or no venue on most. Rebuilt partial (../chain/partial-indexes.ts), they hold only the rows their filters need
    // an index for; the filters repeat the predicates, and counts of the common value are the rest's complement
    // (../chain/query.ts). Bytes per observation before and after in bench/README.md; the choice in docs/decisions.md.
    async up(db: Kysely<any>) {
      await inOneTransaction(db, async (trx) => {
        for (const ix of PARTIAL_INDEXES) {
          await sql`drop index if exists ${sql.id(ix.name)}`.execute(trx);
          await sql`create index ${sql.id(ix.name)} on observations (${sql.join(ix.columns.map((c) => sql.id(c)))}, time, hash desc) where ${sql.raw(ix.where)}`.execute(
            trx,
          );
        }
        // PostgreSQL only: the wallet and token indexes without the 67-character hash (half their size); the planner
        // orders ties of one second by hash with an incremental sort. SQLite's planner then scanned the time index for
        // wallet pages instead (docs/decisions.md), so there they keep it.
        if (isPostgres(trx))
          for (const col of HASHLESS_ON_POSTGRES) {
            await sql`drop index if exists ${sql.id(`observations_${col}_time_asc`)}`.execute(trx);
            await sql`create index ${sql.id(`observations_${col}_time_asc`)} on observations (${sql.id(col)}, time)`.execute(trx);
          }
      });
    },
    async down(db: Kysely<any>) {
      await inOneTransaction(db, async (trx) => {
        if (isPostgres(trx))
          for (const col of HASHLESS_ON_POSTGRES) {
            await sql`drop index if exists ${sql.id(`observations_${col}_time_asc`)}`.execute(trx);
            await sql`create index ${sql.id(`observations_${col}_time_asc`)} on observations (${sql.id(col)}, time, hash desc)`.execute(
              trx,
            );
          }
        for (const ix of PARTIAL_INDEXES) {
          await sql`drop index if exists ${sql.id(ix.name)}`.execute(trx);
          // As chain_0008 and chain_0009 made them: every row, the payer index every row with a payer.
          const where = ix.columns[0] === 'payer' ? sql` where payer is not null` : sql``;
          await sql`create index ${sql.id(ix.name)} on observations (${sql.join(ix.columns.map((c) => sql.id(c)))}, time, hash desc)${where}`.execute(
            trx,
          );
        }
      });
    },
  },
  chain_0018_first_funding: {
    // Each address's first observed inflow per token (src/store/chain/first-fundings.ts), which exclude=self_funded
    // reads; the observations stored so far are read in seq-ordered steps.
    async up(db: Kysely<any>) {
      await inOneTransaction(db, async (trx) => {
        await trx.schema
          .createTable('first_fundings')
          .ifNotExists()
          .addColumn('address', 'text', (c) => c.notNull())
          .addColumn('contract', 'text', (c) => c.notNull())
          .addColumn('funder', 'text', (c) => c.notNull())
          .addColumn('height', 'bigint', (c) => c.notNull())
          .addColumn('tx_index', 'integer', (c) => c.notNull())
          .addColumn('time', 'bigint', (c) => c.notNull())
          .addColumn('hash', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('first_fundings_pk', ['address', 'contract'])
          .execute();
        if (await hasColumn(trx, 'observations', 'payer')) await fillFirstFundings(trx);
      });
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('first_fundings').ifExists().execute();
    },
  },
  chain_0020_payer_analysis: {
    // The trust check counts a payTo's successful payments in listed tokens (receivedPayments in ../trust/index.ts):
    // through the recipient index that was one table lookup per payment; this partial index answers it from the
    // index alone. Bytes per observation and timings in bench/README.md.
    async up(db: Kysely<any>) {
      await sql`create index if not exists observations_recipient_paid on observations (recipient, asset_contract, time)
        where execution = 'success'`.execute(db);
    },
    async down(db: Kysely<any>) {
      await sql`drop index if exists observations_recipient_paid`.execute(db);
    },
  },
  chain_0015_finality_at_read: {
    // An observation's `independent_consensus_verified` and finality `evaluated_at` are read from its block's
    // covering check when answered (../chain/finality-at-read.ts): recording a check no longer rewrites the integrity
    // JSON of every covered observation. The check's time gets a column; checks recorded before keep null, their
    // verdict being already in their observations' stored integrity.
    async up(db: Kysely<any>) {
      if (await hasColumn(db, 'finality_checks', 'checked_at')) return;
      await db.schema.alterTable('finality_checks').addColumn('checked_at', 'text').execute();
    },
    async down(db: Kysely<any>) {
      await inOneTransaction(db, async (trx) => {
        if (!(await hasColumn(trx, 'finality_checks', 'checked_at'))) return;
        // Back to stored verdicts: the observations of blocks a verified or failed check covers get its flag and time.
        const pg = isPostgres(trx);
        const checks = await sql<{ height: number | string; status: string; checked_at: string }>`
          select height, status, checked_at from finality_checks where checked_at is not null and status <> 'unknown'`.execute(trx);
        for (const c of checks.rows) {
          const flag = c.status === 'verified';
          const set = pg
            ? sql`(integrity::jsonb || jsonb_build_object('independent_consensus_verified', ${flag}::boolean, 'evaluated_at', ${c.checked_at}::text))::text`
            : sql`json_set(integrity, '$.independent_consensus_verified', json(${flag ? 'true' : 'false'}), '$.evaluated_at', ${c.checked_at})`;
          await sql`update observations set integrity = ${set}
                    where height in (select height from blocks where finality = ${c.height})`.execute(trx);
        }
        await trx.schema.alterTable('finality_checks').dropColumn('checked_at').execute();
      });
    },
  },
};

/** The columns chain_0009_payments adds to observations (all nullable; integers are 0/1 flags). */
const PAYMENT_COLUMNS = [
  ['payer', 'text'],
  ['self_payment', 'integer'],
  ['client_fingerprint', 'text'],
  ['server_fingerprint', 'text'],
  ['service_id', 'text'],
  ['provider', 'text'],
  ['attribution_method', 'text'],
  ['attribution_ambiguous', 'integer'],
] as const;

/** The payment columns a public filter matches exactly, each with a partial sorted index (chain_0009_payments). */
const PAYMENT_INDEXED = ['payer', 'service_id', 'provider'] as const;

/** The sorted indexes chain_0012 rebuilds without the hash on PostgreSQL (every row has an entry: the largest). */
const HASHLESS_ON_POSTGRES = ['sender', 'recipient', 'asset_contract', 'asset'] as const;

async function hasColumn(db: Kysely<any>, table: string, column: string): Promise<boolean> {
  const tables = await db.introspection.getTables();
  return Boolean(tables.find((t) => t.name === table)?.columns.some((c) => c.name === column));
}

/**
 * The [contract, amount] parts whose sum is `value`, from the sender's legs summed per contract: the smallest
 * subset of contracts that adds up exactly (the old decoder valued only USD-currency tokens, which the legs do
 * not record); null when none does.
 */
function partsMatching(legs: { asset_contract: string; amount: string }[], value: string): [string, string][] | null {
  const byContract = new Map<string, string[]>();
  for (const g of legs) byContract.set(g.asset_contract, [...(byContract.get(g.asset_contract) ?? []), g.amount]);
  const sums = [...byContract].map(([c, amounts]) => [c, sumDecimals(amounts)!] as [string, string]);
  const want = sumDecimals([value]);
  const subsets = Array.from({ length: 2 ** Math.min(sums.length, 12) }, (_, m) => sums.filter((_, i) => m & (1 << i))).filter(
    (x) => x.length,
  );
  subsets.sort((a, b) => a.length - b.length);
  return subsets.find((x) => sumDecimals(x.map(([, a]) => a)) === want) ?? null;
}

/** Sets lz4 compression on `table`'s detail column where the PostgreSQL server was built with it (see chain_0002). */
async function compressDetailsWithLz4(db: Kysely<any>, table: string): Promise<void> {
  const { rows } = await sql<{
    lz4: boolean;
  }>`select 'lz4' = any(enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`.execute(db);
  if (rows[0]?.lz4) await sql`alter table ${sql.table(table)} alter column detail set compression lz4`.execute(db);
}

/**
 * Rebuilds observation_details keyed by `key` (its observations row's seq, or its hash), copying every detail.
 * Does nothing when the table is keyed so already. On SQLite, where Kysely runs migrations outside a transaction,
 * the rebuild is one transaction of its own, so a crash leaves the old table or the new one, never half of each;
 * on PostgreSQL the migrator's transaction holds it.
 */
async function rekeyDetails(db: Kysely<any>, key: 'seq' | 'hash'): Promise<void> {
  const tables = await db.introspection.getTables();
  const current = tables.find((t) => t.name === 'observation_details');
  if (!current || current.columns.some((c) => c.name === key)) return;
  const pg = isPostgres(db);
  const other = key === 'seq' ? 'hash' : 'seq';
  const rebuild = async (trx: Kysely<any>) => {
    await trx.schema
      .createTable('observation_details_rekeyed')
      // On SQLite only `integer primary key` makes the key the rowid.
      .addColumn(key, key === 'hash' ? 'text' : pg ? 'bigint' : 'integer', (c) => c.primaryKey())
      .addColumn('detail', 'text', (c) => c.notNull())
      .execute();
    if (pg) await compressDetailsWithLz4(trx, 'observation_details_rekeyed');
    await sql`insert into observation_details_rekeyed (${sql.ref(key)}, detail) select o.${sql.ref(key)}, d.detail from observation_details d join observations o on o.${sql.ref(other)} = d.${sql.ref(other)}`.execute(
      trx,
    );
    await trx.schema.dropTable('observation_details').execute();
    await trx.schema.alterTable('observation_details_rekeyed').renameTo('observation_details').execute();
    if (pg)
      await sql`alter table observation_details rename constraint observation_details_rekeyed_pkey to observation_details_pkey`.execute(
        trx,
      );
  };
  await inOneTransaction(db, rebuild);
}
