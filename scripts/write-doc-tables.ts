/**
 * Rewrites the documentation's generated tables (scripts/doc-tables.ts) from the code: the error codes and the limits
 * in docs/architecture.md, the settings in the README. Run: `npm run docs:tables`.
 */
import { writeFileSync } from 'node:fs';
import { DOC_TABLES, readDoc, withTable } from './doc-tables.js';

const root = new URL('../', import.meta.url);
for (const t of DOC_TABLES) {
  const before = readDoc(root, t);
  const after = withTable(before, t);
  if (after !== before) {
    writeFileSync(new URL(t.file, root), after);
    process.stdout.write(`rewrote the ${t.name} table in ${t.file}\n`);
  }
}
