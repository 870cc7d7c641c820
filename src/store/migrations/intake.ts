import { sql, type Kysely, type Migration } from 'kysely';
import { isPostgres } from './dialect.js';

/** Migrations of the intake area, named "intake_NNNN_what" (unique across areas, applied in name order). */
export const intakeMigrations: Record<string, Migration> = {
  intake_0001_senders_keys_events_outcomes: {
    async up(db: Kysely<any>) {
      const pgsql = isPostgres(db);
      const bytes = pgsql ? 'bytea' : 'blob';
      const float = pgsql ? 'double precision' : 'real';
      await db.schema
        .createTable('intake_senders')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('protocol', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('revoked_at', 'bigint')
        .execute();
      await db.schema
        .createTable('intake_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('sender_id', 'text', (c) => c.notNull().references('intake_senders.id'))
        .addColumn('sealed', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint')
        .execute();
      await db.schema.createIndex('intake_keys_sender').on('intake_keys').column('sender_id').execute();
      await db.schema
        .createTable('intake_operator_tokens')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('token_sha256', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('revoked_at', 'bigint')
        .execute();
      await db.schema
        .createTable('intake_protocol_events')
        .addColumn('connection_id', 'text', (c) => c.notNull().references('intake_senders.id'))
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('environment', 'text', (c) => c.notNull())
        .addColumn('protocol', 'text', (c) => c.notNull())
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('event_time', 'bigint', (c) => c.notNull())
        .addColumn('body', sql.raw(bytes), (c) => c.notNull())
        .addColumn('body_sha256', 'text', (c) => c.notNull())
        .addColumn('received_at', 'text', (c) => c.notNull())
        // Idempotency is this constraint: one row per (connection, event_id), whatever races happen above it.
        .addPrimaryKeyConstraint('intake_protocol_events_pk', ['connection_id', 'event_id'])
        .execute();
      await db.schema
        .createIndex('intake_protocol_events_env_time')
        .on('intake_protocol_events')
        .columns(['environment', 'event_time'])
        .execute();
      await db.schema
        .createTable('intake_outcomes')
        .addColumn('producer_id', 'text', (c) => c.notNull().references('intake_senders.id'))
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('environment', 'text', (c) => c.notNull())
        .addColumn('occurred_at', 'bigint', (c) => c.notNull())
        .addColumn('task_id', 'text', (c) => c.notNull())
        .addColumn('attempt_id', 'text', (c) => c.notNull())
        .addColumn('service_id', 'text')
        .addColumn('service_url', 'text')
        .addColumn('charge_amount', 'text', (c) => c.notNull())
        .addColumn('charge_asset', 'text', (c) => c.notNull())
        .addColumn('charge_network', 'text', (c) => c.notNull())
        .addColumn('charge_tx_hash', 'text')
        .addColumn('charge_protocol', 'text')
        .addColumn('result_fingerprint', 'text', (c) => c.notNull())
        .addColumn('evaluation_version', 'text', (c) => c.notNull())
        .addColumn('verdict', 'text', (c) => c.notNull())
        .addColumn('score', sql.raw(float))
        .addColumn('evidence', sql.raw(bytes))
        .addColumn('body', sql.raw(bytes), (c) => c.notNull())
        .addColumn('body_sha256', 'text', (c) => c.notNull())
        .addColumn('received_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('intake_outcomes_pk', ['producer_id', 'event_id'])
        .execute();
      await db.schema.createIndex('intake_outcomes_env_time').on('intake_outcomes').columns(['environment', 'occurred_at']).execute();
    },
    async down(db: Kysely<any>) {
      for (const t of ['intake_outcomes', 'intake_protocol_events', 'intake_operator_tokens', 'intake_keys', 'intake_senders']) {
        await db.schema.dropTable(t).ifExists().execute();
      }
    },
  },
  /**
   * Credentials bind an environment: a sender delivers records of its own environment only. Senders issued
   * before this migration get 'test', the side where a wrongly bound credential can do no harm; an application
   * that delivers live records needs a connection or producer created with --env live (docs/decisions.md).
   */
  intake_0002_sender_environment: {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('intake_senders')
        .addColumn('environment', 'text', (c) => c.notNull().defaultTo('test').check(sql`environment in ('test', 'live')`))
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.alterTable('intake_senders').dropColumn('environment').execute();
    },
  },
};
