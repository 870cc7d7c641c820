/**
 * Every CLI command, in help order, with the one-line description `--help` lists. A command's module is imported
 * only when that command runs (`load`), so `paywatch --help` and one command's start never load the others'
 * trees (the trust-check app alone takes seconds to import). Each module exports `register(cmd)`, which adds the
 * command's options and action to `cmd` (already named and described here).
 */
import type { Command } from 'commander';

/** One command: its name, its `--help` line and its lazily loaded module. */
export interface CommandEntry {
  name: string;
  description: string;
  load: () => Promise<{ register: (cmd: Command) => void }>;
}

export const commands: readonly CommandEntry[] = [
  {
    name: 'start',
    description: 'run the collector, the public API, the provider-intelligence collector and the trust-check listener together',
    load: () => import('./start.js'),
  },
  {
    name: 'collect',
    description: 'collect finalized Tempo blocks into the store (resumes from the checkpoint)',
    load: () => import('./collect.js'),
  },
  { name: 'serve', description: 'serve the public API over the store (no collection)', load: () => import('./serve.js') },
  {
    name: 'demo',
    description:
      'start a local Tempo node (anvil) and local paid services (x402, MPP), fill them with real activity, collect it and serve the API, MCP and the trust check',
    load: () => import('./demo.js'),
  },
  { name: 'operator', description: 'operator tools: connections, producers, tokens, private reads', load: () => import('./operator.js') },
  {
    name: 'seed',
    description: 'bulk-insert N synthetic observations into the store (benchmarks, trying the API offline)',
    load: () => import('./seed.js'),
  },
  {
    name: 'verify',
    description: 'serve the trust-check API (POST /v1/check, POST /v1/keys, GET /v1/openapi.json)',
    load: () => import('./verify.js'),
  },
  {
    name: 'integrity',
    description: 'integrity tools: re-verify stored blocks (parent-hash chain, finality certificates)',
    load: () => import('./integrity.js'),
  },
  {
    name: 'intel',
    description: 'provider intelligence: collect paid-service listings and checks, verify the evidence archive',
    load: () => import('./intel.js'),
  },
  {
    name: 'compact',
    description: "give the store's free space back to the disk (SQLite VACUUM or VACUUM INTO; PostgreSQL VACUUM and REINDEX)",
    load: () => import('./compact.js'),
  },
];
