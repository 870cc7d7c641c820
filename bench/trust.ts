/**
 * Trust-check benchmark: POST /v1/check per second and p50/p99 latency against a local honest
 * target (the demo's x402 v2 service, real @x402/hono), with the target's own direct request rate measured in
 * the same run; the overhead of one check over one direct fetch of the target is reported. The verify service
 * runs as `paywatch verify` in its own process on SQLite, with a paid-plan key (metered, no quota), loopback
 * allowed, and a local anvil as its RPC. Results: bench/results/trust.{json,md}.
 * Run: node bin/run-ts.js bench/trust.ts [--duration S] [--connections N]
 * With --payers: the payer analysis a check adds over a large store instead (./trust-payers.ts):
 * node bin/run-ts.js bench/trust.ts --payers [--count 1000000] [--target 50000] [--payer-count 5000] [--runs 50] [--dialect both] [--reuse] [--name STORE]
 */
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { openStore } from '../src/store/db.js';
import { freePort, startAnvil } from '../src/chain/anvil.js';
import { startPaidServices } from '../src/demo/paid-services/index.js';
import { issueApiKey } from '../src/trust/keys.js';
import { measure, spawnServer, writeResults } from './lib/load.js';
import { payerBench } from './trust-payers.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '10' },
    payers: { type: 'boolean', default: false },
    count: { type: 'string', default: '1000000' },
    target: { type: 'string', default: '50000' },
    'payer-count': { type: 'string', default: '5000' },
    runs: { type: 'string', default: '50' },
    dialect: { type: 'string', default: 'both' },
    reuse: { type: 'boolean', default: false },
    name: { type: 'string' },
  },
});
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);

if (values.payers) {
  await payerBench({
    count: Number(values.count),
    target: Number(values.target),
    payers: Number(values['payer-count']),
    runs: Number(values.runs),
    dialect: values.dialect,
    reuse: values.reuse,
    name: values.name,
    argv: process.argv
      .slice(2)
      .filter((a) => a !== '--payers')
      .join(' '),
  });
  process.exit(0);
}

mkdirSync('bench/tmp', { recursive: true });
const file = `bench/tmp/trust-${randomBytes(4).toString('hex')}.sqlite`;
const anvil = await startAnvil();
const paid = await startPaidServices({ rpcUrl: anvil.rpcUrl });
const target = paid.services.find((s) => s.name === 'x402-v2-weather')!.url;
const store = await openStore(`sqlite:${file}`);
const { key } = await issueApiKey(store, 'paid', 'operator', 'bench');
await store.close();
const port = await freePort();
const server = await spawnServer(['bin/paywatch.js', 'verify', '--verify-port', String(port)], port, {
  readyPath: '/v1/openapi.json',
  env: {
    PAYWATCH_DB: `sqlite:${file}`,
    PAYWATCH_VERIFY_ALLOW_LOOPBACK: '1',
    PAYWATCH_RATE_LIMIT: '100000000',
    PAYWATCH_RPC_URL: anvil.rpcUrl,
    PAYWATCH_LOG_LEVEL: 'warn',
  },
});
try {
  const direct = await measure('direct GET of the target (402 challenge)', target, { duration: DURATION, connections: CONNECTIONS });
  const check = await measure('POST /v1/check of the target', `${server.url}/v1/check`, {
    duration: DURATION,
    connections: CONNECTIONS,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ url: target }),
  });
  const overhead = {
    p50_ms: Number((check.p50_ms - direct.p50_ms).toFixed(2)),
    p99_ms: Number((check.p99_ms - direct.p99_ms).toFixed(2)),
    req_per_s_ratio: Number((check.req_per_s / direct.req_per_s).toFixed(3)),
  };
  const at = new Date().toISOString();
  const data = { at, duration_s: DURATION, connections: CONNECTIONS, store: 'sqlite', target, direct, check, overhead };
  const md = [
    `# Trust-check benchmark (${at})`,
    '',
    `\`node bin/run-ts.js bench/trust.ts --duration ${DURATION} --connections ${CONNECTIONS}\`: \`paywatch verify\` (own process, SQLite, paid key) checking the demo x402 v2 service on loopback; the direct row is autocannon GETting the same target in the same run (its 402 answers are counted as non-2xx by design).`,
    '',
    '| case | req/s | p50 ms | p99 ms | non-2xx | errors |',
    '|---|---:|---:|---:|---:|---:|',
    ...[direct, check].map((r) => `| ${r.name} | ${r.req_per_s} | ${r.p50_ms} | ${r.p99_ms} | ${r.non2xx} | ${r.errors} |`),
    '',
    `Overhead of one check over one direct fetch: p50 +${overhead.p50_ms} ms, p99 +${overhead.p99_ms} ms; checks run at ${overhead.req_per_s_ratio} × the direct request rate. A check does one GET of the URL, one GET of /.well-known/x402, store reads (listing, history, chain observations), an evidence archive (gzip + sha256) and two writes (the check record, the metering counter).`,
  ].join('\n');
  writeResults('trust', data, md);
  console.log(md);
} finally {
  await server.stop();
  await paid.stop();
  await anvil.stop();
  for (const s of ['', '-wal', '-shm']) rmSync(file + s, { force: true });
}
