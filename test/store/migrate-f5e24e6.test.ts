/**
 * A store written by commit f5e24e6 (before details and integrity were packed and the indexes reordered:
 * test/fixtures/store-f5e24e6/store.sqlite.gz, 60 transactions collected from a local Tempo-mode anvil by that
 * commit's collector) migrates in place on open, and every chain answer afterwards (status, coverage, list pages by
 * every filter, each detail, metrics, export) is byte-identical to what f5e24e6's own app answered over it
 * (answers.txt.gz, recorded with ./answers.ts by that commit). The packing also survives an interruption.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/db.js';
import { packPendingDetails } from '../../src/store/chain/pack-details.js';
import { recordChainAnswers } from '../fixtures/store-f5e24e6/answers.js';

const FIXTURE = join(import.meta.dirname, '../fixtures/store-f5e24e6');
const NOW = new Date('2026-11-20T12:00:00.000Z');
const dir = mkdtempSync(join(tmpdir(), 'paywatch-f5e24e6-'));

/** A fresh copy of the fixture store; returns its --db URL. */
function copyFixture(name: string): string {
  const file = join(dir, `${name}.sqlite`);
  writeFileSync(file, gunzipSync(readFileSync(join(FIXTURE, 'store.sqlite.gz'))));
  return `sqlite:${file}`;
}

async function answersOf(store: Store, db: string): Promise<string> {
  const app = await buildApp(
    {
      store,
      config: loadConfig({ db, publicUrl: 'https://paywatch.example', verifyUrl: 'https://verify.paywatch.example' }, {}),
      components: new Map(),
    },
    { logger: false },
  );
  try {
    return withoutLaterMembers(await recordChainAnswers(await app.listen({ host: '127.0.0.1', port: 0 })));
  } finally {
    await app.close();
  }
}

/**
 * Members added after f5e24e6 (/api/status finality, /api/coverage quarantine, /api/metrics distinct payers and
 * recipients; each row's payment members; a detail's payer, settlement and attribution and each leg's attribution)
 * and the CSV columns appended after them: removed before comparing.
 */
const LATER_MEMBERS = ['finality', 'quarantine', 'distinct_payers', 'distinct_recipients'];
/** Members of a transaction (in list rows and details) added after f5e24e6. */
const LATER_ROW_MEMBERS = ['payer', 'self_payment', 'client_fingerprint', 'service_id', 'provider', 'attribution_method'];
/** Members of a detail added after f5e24e6 (beside the row's). */
const LATER_DETAIL_MEMBERS = ['settlement', 'attribution'];
/** Members of a detail's legs added after f5e24e6. */
const LATER_LEG_MEMBERS = ['attribution'];
/** CSV columns appended after f5e24e6's last one (none of their cells holds a comma). */
const LATER_CSV_COLUMNS = LATER_ROW_MEMBERS.length;
const drop = (o: Record<string, unknown>, members: readonly string[]) => {
  for (const m of members) delete o[m];
};
function withoutLaterMembers(answers: string): string {
  return answers
    .split('\n')
    .map((line) => {
      if (line.startsWith('hash,') || /^0x[0-9a-f]{64},/.test(line)) return line.split(',').slice(0, -LATER_CSV_COLUMNS).join(',');
      if (!line.startsWith('{')) return line;
      const o = JSON.parse(line) as Record<string, unknown>;
      drop(o, LATER_MEMBERS);
      if (Array.isArray(o.rows)) for (const r of o.rows as Record<string, unknown>[]) drop(r, LATER_ROW_MEMBERS);
      if (typeof o.hash === 'string' && 'legs' in o) {
        drop(o, [...LATER_ROW_MEMBERS, ...LATER_DETAIL_MEMBERS]);
        for (const g of (o.legs as Record<string, unknown>[] | null) ?? []) drop(g, LATER_LEG_MEMBERS);
      }
      return JSON.stringify(o);
    })
    .join('\n');
}

const recorded = gunzipSync(readFileSync(join(FIXTURE, 'answers.txt.gz'))).toString('utf8');

describe('a store written by f5e24e6', () => {
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: NOW });
  });
  afterAll(() => {
    vi.useRealTimers();
    rmSync(dir, { recursive: true, force: true });
  });

  it('migrates on open (details and integrity packed, with progress) and answers exactly as f5e24e6 did', async () => {
    const db = copyFixture('whole');
    const progress: [number, number][] = [];
    const store = await openStore(db, { onMigrationProgress: (done, total) => progress.push([done, total]) });
    try {
      expect(progress.at(0)).toEqual([0, 60]);
      expect(progress.at(-1)).toEqual([60, 60]);
      const { rows } = await sql<{ unpacked: number; plain: number }>`
        select (select count(*) from observation_details where packed is null or detail <> '') as unpacked,
               (select count(*) from observations where integrity not like '%"z":"%') as plain`.execute(store.db);
      expect(rows[0]).toEqual({ unpacked: 0, plain: 0 });
      const stats = await store.db.selectFrom('chain_stats').select(['pack_next', 'pack_end']).executeTakeFirstOrThrow();
      expect(stats).toEqual({ pack_next: null, pack_end: null });
      expect(await answersOf(store, db)).toBe(recorded);
    } finally {
      await store.close();
    }
  });

  it('resumes packing after an interruption and still answers exactly as f5e24e6 did', async () => {
    const db = copyFixture('interrupted');
    const first = await openStore(db, { migrate: false });
    try {
      const { Migrator } = await import('kysely');
      const { migrationProvider } = await import('../../src/store/migrations/index.js');
      expect(
        (await new Migrator({ db: first.db, provider: migrationProvider, allowUnorderedMigrations: true }).migrateToLatest()).error,
      ).toBe(undefined);
      // Stopped after the first batch of 16 rows (as a killed process would be: that batch committed, no other).
      await expect(
        packPendingDetails(
          first,
          (done) => {
            if (done === 16) throw new Error('interrupted');
          },
          16,
        ),
      ).rejects.toThrow('interrupted');
      const stats = await first.db.selectFrom('chain_stats').select(['pack_next', 'pack_end']).executeTakeFirstOrThrow();
      expect(stats).toEqual({ pack_next: 16, pack_end: 60 });
      // Half packed, the store already answers the same (reads take either form).
      expect(await answersOf(first, db)).toBe(recorded);
    } finally {
      await first.close();
    }
    const progress: [number, number][] = [];
    const second = await openStore(db, { onMigrationProgress: (done, total) => progress.push([done, total]) });
    try {
      expect(progress.at(0)).toEqual([0, 44]);
      expect(progress).toContainEqual([44, 44]);
      // Then the payment columns of every row stored before chain_0009 (src/store/chain/backfill-payments.ts).
      expect(progress.at(-1)).toEqual([60, 60]);
      expect(await answersOf(second, db)).toBe(recorded);
    } finally {
      await second.close();
    }
  });
});
