#!/usr/bin/env -S node --max-semi-space-size=32
// Entry point: runs the TypeScript sources through tsx's loader, so `npx paywatch`
// works on a fresh clone right after `npm install`, with no build step. The shebang's V8 flags are
// src/cli/node-flags.ts's (kept in step by test/unit/node-flags.test.ts).
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv);
