/** What a module loads at run time, walked with the import rules' parser (scripts/import-rules.mjs) over this repository. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
// @ts-expect-error: a plain ES module script without type declarations
import { importsOf } from '../../scripts/import-rules.mjs';

type Import = { spec: string; typeOnly: boolean; dynamic?: boolean };
const parse = importsOf as (file: string, text: string) => Import[];

/**
 * Every module and package `file` may load at run time (type-only imports left out; `import()` too with
 * `staticOnly`: what loading `file` loads at once): repository paths for modules (`src/….ts`), bare names for
 * packages.
 */
export function valueClosure(file: string, opts: { staticOnly?: boolean } = {}): Set<string> {
  const seen = new Set<string>();
  const walk = (f: string) => {
    if (seen.has(f)) return;
    seen.add(f);
    if (!f.startsWith('src/')) return;
    for (const imp of parse(f, readFileSync(f, 'utf8'))) {
      if (imp.typeOnly || (opts.staticOnly && imp.dynamic)) continue;
      walk(imp.spec.startsWith('.') ? join(dirname(f), imp.spec).replace(/\.js$/, '.ts') : imp.spec);
    }
  };
  walk(file);
  return seen;
}
