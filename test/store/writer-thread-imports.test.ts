/**
 * The store writer thread loads its modules afresh in its own isolate on every collector start, so its value imports
 * stay to what writing needs (src/store/chain/writer-thread.ts): not the store opener with its migrations,
 * PostgreSQL, settings, the token list or the read side. Walked with the import rules' parser on this repository.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script without type declarations
import { importsOf } from '../../scripts/import-rules.mjs';

type Import = { spec: string; typeOnly: boolean };
const parse = importsOf as (file: string, text: string) => Import[];

/** Every module and package `file` loads at run time (type-only imports left out), repository paths for modules. */
function valueClosure(file: string): Set<string> {
  const seen = new Set<string>();
  const walk = (f: string) => {
    if (seen.has(f)) return;
    seen.add(f);
    if (!f.startsWith('src/')) return;
    for (const imp of parse(f, readFileSync(f, 'utf8'))) {
      if (imp.typeOnly) continue;
      walk(imp.spec.startsWith('.') ? join(dirname(f), imp.spec).replace(/\.js$/, '.ts') : imp.spec);
    }
  };
  walk(file);
  return seen;
}

describe('store writer thread imports', () => {
  it('load the SQLite opener and the write, none of the heavy rest of the store', () => {
    const loaded = valueClosure('src/store/chain/writer-thread.ts');
    expect(loaded).toContain('src/store/chain/write-blocks.ts');
    expect(loaded).toContain('src/store/sqlite.ts');
    const heavy = [
      'src/store/db.ts',
      'src/store/migrate.ts',
      'src/store/postgres.ts',
      'src/settings/index.ts',
      'src/domain/token-list.ts',
      'src/store/chain/query.ts',
      'src/store/chain/index.ts',
      'pg',
      'zod',
      'ajv',
    ];
    expect(heavy.filter((m) => loaded.has(m))).toEqual([]);
  });
});
