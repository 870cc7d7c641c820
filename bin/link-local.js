#!/usr/bin/env node
// Links node_modules/.bin/paywatch to bin/paywatch.js (run by `npm install` through `prepare`), so that
// `npx paywatch` in a clone finds the command among the local bins at once. npm does not link a project's own
// `bin` into its node_modules, and resolving it through the package's `bin` field costs npx about a second.
import { chmodSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = `${root}node_modules/.bin`;
mkdirSync(dir, { recursive: true });
rmSync(`${dir}/paywatch`, { force: true });
symlinkSync('../../bin/paywatch.js', `${dir}/paywatch`);
chmodSync(`${root}bin/paywatch.js`, 0o755);
