#!/usr/bin/env node
// Entry point: runs the TypeScript sources through tsx's loader, so `npx paywatch`
// works on a fresh clone right after `npm install`, with no build step.
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv);
