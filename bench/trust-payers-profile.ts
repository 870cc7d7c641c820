/**
 * Where the payer analysis spends its time (bench/trust-payers.ts --profile): each store read of analysePayers
 * (src/trust/payers.ts) timed alone, in the order the analysis issues them, over `runs` runs; what the total adds
 * beyond them is JavaScript. Wall milliseconds, p50 / p99.
 */
import type { Store } from '../src/store/db.js';
import { coveredWindow } from '../src/store/chain/covered-window.js';
import { dayWindow } from '../src/store/chain/rankings.js';
import { firstInflows, PAYERS_EXAMINED_MAX, paymentTx, paymentsInto } from '../src/store/trust/payers.js';
import { analysePayers, PAYER_WINDOW_DAYS } from '../src/trust/payers.js';

/** p-th percentile (nearest rank) of `xs`, ms rounded to 0.1. */
export const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 10) / 10;
};

async function timed<T>(into: number[], f: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const r = await f();
  into.push(performance.now() - t0);
  return r;
}

/**
 * Per-step wall time of the analysis of `payTo` at `now`.
 * @returns step name → { p50, p99 } ms
 */
export async function profileSteps(
  store: Store,
  payTo: string,
  now: Date,
  runs: number,
): Promise<Record<string, { p50: number; p99: number }>> {
  const nowUnix = Math.floor(now.getTime() / 1000);
  const { since, until } = dayWindow(nowUnix - PAYER_WINDOW_DAYS * 86_400, nowUnix);
  const a = await analysePayers(store, payTo, { now });
  const steps: Record<string, number[]> = { total: [], payments_into: [], covered_window: [], first_inflows: [], hashes: [] };
  const contracts = [...store.tokenList.tokens.keys()];
  for (let i = 0; i < runs; i++) {
    await timed(steps.total, () => analysePayers(store, payTo, { now }));
    const rows = await timed(steps.payments_into, () => paymentsInto(store, payTo, since, until, contracts));
    await timed(steps.covered_window, () => coveredWindow(store.db, since, until));
    const payers = rows
      .filter((r) => r.self === 0)
      .slice(0, PAYERS_EXAMINED_MAX)
      .map((r) => r.payer);
    await timed(steps.first_inflows, () => firstInflows(store, payers, since, until, contracts));
    await timed(steps.hashes, () => Promise.all(a.funding_links.map((l) => paymentTx(store, l.payer, l.funder, l.time, contracts))));
  }
  return Object.fromEntries(Object.entries(steps).map(([k, xs]) => [k, { p50: pct(xs, 50), p99: pct(xs, 99) }]));
}
