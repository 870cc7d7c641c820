/**
 * node-postgres takes ~0.1 s to load, so a process whose store is SQLite never loads it: the store opener and the
 * status query reach PostgreSQL's modules (src/store/postgres.ts, src/store/read-replica.ts) only through
 * `import()`, when a PostgreSQL store or a read replica is opened. Walked with the import rules' parser.
 */
import { describe, expect, it } from 'vitest';
import { valueClosure } from '../helpers/import-closure.js';

describe('node-postgres', () => {
  it.each(['src/store/db.ts', 'src/chain/queries.ts', 'src/chain/collector/index.ts', 'src/api/app.ts'])(
    'is not among what %s loads statically',
    (file) => {
      const loaded = valueClosure(file, { staticOnly: true });
      expect(loaded.size).toBeGreaterThan(5);
      expect(['pg', 'src/store/postgres.ts', 'src/store/read-replica.ts'].filter((m) => loaded.has(m))).toEqual([]);
    },
  );
});
