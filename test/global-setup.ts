/**
 * Vitest global setup: builds dist/ (incrementally; `npm run build`) before any test runs, so the end-to-end tests
 * that start `bin/paywatch.js` run the compiled code of this very tree, as users do, and never a stale build.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', `${root}tsconfig.build.json`], { cwd: root, stdio: 'inherit' });
}
