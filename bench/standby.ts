/**
 * Standby collector handover: runs test/e2e/standby-collector.test.ts (three SIGKILLs of the leader mid-backfill
 * on PostgreSQL) with PAYWATCH_STANDBY_RESULTS=1, which writes the measured handover times (lock released → the
 * standby's first write, milliseconds) to bench/results/standby.md.
 * Usage: node bin/run-ts.js bench/standby.ts
 */
import { spawnSync } from 'node:child_process';

const r = spawnSync('npx', ['vitest', 'run', 'test/e2e/standby-collector.test.ts', '-t', 'standby collector on postgres'], {
  stdio: 'inherit',
  env: { ...process.env, PAYWATCH_STANDBY_RESULTS: '1' },
});
process.exit(r.status ?? 1);
