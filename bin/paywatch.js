#!/usr/bin/env -S node --max-semi-space-size=32
// Entry point. Runs the compiled JavaScript in dist/ (dist/bundle/, else the tree tsc wrote; built by `npm install` through the `prepare` script, or
// `npm run build`); from the TypeScript sources through tsx when there is no build or PAYWATCH_FROM_SOURCE=1
// (development). The shebang's V8 flags are src/cli/node-flags.ts's (kept in step by test/unit/node-flags.test.ts).
import { existsSync } from 'node:fs';

// The bundle (scripts/bundle.mjs) starts faster than the tree tsc compiled; either runs the same code.
const bundled = new URL('../dist/bundle/main.mjs', import.meta.url);
const compiled = new URL('../dist/cli/main.js', import.meta.url);
let main;
if (process.env.PAYWATCH_FROM_SOURCE !== '1' && existsSync(bundled)) {
  ({ main } = await import(bundled.href));
} else if (process.env.PAYWATCH_FROM_SOURCE !== '1' && existsSync(compiled)) {
  ({ main } = await import(compiled.href));
} else {
  // tsx is a development dependency: without it and without a build, say what to do in one line.
  const tsx = await import('tsx/esm/api').catch(() => null);
  if (!tsx) {
    process.stderr.write('paywatch: not built (no dist/): run `npm run build`, or `npm install` with development dependencies\n');
    process.exit(1);
  }
  tsx.register();
  ({ main } = await import('../src/cli/main.ts'));
}
await main(process.argv);
