import { sql, type Kysely, type Migration } from 'kysely';
import { isPostgres } from './dialect.js';

/** Migrations of the trust area, named "trust_NNNN_what" (unique across areas, applied in name order). */
export const trustMigrations: Record<string, Migration> = {
  trust_0001_keys_usage_checks: {
    async up(db: Kysely<any>) {
      const bytesType = isPostgres(db) ? sql`bytea` : sql`blob`;
      await db.schema
        .createTable('trust_api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('plan', 'text', (c) => c.notNull().check(sql`plan in ('free', 'paid')`))
        .addColumn('label', 'text')
        .addColumn('issued_via', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('revoked_at', 'text')
        .execute();
      await db.schema
        .createTable('trust_usage')
        .addColumn('key_id', 'text', (c) => c.notNull().references('trust_api_keys.id'))
        .addColumn('month', 'text', (c) => c.notNull())
        .addColumn('used', 'integer', (c) => c.notNull().defaultTo(0).check(sql`used >= 0`))
        .addColumn('reserved', 'integer', (c) => c.notNull().defaultTo(0).check(sql`reserved >= 0`))
        .addPrimaryKeyConstraint('trust_usage_pk', ['key_id', 'month'])
        .execute();
      await db.schema
        .createTable('trust_checks')
        .addColumn('snapshot_id', 'text', (c) => c.primaryKey())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('checked_at', 'text', (c) => c.notNull())
        .addColumn('verdict', 'text', (c) => c.notNull())
        .addColumn('evidence_hash', 'text')
        .addColumn('key_id', 'text')
        .addColumn('payer', 'text')
        .addColumn('payment_tx', 'text')
        .addColumn('answer', 'text', (c) => c.notNull())
        .addColumn('evidence', bytesType)
        .execute();
      await db.schema.createIndex('trust_checks_url').on('trust_checks').columns(['url', 'checked_at']).execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('trust_checks').ifExists().execute();
      await db.schema.dropTable('trust_usage').ifExists().execute();
      await db.schema.dropTable('trust_api_keys').ifExists().execute();
    },
  },
  trust_0002_key_issuance_last_used: {
    async up(db: Kysely<any>) {
      // Free keys issued per client and UTC month, in the store so restarts and replicas count once.
      await db.schema
        .createTable('trust_key_issuance')
        .addColumn('client_hash', 'text', (c) => c.notNull())
        .addColumn('month', 'text', (c) => c.notNull())
        .addColumn('issued', 'integer', (c) => c.notNull().defaultTo(0).check(sql`issued >= 0`))
        .addPrimaryKeyConstraint('trust_key_issuance_pk', ['client_hash', 'month'])
        .execute();
      await db.schema.alterTable('trust_api_keys').addColumn('last_used_at', 'text').execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.alterTable('trust_api_keys').dropColumn('last_used_at').execute();
      await db.schema.dropTable('trust_key_issuance').ifExists().execute();
    },
  },
};
