/**
 * Vitest global setup: builds dist/ (incrementally; `npm run build`) and its bundle before any test runs, so the end-to-end tests
 * that start `bin/paywatch.js` run the compiled code of this very tree, as users do, and never a stale build. The
 * explorer (web/ → dist/web) is rebuilt when a file under web/ is newer than its build.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Newest modification time of the files under `dir` (0 when there are none). */
function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', `${root}tsconfig.build.json`], {
    cwd: root,
    stdio: 'inherit',
  });
  // bin/paywatch.js runs the bundle when there is one: bundle what tsc just wrote (scripts/bundle.mjs).
  execFileSync(process.execPath, [`${root}scripts/bundle.mjs`], { cwd: root, stdio: 'inherit' });
  let built = 0;
  try {
    built = statSync(`${root}dist/web/index.html`).mtimeMs;
  } catch {
    // not built yet
  }
  if (newest(`${root}web`) > built)
    execFileSync(process.execPath, [`${root}node_modules/vite/bin/vite.js`, 'build', '--config', `${root}web/vite.config.ts`], {
      cwd: root,
      stdio: 'inherit',
    });
}
