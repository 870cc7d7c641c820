import { sql, type Kysely, type Migration } from 'kysely';
import { inOneTransaction } from './dialect.js';

/**
 * Retention (`--retain-days`, ../chain/retention.ts): chain_stats keeps how many observations were dropped (so the
 * retained count and the lowest retained seq follow from observation_count) and from where data is retained.
 */
export const retentionMigrations: Record<string, Migration> = {
  chain_0011_retention: {
    async up(db: Kysely<any>) {
      await inOneTransaction(db, async (trx) => {
        const cols = (await trx.introspection.getTables()).find((t) => t.name === 'chain_stats')?.columns ?? [];
        if (cols.some((c) => c.name === 'dropped')) return;
        await trx.schema
          .alterTable('chain_stats')
          .addColumn('dropped', 'bigint', (c) => c.notNull().defaultTo(0))
          .execute();
        await trx.schema.alterTable('chain_stats').addColumn('retained_from_time', 'bigint').execute();
        await trx.schema.alterTable('chain_stats').addColumn('retained_from_height', 'bigint').execute();
      });
    },
    async down(db: Kysely<any>) {
      for (const c of ['retained_from_height', 'retained_from_time', 'dropped'])
        await sql`alter table chain_stats drop column ${sql.id(c)}`.execute(db);
    },
  },
};
