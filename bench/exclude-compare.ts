/**
 * exclude=self_payment,self_funded against the same request without it, on any seeded store (e.g. the payer
 * benchmark's, whose payers all have a recorded first inflow, so every payment runs the whole self_funded probe):
 * the recipients and payers rankings and /api/metrics over the 30 days ending at END, uncached, runs of the two
 * interleaved so a drift of the load hits both alike. Prints one JSON line: p50 / p99 ms of each, their ratios,
 * the totals with and without (what was left out), and the load average.
 * Run: node bin/run-ts.js bench/exclude-compare.ts DB [END_UNIX_SECONDS] [RUNS]
 * e.g. DB = sqlite:bench/tmp/trust_payers_100000.sqlite (bench/trust.ts --payers --count 100000 --target 50000)
 */
import { loadavg } from 'node:os';
import { openStore } from '../src/store/db.js';
import { rankRollups, type RankingRequest } from '../src/store/chain/rankings.js';
import { aggregateMetrics } from '../src/store/chain/reads.js';
import { METRICS_WINDOW } from '../src/domain/metrics.js';
import type { Exclusion } from '../src/domain/filters.js';
import { pct } from './trust-payers-profile.js';

const [db, endArg, runsArg] = process.argv.slice(2);
const end = Number(endArg ?? Math.floor(Date.now() / 1000));
const runs = Number(runsArg ?? 10);
const store = await openStore(db);
const exclude: Exclusion[] = ['self_payment', 'self_funded'];
const rec: RankingRequest = { kind: 'recipients', since: end - 30 * 86_400, until: end, by: 'nominal', limit: 20, offset: 0 };
const pay: RankingRequest = { ...rec, kind: 'payers' };
const window = { since: end - 30 * 86_400, until: end };
const pairs: Record<string, [() => Promise<{ total: number }>, () => Promise<{ total: number }>]> = {
  recipients: [() => rankRollups(store, rec), () => rankRollups(store, { ...rec, exclude })],
  payers: [() => rankRollups(store, pay), () => rankRollups(store, { ...pay, exclude })],
  metrics: [() => aggregateMetrics(store, window, METRICS_WINDOW), () => aggregateMetrics(store, { ...window, exclude }, METRICS_WINDOW)],
};
const out: Record<string, unknown> = {};
try {
  for (const [name, [without, withIt]] of Object.entries(pairs)) {
    const totals = [(await without()).total, (await withIt()).total];
    const ms: [number[], number[]] = [[], []];
    for (let i = 0; i < runs; i++)
      for (const [k, f] of [without, withIt].entries()) {
        const t0 = performance.now();
        await f();
        ms[k].push(performance.now() - t0);
      }
    const [a, b] = ms.map((xs) => ({ p50: pct(xs, 50), p99: pct(xs, 99) }));
    out[name] = {
      without: a,
      with: b,
      ratio: { p50: Math.round((b.p50 / a.p50) * 100) / 100, p99: Math.round((b.p99 / a.p99) * 100) / 100 },
      totals,
    };
  }
} finally {
  await store.close();
}
console.log(JSON.stringify({ at: new Date().toISOString(), runs, loadavg: loadavg().map((x) => Math.round(x * 10) / 10), out }));
