/**
 * Per-read profile of the payer analysis over any store (./trust-payers-profile.ts), e.g. one still being seeded:
 * node bin/run-ts.js bench/trust-payers-steps.ts DB [NOW_MS] [RUNS]
 * DB: the store (sqlite:bench/tmp/trust_payers_1000000.sqlite); NOW_MS: the check time, Unix milliseconds (default
 * now); RUNS: default 10. Prints the analysis's figures and the steps' p50 / p99 wall ms.
 */
import { openStore } from '../src/store/db.js';
import { hexOf } from '../src/seed/chain.js';
import { analysePayers } from '../src/trust/payers.js';
import { profileSteps } from './trust-payers-profile.js';

const store = await openStore(process.argv[2]);
try {
  const payTo = hexOf('payto:target', 20);
  const now = new Date(Number(process.argv[3] ?? Date.now()));
  const a = await analysePayers(store, payTo, { now });
  console.log(JSON.stringify({ payments: a.payments, distinct_payers: a.distinct_payers, payers_examined: a.payers_examined }));
  console.log(JSON.stringify(await profileSteps(store, payTo, now, Number(process.argv[4] ?? 10))));
} finally {
  await store.close();
}
