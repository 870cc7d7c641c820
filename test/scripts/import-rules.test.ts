/**
 * scripts/import-rules.mjs (run by `npm run lint:cycles`): only src/store/ imports the database libraries, and
 * faces import from src/store/ types and the few opening functions it allows. Checked on small trees written
 * here, each breaking one rule, and on this repository. The explorer (web/src) imports the server's types and only
 * the pure modules it shares with the server.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script without type declarations
import { checkImportRules } from '../../scripts/import-rules.mjs';

const check = checkImportRules as (root: string) => string[];
const roots: string[] = [];

/** A tree with `files` (path → text) and a minimal store. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'import-rules-'));
  roots.push(root);
  const all = {
    'src/store/db.ts': 'export async function openStore() {}\nexport async function migrateStore() {}\nexport type Store = object;\n',
    'src/store/chain/index.ts': 'export async function listTransactions() {}\nexport type Row = object;\n',
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

describe('import rules', () => {
  it('let faces import store types and openStore, and the query layers anything of the store', () => {
    const root = tree({
      'src/api/routes/x.ts':
        "import type { Row } from '../../store/chain/index.js';\nimport { openStore, type Store } from '../../store/db.js';\n",
      'src/cli/y.ts': "const { openStore } = await import('../store/db.js');\n",
      'src/chain/queries.ts': "import { listTransactions } from '../store/chain/index.js';\n",
    });
    expect(check(root)).toEqual([]);
  });

  it('refuse a face importing a store query, statically, by re-export or dynamically', () => {
    const root = tree({
      'src/api/routes/x.ts': "import { listTransactions } from '../../store/chain/index.js';\n",
      'src/mcp/y.ts': "export { migrateStore } from '../store/db.js';\n",
      'src/cli/z.ts': "const { migrateStore } = await import('../store/db.js');\nconst all = await import('../store/db.js');\n",
      'src/trust/access.ts': "import * as db from '../store/db.js';\n",
    });
    const problems = check(root);
    expect(problems).toHaveLength(5);
    expect(problems.join('\n')).toMatch(/src\/api\/routes\/x\.ts:1: a face imports listTransactions from src\/store\/chain\/index\.ts/);
    expect(problems.join('\n')).toMatch(/src\/mcp\/y\.ts:1: a face imports migrateStore/);
    expect(problems.join('\n')).toMatch(/src\/cli\/z\.ts:1: a face imports migrateStore/);
    expect(problems.join('\n')).toMatch(/src\/cli\/z\.ts:2: a face imports \*/);
    expect(problems.join('\n')).toMatch(/src\/trust\/access\.ts:1: a face imports \*/);
  });

  it('refuse the database libraries outside src/store, types included', () => {
    const root = tree({
      'src/http/health.ts': "import { sql } from 'kysely';\n",
      'src/seed/chain.ts': "import type { Kysely } from 'kysely';\n",
      'src/ops/pool.ts': "import pg from 'pg';\n",
      'src/store/sqlite.ts': "import SqliteDatabase from 'better-sqlite3';\n",
    });
    const problems = check(root);
    expect(problems.map((p) => p.split(':')[0])).toEqual(
      expect.arrayContaining(['src/http/health.ts', 'src/seed/chain.ts', 'src/ops/pool.ts']),
    );
    expect(problems).toHaveLength(3);
  });

  it('let the explorer import server types and the shared pure modules, and nothing else of the server', () => {
    const root = tree({
      'src/domain/money.ts': "import { format } from 'ox/Value';\nimport type { Store } from '../store/db.js';\n",
      'src/domain/metrics.ts': 'export const METRICS_WINDOW = 50_000;\n',
      'web/src/ok.tsx':
        "import type { Row } from '../../src/store/chain/index';\nimport { sumDecimals } from '../../src/domain/money';\nimport { Chart } from './chart';\n",
      'web/src/bad.tsx': "import { listTransactions } from '../../src/store/chain/index';\n",
    });
    expect(check(root)).toEqual([
      expect.stringMatching(/^web\/src\/bad\.tsx:1: the explorer imports a value from src\/store\/chain\/index\.ts/),
    ]);
  });

  it('refuse a shared module that imports server code the explorer would then bundle', () => {
    const root = tree({
      'src/domain/money.ts': "import { openStore } from '../store/db.js';\n",
      'web/src/ok.tsx': "import { sumDecimals } from '../../src/domain/money';\n",
    });
    expect(check(root)).toEqual([
      expect.stringMatching(/^src\/domain\/money\.ts:1: a module the explorer bundles imports a value from src\/store\/db\.ts/),
    ]);
  });

  it('hold in this repository', () => {
    expect(check(fileURLToPath(new URL('../..', import.meta.url)))).toEqual([]);
  });
});
