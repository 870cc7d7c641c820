/**
 * Benchmark stores: SQLite files under bench/tmp and PostgreSQL databases on the machine's server
 * (PAYWATCH_TEST_PG overrides the admin URL), kept between runs so large seeds are paid once.
 */
import pg from 'pg';

export const PG_ADMIN = process.env.PAYWATCH_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * The `--db` location of benchmark store `name` for `dialect`, creating the PostgreSQL database when missing
 * (with `fresh`, dropping it first). SQLite files live at bench/tmp/NAME.sqlite.
 */
export async function benchStore(dialect: 'sqlite' | 'postgres', name: string, opts: { fresh?: boolean } = {}): Promise<string> {
  if (dialect === 'sqlite') return `sqlite:bench/tmp/${name}.sqlite`;
  const db = name.replace(/[^a-z0-9_]/gi, '_').toLowerCase();
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  try {
    if (opts.fresh) await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    const exists = await admin.query('select 1 from pg_database where datname = $1', [db]);
    if (!exists.rowCount) await admin.query(`CREATE DATABASE ${db}`);
  } finally {
    await admin.end();
  }
  const u = new URL(PG_ADMIN);
  u.pathname = `/${db}`;
  return u.toString();
}

/** Drops benchmark database `name` (PostgreSQL) — SQLite files are left for the caller. */
export async function dropBenchDatabase(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name.replace(/[^a-z0-9_]/gi, '_').toLowerCase()} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
