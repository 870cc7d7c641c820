import { sql, type Kysely, type Migration } from 'kysely';
import { clusteredByKey, inOneTransaction, isPostgres } from './dialect.js';
import { fillPairTotals, rebuildRollups, WEEK_DAYS } from '../chain/rollups.js';
import { buildRunning } from '../chain/rollup-running.js';

/** The amount columns of the rollup tables (../chain/rollup-amounts.ts). */
function withAmounts<T extends { addColumn: (...a: any[]) => T }>(t: T): T {
  return t
    .addColumn('provider', 'text')
    .addColumn('payments', 'integer', (c: any) => c.notNull())
    .addColumn('whole', 'bigint', (c: any) => c.notNull())
    .addColumn('frac_hi', 'bigint', (c: any) => c.notNull())
    .addColumn('frac_lo', 'bigint', (c: any) => c.notNull())
    .addColumn('big', 'text');
}

/**
 * Rollups by subject (src/store/chain/rollups.ts): rankings sum per-(day, subject) rows in SQL and read distinct
 * payers from the payers' latest days, instead of summing every (day, subject, payer) row in JavaScript.
 */
export const rollupMigrations: Record<string, Migration> = {
  chain_0013_rollups_by_subject: {
    // The per-payer table is rebuilt keyed by subject and payer first (a pair's latest day is one index seek) with
    // integer amount columns SQL can sum exactly; the observations stored so far are rolled up again.
    async up(db: Kysely<any>) {
      const clustered = clusteredByKey(db);
      const run = async (trx: Kysely<any>) => {
        await trx.schema.dropTable('payment_rollups').ifExists().execute();
        await withAmounts(
          trx.schema
            .createTable('payment_rollups')
            .addColumn('dim', 'text', (c) => c.notNull())
            .addColumn('subject', 'text', (c) => c.notNull())
            .addColumn('payer', 'text', (c) => c.notNull())
            .addColumn('day', 'integer', (c) => c.notNull())
            .addColumn('protocol', 'text', (c) => c.notNull())
            .addColumn('self', 'integer', (c) => c.notNull())
            .addColumn('method', 'text', (c) => c.notNull())
            .addColumn('client', 'text', (c) => c.notNull())
            .addColumn('contract', 'text', (c) => c.notNull()),
        )
          .addColumn('first_time', 'bigint', (c) => c.notNull())
          .addColumn('last_time', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('payment_rollups_pk', [...ROLLUP_KEY])
          .modifyEnd(clustered)
          .execute();
        // A provider's payments read its services' rows by provider over a window of days.
        await sql`create index if not exists payment_rollups_provider on payment_rollups (provider, day) where provider is not null`.execute(
          trx,
        );
        await withAmounts(
          trx.schema
            .createTable('payment_days')
            .addColumn('dim', 'text', (c) => c.notNull())
            .addColumn('subject', 'text', (c) => c.notNull())
            .addColumn('day', 'integer', (c) => c.notNull())
            .addColumn('protocol', 'text', (c) => c.notNull())
            .addColumn('self', 'integer', (c) => c.notNull())
            .addColumn('contract', 'text', (c) => c.notNull()),
        )
          .addPrimaryKeyConstraint('payment_days_pk', ['dim', 'subject', 'day', 'protocol', 'self', 'contract'])
          .modifyEnd(clustered)
          .execute();
        await trx.schema
          .createTable('payment_last_days')
          .addColumn('dim', 'text', (c) => c.notNull())
          .addColumn('protocol', 'text', (c) => c.notNull())
          .addColumn('subject', 'text', (c) => c.notNull())
          .addColumn('day', 'integer', (c) => c.notNull())
          .addColumn('payers', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('payment_last_days_pk', ['dim', 'protocol', 'subject', 'day'])
          .modifyEnd(clustered)
          .execute();
        const cols = (await trx.introspection.getTables()).find((t) => t.name === 'observations')?.columns ?? [];
        if (cols.some((c) => c.name === 'payer')) await rebuildRollups(trx, { running: false, pairs: false, weeks: false });
      };
      await inOneTransaction(db, run);
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('payment_last_days').ifExists().execute();
      await db.schema.dropTable('payment_days').ifExists().execute();
    },
  },
  chain_0016_payment_running_totals: {
    // Rankings read a window as two rows per group (src/store/chain/rollup-running.ts); built from payment_days.
    async up(db: Kysely<any>) {
      const clustered = clusteredByKey(db);
      const group = (t: any) =>
        t
          .addColumn('dim', 'text', (c: any) => c.notNull())
          .addColumn('protocol', 'text', (c: any) => c.notNull())
          .addColumn('subject', 'text', (c: any) => c.notNull())
          .addColumn('self', 'integer', (c: any) => c.notNull())
          .addColumn('contract', 'text', (c: any) => c.notNull());
      const run = async (trx: Kysely<any>) => {
        await group(trx.schema.createTable('payment_running'))
          .addColumn('day', 'integer', (c: any) => c.notNull())
          .addColumn('payments', 'integer', (c: any) => c.notNull())
          .addColumn('whole', 'bigint', (c: any) => c.notNull())
          .addColumn('frac_hi', 'bigint', (c: any) => c.notNull())
          .addColumn('frac_lo', 'bigint', (c: any) => c.notNull())
          .addColumn('big', 'text')
          .addColumn('cum_payments', 'bigint', (c: any) => c.notNull())
          .addColumn('cum_whole', 'bigint', (c: any) => c.notNull())
          .addColumn('cum_hi', 'bigint', (c: any) => c.notNull())
          .addColumn('cum_lo', 'bigint', (c: any) => c.notNull())
          .addColumn('cum_big', 'text')
          .addPrimaryKeyConstraint('payment_running_pk', ['dim', 'protocol', 'subject', 'self', 'contract', 'day'])
          .modifyEnd(clustered)
          .execute();
        await withAmounts(group(trx.schema.createTable('payment_totals')))
          .addColumn('last_day', 'integer', (c: any) => c.notNull())
          .addPrimaryKeyConstraint('payment_totals_pk', ['dim', 'protocol', 'subject', 'self', 'contract'])
          .modifyEnd(clustered)
          .execute();
        await buildRunning(trx);
      };
      await inOneTransaction(db, run);
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('payment_totals').ifExists().execute();
      await db.schema.dropTable('payment_running').ifExists().execute();
    },
  },
  chain_0019_payer_pair_totals: {
    // A ranking page's largest payer per subject, exact, reading a few pairs largest bound first
    // (src/store/chain/payer-pairs.ts); filled from the stored observations.
    async up(db: Kysely<any>) {
      const clustered = clusteredByKey(db);
      const run = async (trx: Kysely<any>) => {
        await trx.schema
          .createTable('payment_payer_totals')
          .addColumn('dim', 'text', (c) => c.notNull())
          .addColumn('subject', 'text', (c) => c.notNull())
          .addColumn('payer', 'text', (c) => c.notNull())
          .addColumn('bound', 'bigint', (c) => c.notNull())
          .addColumn('huge', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('payment_payer_totals_pk', ['dim', 'subject', 'payer'])
          .modifyEnd(clustered)
          .execute();
        await sql`create index payment_payer_totals_largest on payment_payer_totals (dim, subject, huge desc, bound desc, payer)`.execute(
          trx,
        );
        await fillPairTotals(trx);
      };
      await inOneTransaction(db, run);
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('payment_payer_totals').ifExists().execute();
    },
  },
  chain_0021_last_days_by_day: {
    // PostgreSQL reads a window's distinct payers as one index-only range (day before subject, payers included);
    // SQLite keeps its clustered subject-first rows, which group as they are read (docs/decisions.md).
    async up(db: Kysely<any>) {
      if (isPostgres(db)) await rekeyLatest(db, 'payment_last_days', ['dim', 'protocol', 'day', 'subject']);
    },
    async down(db: Kysely<any>) {
      if (isPostgres(db)) await rekeyLatest(db, 'payment_last_days', ['dim', 'protocol', 'subject', 'day']);
    },
  },
  chain_0022_rollups_covering_key: {
    // PostgreSQL keeps rows in a heap: one payTo's per-payer rows lie scattered over most of its pages (the payer
    // analysis read ~25,000 blocks for 50,000 rows at 1,000,000 payments); the key carrying the summed columns
    // answers those reads from the index alone. SQLite's rows already live in their key's b-tree.
    async up(db: Kysely<any>) {
      if (isPostgres(db)) await rekeyRollups(db, ROLLUP_COVERED);
    },
    async down(db: Kysely<any>) {
      if (isPostgres(db)) await rekeyRollups(db, []);
    },
  },
  chain_0023_last_weeks: {
    // A window's distinct payers read whole weeks of latest days and only the first partial week by day: about a
    // third of payment_last_days' rows at 30 days (src/store/chain/rollups.ts); built from those rows, in one statement.
    async up(db: Kysely<any>) {
      const pg = isPostgres(db);
      const run = async (trx: Kysely<any>) => {
        await trx.schema
          .createTable('payment_last_weeks')
          .addColumn('dim', 'text', (c) => c.notNull())
          .addColumn('protocol', 'text', (c) => c.notNull())
          .addColumn('subject', 'text', (c) => c.notNull())
          .addColumn('week', 'integer', (c) => c.notNull())
          .addColumn('payers', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('payment_last_weeks_pk', ['dim', 'protocol', 'subject', 'week'])
          .modifyEnd(clusteredByKey(trx))
          .execute();
        // Keyed as chain_0021 keys payment_last_days: one index-only range per window on PostgreSQL.
        if (pg) await rekeyLatest(trx, 'payment_last_weeks', ['dim', 'protocol', 'week', 'subject']);
        await sql`insert into payment_last_weeks (dim, protocol, subject, week, payers)
          select dim, protocol, subject, day / ${sql.lit(WEEK_DAYS)}, sum(payers) from payment_last_days
          group by dim, protocol, subject, day / ${sql.lit(WEEK_DAYS)}`.execute(trx);
      };
      await inOneTransaction(db, run);
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('payment_last_weeks').ifExists().execute();
    },
  },
};

/** payment_rollups' primary key as chain_0013 declares it (chain_0022 rebuilds it with the same columns). */
const ROLLUP_KEY = ['dim', 'subject', 'payer', 'day', 'protocol', 'self', 'method', 'client', 'contract'] as const;

/** The columns chain_0022 adds to PostgreSQL's payment_rollups key: what a subject's per-payer sums read. */
const ROLLUP_COVERED = ['payments', 'first_time', 'last_time', 'whole', 'frac_hi', 'frac_lo', 'big'] as const;

/** payment_rollups' primary key (ROLLUP_KEY) rebuilt on PostgreSQL with `include` columns. */
async function rekeyRollups(db: Kysely<any>, include: readonly string[]): Promise<void> {
  const key = sql.join(ROLLUP_KEY.map((c) => sql.ref(c)));
  const covered = include.length ? sql`include (${sql.join(include.map((c) => sql.ref(c)))})` : sql``;
  await sql`alter table payment_rollups drop constraint payment_rollups_pk`.execute(db);
  await sql`alter table payment_rollups add constraint payment_rollups_pk primary key (${key}) ${covered}`.execute(db);
}

/**
 * Rebuilds the primary key `${table}_pk` of PostgreSQL's payment_last_days or payment_last_weeks over `key`, payers
 * included in the index, rows unchanged.
 */
async function rekeyLatest(
  db: Kysely<any>,
  table: 'payment_last_days' | 'payment_last_weeks',
  key: readonly ('dim' | 'protocol' | 'day' | 'week' | 'subject')[],
): Promise<void> {
  const cols = sql.join(key.map((c) => sql.ref(c)));
  const pk = sql.ref(`${table}_pk`);
  await sql`alter table ${sql.table(table)} drop constraint ${pk}`.execute(db);
  await sql`alter table ${sql.table(table)} add constraint ${pk} primary key (${cols}) include (payers)`.execute(db);
}
