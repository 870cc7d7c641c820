/**
 * The store writer thread loads its modules afresh in its own isolate on every collector start, so its value imports
 * stay to what writing needs (src/store/chain/writer-thread.ts): not the store opener with its migrations,
 * PostgreSQL, settings, the token list or the read side. Walked with the import rules' parser on this repository.
 */
import { describe, expect, it } from 'vitest';
import { valueClosure } from '../helpers/import-closure.js';

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
