/**
 * The user-facing cost of the payer analysis (bench/trust-payers.ts): wall time of `POST /v1/check` on the trust
 * listener for the demo x402 v2 service (src/demo/paid-services, on loopback, anvil as RPC) while its payTo is the
 * seeded payTo with its payments, against the same service paying to an address without any. Measured twice: in
 * process (Fastify inject into buildVerifyApp over the seeded store) and over real HTTP against a started
 * `paywatch verify` process on the same store. Milliseconds, p50 / p99 of `runs` sequential checks per case, the
 * two cases interleaved so load drifts hit both alike.
 */
import { freePort, startAnvil } from '../src/chain/anvil.js';
import { startPaidServices } from '../src/demo/paid-services/index.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/store/db.js';
import { buildVerifyApp } from '../src/trust/app.js';
import { issueApiKey } from '../src/trust/keys.js';
import { spawnServer } from './lib/load.js';
import { pct } from './trust-payers-profile.js';

/** One transport's figures: both cases and what the payments add. */
export interface CheckTimes {
  transport: 'inject' | 'http';
  with_payments: { p50: number; p99: number };
  without: { p50: number; p99: number };
  /** p50 / p99 with − without. */
  added: { p50: number; p99: number };
}

const SERVICE = 'x402-v2-weather';

/**
 * Times checks of the demo service with its payTo at `payTo` vs at an address with no payments, over store `db`.
 * @throws when a check does not answer 200
 */
export async function checkTimes(db: string, payTo: string, runs: number): Promise<CheckTimes[]> {
  const anvil = await startAnvil();
  const paid = await startPaidServices({ rpcUrl: anvil.rpcUrl });
  const target = paid.services.find((s) => s.name === SERVICE)!.url;
  const empty = '0x00000000000000000000000000000000000e4747';
  const out: CheckTimes[] = [];
  try {
    const store = await openStore(db);
    const { key } = await issueApiKey(store, 'paid', 'operator', 'bench');
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
    const body = JSON.stringify({ url: target });
    const time = async (check: () => Promise<number>) => {
      const ms = { with: [] as number[], without: [] as number[] };
      for (let i = 0; i < runs + 1; i++)
        for (const c of ['with', 'without'] as const) {
          paid.setPayTo(SERVICE, c === 'with' ? payTo : empty);
          const t0 = performance.now();
          const status = await check();
          if (status !== 200) throw new Error(`POST /v1/check answered ${status}`);
          if (i > 0) ms[c].push(performance.now() - t0); // the first of each is warm-up
        }
      return ms;
    };
    const figures = (transport: CheckTimes['transport'], ms: { with: number[]; without: number[] }): CheckTimes => {
      const w = { p50: pct(ms.with, 50), p99: pct(ms.with, 99) };
      const wo = { p50: pct(ms.without, 50), p99: pct(ms.without, 99) };
      return {
        transport,
        with_payments: w,
        without: wo,
        added: { p50: Math.round((w.p50 - wo.p50) * 10) / 10, p99: Math.round((w.p99 - wo.p99) * 10) / 10 },
      };
    };
    const config = loadConfig(
      { db, logLevel: 'silent', verifyAllowLoopback: '1', rpcUrl: anvil.rpcUrl, rateLimitPerMinute: '100000000' },
      {},
    );
    const app = await buildVerifyApp({ store, config, components: new Map() }, { logger: false });
    try {
      out.push(
        figures(
          'inject',
          await time(async () => (await app.inject({ method: 'POST', url: '/v1/check', headers, payload: body })).statusCode),
        ),
      );
    } finally {
      await app.close();
      await store.close();
    }
    const port = await freePort();
    const server = await spawnServer(['bin/paywatch.js', 'verify', '--verify-port', String(port)], port, {
      readyPath: '/v1/openapi.json',
      env: {
        PAYWATCH_DB: db,
        PAYWATCH_VERIFY_ALLOW_LOOPBACK: '1',
        PAYWATCH_RATE_LIMIT: '100000000',
        PAYWATCH_RPC_URL: anvil.rpcUrl,
        PAYWATCH_LOG_LEVEL: 'warn',
      },
    });
    try {
      out.push(figures('http', await time(async () => (await fetch(`${server.url}/v1/check`, { method: 'POST', headers, body })).status)));
    } finally {
      await server.stop();
    }
  } finally {
    await paid.stop();
    await anvil.stop();
  }
  return out;
}
