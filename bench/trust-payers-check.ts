/**
 * The user-facing cost of the payer analysis (bench/trust-payers.ts): wall time of `POST /v1/check` on the trust
 * listener for the demo x402 v2 service (src/demo/paid-services, on loopback, anvil as RPC) while its payTo is the
 * seeded payTo with its payments, against the same service paying to an address without any. Measured twice: in
 * process (Fastify inject into buildVerifyApp over the seeded store) and over real HTTP against a started
 * `paywatch verify` process on the same store. Milliseconds, p50 / p99 of `runs` sequential checks per case after
 * WARM_UP uncounted rounds, the two cases interleaved so load drifts hit both alike.
 */
import { freePort, startAnvil } from '../src/chain/anvil.js';
import { startPaidServices } from '../src/demo/paid-services/index.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/store/db.js';
import { buildVerifyApp } from '../src/trust/app.js';
import { issueApiKey } from '../src/trust/keys.js';
import { spawnServer } from './lib/load.js';
import { processCpuMs } from './lib/cpu.js';
import { pct } from './trust-payers-profile.js';

/** One transport's figures: both cases and what the payments add. */
export interface CheckTimes {
  transport: 'inject' | 'http';
  /** The first check with payments of this transport (a started server's first: code not yet optimised, caches cold), ms. */
  first_with_payments: { wall: number; cpu: number };
  with_payments: { p50: number; p99: number };
  without: { p50: number; p99: number };
  /** p50 / p99 with − without. */
  added: { p50: number; p99: number };
  /**
   * CPU ms per check of the process doing the check's work (inject: this one, which also serves the demo target;
   * http: the `paywatch verify` process, all threads), p50 / p99 per case and with − without. PostgreSQL's server not counted.
   */
  cpu: { with_payments: { p50: number; p99: number }; without: { p50: number; p99: number }; added: { p50: number; p99: number } };
}

const SERVICE = 'x402-v2-weather';
/**
 * Uncounted rounds (one check with and one without payments each) before the counted ones: a started server's first
 * checks run unoptimised code over cold caches (hundreds of ms of CPU for the first few; reported apart as
 * first_with_payments), which with one warm-up round made the p99 over HTTP, whose server had just started, a
 * start-up figure, while the in-process app ran after analysePayers had already been timed in the same process.
 */
const WARM_UP = 5;

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
    type Times = { with: number[]; without: number[]; cpuWith: number[]; cpuWithout: number[]; first?: { wall: number; cpu: number } };
    const time = async (check: () => Promise<number>, cpuMs: () => number): Promise<Times> => {
      const ms: Times = { with: [], without: [], cpuWith: [], cpuWithout: [] };
      for (let i = 0; i < runs + WARM_UP; i++)
        for (const c of ['with', 'without'] as const) {
          paid.setPayTo(SERVICE, c === 'with' ? payTo : empty);
          const c0 = cpuMs();
          const t0 = performance.now();
          const status = await check();
          const wall = performance.now() - t0;
          if (status !== 200) throw new Error(`POST /v1/check answered ${status}`);
          if (i === 0 && c === 'with') ms.first = { wall, cpu: cpuMs() - c0 };
          if (i < WARM_UP) continue;
          ms[c].push(wall);
          ms[c === 'with' ? 'cpuWith' : 'cpuWithout'].push(cpuMs() - c0);
        }
      return ms;
    };
    const both = (a: number[], b: number[]) => {
      const w = { p50: pct(a, 50), p99: pct(a, 99) };
      const wo = { p50: pct(b, 50), p99: pct(b, 99) };
      return { w, wo, added: { p50: Math.round((w.p50 - wo.p50) * 10) / 10, p99: Math.round((w.p99 - wo.p99) * 10) / 10 } };
    };
    const figures = (transport: CheckTimes['transport'], ms: Times): CheckTimes => {
      const wall = both(ms.with, ms.without);
      const cpu = both(ms.cpuWith, ms.cpuWithout);
      const r1 = (x: number) => Math.round(x * 10) / 10;
      return {
        transport,
        first_with_payments: { wall: r1(ms.first!.wall), cpu: r1(ms.first!.cpu) },
        with_payments: wall.w,
        without: wall.wo,
        added: wall.added,
        cpu: { with_payments: cpu.w, without: cpu.wo, added: cpu.added },
      };
    };
    const ownCpuMs = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
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
          await time(async () => (await app.inject({ method: 'POST', url: '/v1/check', headers, payload: body })).statusCode, ownCpuMs),
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
      const serverCpuMs = () => processCpuMs(server.pid) ?? Number.NaN;
      const post = async () => {
        const r = await fetch(`${server.url}/v1/check`, { method: 'POST', headers, body });
        await r.arrayBuffer();
        return r.status;
      };
      out.push(figures('http', await time(post, serverCpuMs)));
    } finally {
      await server.stop();
    }
  } finally {
    await paid.stop();
    await anvil.stop();
  }
  return out;
}
