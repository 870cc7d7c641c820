/**
 * First opens of one new SQLite file by several processes at once: their migrations are serialised by the
 * migration lock (src/store/sqlite.ts lockSqliteMigrations), so every process succeeds and the schema is made once.
 * Real processes (node bin/run-ts.js test/fixtures/open-store.ts), released together once all have loaded.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import SqliteDatabase from 'better-sqlite3';
import { lockSqliteMigrations, openStore } from '../../src/store/db.js';
import { allMigrations } from '../../src/store/migrations/index.js';

const RUN_TS = fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url));
const CHILD = fileURLToPath(new URL('../fixtures/open-store.ts', import.meta.url));
const PROCESSES = 6;
const ROUNDS = 3;

const dir = mkdtempSync(join(tmpdir(), 'paywatch-migrate-race-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Outcome {
  code: number | null;
  stderr: string;
}

/** Starts PROCESSES children on `url`, releases them together once all are ready, and waits for their exits. */
async function openAtOnce(url: string): Promise<Outcome[]> {
  const children = Array.from({ length: PROCESSES }, () =>
    spawn(process.execPath, [RUN_TS, CHILD, url], { stdio: ['pipe', 'pipe', 'pipe'] }),
  );
  const outcomes = children.map(
    (c) =>
      new Promise<Outcome>((resolve) => {
        let stderr = '';
        c.stderr!.on('data', (d) => (stderr += d));
        c.on('exit', (code) => resolve({ code, stderr }));
      }),
  );
  await Promise.all(
    children.map((c) => new Promise<void>((resolve) => c.stdout!.on('data', (d) => String(d).includes('ready') && resolve()))),
  );
  for (const c of children) c.stdin!.end('go\n');
  return Promise.all(outcomes);
}

/** Every table's and index's definition and every table's row count, except the migrations' timestamps. */
function schemaOf(path: string): { objects: unknown[]; rows: Record<string, number>; migrations: string[] } {
  const db = new SqliteDatabase(path, { readonly: true });
  try {
    const objects = db.prepare(`select type, name, sql from sqlite_master where name not like 'sqlite_%' order by type, name`).all();
    const tables = db
      .prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`)
      .pluck()
      .all() as string[];
    const rows = Object.fromEntries(tables.map((t) => [t, db.prepare(`select count(*) from "${t}"`).pluck().get() as number]));
    const migrations = db.prepare('select name from kysely_migration order by name').pluck().all() as string[];
    return { objects, rows, migrations };
  } finally {
    db.close();
  }
}

describe('SQLite migrations from several processes at once', () => {
  it(`${PROCESSES} processes opening one new file together all succeed, ${ROUNDS} rounds, and the schema is made once`, async () => {
    const reference = join(dir, 'reference.sqlite');
    await (await openStore(`sqlite:${reference}`)).close();
    const expected = schemaOf(reference);
    expect(expected.migrations).toEqual(Object.keys(allMigrations).sort());

    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const path = join(dir, `round-${round}.sqlite`);
      const outcomes = await openAtOnce(`sqlite:${path}`);
      for (const [i, o] of outcomes.entries())
        if (o.code !== 0) failures.push(`round ${round} process ${i}: exit ${o.code}: ${o.stderr.trim()}`);
      expect(schemaOf(path)).toEqual(expected);
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('a process that waits too long for another one migrating fails with a one-line error and leaves the lock free', async () => {
    const path = join(dir, 'held.sqlite');
    const unlock = await lockSqliteMigrations(path, 0);
    try {
      await expect(openStore(`sqlite:${path}`, { migrationLockWaitMs: 300 })).rejects.toThrow(
        /^another process has been migrating the SQLite store .* for over 0 s \(lock .*\.migrate-lock\); retry once it has finished$/,
      );
    } finally {
      unlock();
    }
    // Once the holder is gone, the same open succeeds.
    await (await openStore(`sqlite:${path}`, { migrationLockWaitMs: 300 })).close();
  });
});
