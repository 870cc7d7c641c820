/**
 * Replicas behind HAProxy (docs/deploy.md): `paywatch serve` on one PostgreSQL store of 100,000 observations,
 * served directly, through HAProxy with 1 replica and with 2 replicas, each beside the bare Fastify route served
 * the same way in the same run. Cases: the default list (a remembered page) and uncached filtered lists (an
 * asset filter with a distinct `until` per request, so every request counts and pages). Replicas keep their
 * rate-limit counters in Redis (PAYWATCH_REDIS_URL, default the machine's redis://127.0.0.1:6379), with limits
 * high enough never to refuse, so every request pays its Redis round trip; the same replica with its limits in
 * process (no Redis), served directly, is the reference.
 * Usage: node bin/run-ts.js bench/replicas.ts [--count N] [--duration S]
 * Writes bench/results/replicas.{json,md}. The figure to hold: through HAProxy with 1 replica (limits in Redis),
 * req/s ≥ 0.8 × the replica with its limits in process served directly (the load balancer and the shared Redis
 * together cost under 20%), for the default list and for filtered lists.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { redactUrl } from '../src/net/redact-url.js';
import { parseArgs } from 'node:util';
import { freePort } from '../src/chain/anvil.js';
import { haproxyConfig } from '../examples/deploy/haproxy.mjs';
import { ensureNodeFlags } from './lib/node-flags.js';
import { measure, servePaywatch, startBareRoute, writeResults, type ChildServer, type LoadOptions, type LoadResult } from './lib/load.js';
import { seededStore } from './lib/seeded.js';

ensureNodeFlags(import.meta.url);
const { values } = parseArgs({ options: { count: { type: 'string', default: '100000' }, duration: { type: 'string', default: '8' } } });
const count = Number(values.count);
const duration = Number(values.duration);
const HAPROXY = spawnSync('sh', ['-c', 'command -v haproxy']).stdout.toString().trim();
if (!HAPROXY) {
  process.stderr.write('bench/replicas.ts needs haproxy (apt-get install -y haproxy)\n');
  process.exit(2);
}
const REDIS_URL = process.env.PAYWATCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const dir = mkdtempSync(join(tmpdir(), 'paywatch-replicas-'));

/** Starts HAProxy in front of `ports`; @returns its base URL and a stop function. */
async function haproxy(ports: number[], checkPath = '/readyz'): Promise<{ url: string; stop: () => void }> {
  const bind = await freePort();
  const cfg = join(dir, `haproxy-${bind}.cfg`);
  writeFileSync(cfg, haproxyConfig(bind, ports, { checkPath }));
  const child: ChildProcess = spawn(HAPROXY, ['-db', '-f', cfg], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${bind}`;
  for (let i = 0; i < 200; i++) {
    if (
      await fetch(`${url}${checkPath}`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { url, stop: () => child.kill('SIGTERM') };
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error('haproxy did not answer');
}

const portOf = (s: ChildServer) => Number(new URL(s.url).port);
/** Uncached filtered lists: a distinct `until` (UTC Unix seconds) per request, counting down from the seed's end. */
function filtered(): LoadOptions {
  let until = 1_767_225_600 + 10 * 86_400;
  return {
    duration,
    requests: [{ setupRequest: (req) => ({ ...req, path: `/api/transactions?asset=USDC.e&limit=30&until=${until--}` }) }],
  };
}

const { db, seeded_s } = await seededStore('postgres', count);
const env = { PAYWATCH_REDIS_URL: REDIS_URL, PAYWATCH_TRUST_PROXY: '127.0.0.1' };
const a = await servePaywatch(db, env);
const b = await servePaywatch(db, env);
// The same replica with its limits in process (no Redis): the reference for what Redis costs.
const solo = await servePaywatch(db, { PAYWATCH_TRUST_PROXY: '127.0.0.1' });
const sample = await (await fetch(`${a.url}/api/transactions`)).text();
const bare = await startBareRoute(sample.length);
const bareBehind = await haproxy([portOf(bare)], '/bare');
const one = await haproxy([portOf(a)]);
const two = await haproxy([portOf(a), portOf(b)]);
const results: LoadResult[] = [];
const run = async (name: string, url: string, opts: LoadOptions = { duration }) => {
  const r = await measure(name, url, opts);
  results.push(r);
  process.stderr.write(`${name}: ${r.req_per_s} req/s, p99 ${r.p99_ms} ms, non-2xx ${r.non2xx}\n`);
  return r;
};
try {
  const bareDirect = await run('bare route, direct', bare.bareUrl);
  const bareProxied = await run('bare route, through HAProxy', `${bareBehind.url}/bare`);
  const listSolo = await run('default list, 1 replica direct, limits in process (no Redis)', `${solo.url}/api/transactions`);
  const listDirect = await run('default list, 1 replica direct', `${a.url}/api/transactions`);
  const listOne = await run('default list, HAProxy → 1 replica', `${one.url}/api/transactions`);
  const listTwo = await run('default list, HAProxy → 2 replicas', `${two.url}/api/transactions`);
  const filtSolo = await run(
    'filtered list (uncached), 1 replica direct, limits in process (no Redis)',
    `${solo.url}/api/transactions`,
    filtered(),
  );
  const filtDirect = await run('filtered list (uncached), 1 replica direct', `${a.url}/api/transactions`, filtered());
  const filtOne = await run('filtered list (uncached), HAProxy → 1 replica', `${one.url}/api/transactions`, filtered());
  const filtTwo = await run('filtered list (uncached), HAProxy → 2 replicas', `${two.url}/api/transactions`, filtered());
  const ratio = (x: LoadResult, y: LoadResult) => Number((x.req_per_s / y.req_per_s).toFixed(2));
  const summary = {
    bare_proxied_over_direct: ratio(bareProxied, bareDirect),
    default_list_one_proxied_over_direct: ratio(listOne, listDirect),
    default_list_redis_over_in_process: ratio(listDirect, listSolo),
    default_list_one_proxied_over_in_process_direct: ratio(listOne, listSolo),
    default_list_two_over_one: ratio(listTwo, listOne),
    filtered_one_proxied_over_direct: ratio(filtOne, filtDirect),
    filtered_redis_over_in_process: ratio(filtDirect, filtSolo),
    filtered_one_proxied_over_in_process_direct: ratio(filtOne, filtSolo),
    filtered_two_over_one: ratio(filtTwo, filtOne),
  };
  const target = Math.min(summary.default_list_one_proxied_over_in_process_direct, summary.filtered_one_proxied_over_in_process_direct);
  const md = [
    '# Replicas behind HAProxy',
    '',
    `Command: \`node bin/run-ts.js bench/replicas.ts --count ${count} --duration ${duration}\`. PostgreSQL store of ${count} observations${seeded_s === null ? ' (reused)' : ` (seeded in ${seeded_s.toFixed(0)} s)`}; \`paywatch serve\` replicas in their own processes with \`PAYWATCH_REDIS_URL=${REDIS_URL}\` and \`--trust-proxy 127.0.0.1\`; HAProxy ${spawnSync(
      HAPROXY,
      ['-v'],
    )
      .stdout.toString()
      .split('\n')[0]
      .replace(
        /^HAProxy version /,
        '',
      )} (Debian) round robin with /readyz checks (examples/deploy/haproxy.mjs); autocannon, 10 connections, ${duration} s per case after 1 s of warm-up, on the same ${cpus().length} cores as everything else. Run at ${new Date().toISOString()}; load average before ${loadavg()[0].toFixed(2)}.`,
    '',
    '| case | req/s | p50 ms | p99 ms | non-2xx | errors |',
    '|---|---:|---:|---:|---:|---:|',
    ...results.map((r) => `| ${r.name} | ${r.req_per_s} | ${r.p50_ms} | ${r.p99_ms} | ${r.non2xx} | ${r.errors} |`),
    '',
    '| ratio | value |',
    '|---|---:|',
    ...Object.entries(summary).map(([k, v]) => `| ${k.replaceAll('_', ' ')} | ${v} |`),
    '',
    `Target: through HAProxy with 1 replica (limits in Redis) ≥ 0.8 × the replica with its limits in process served directly (the load balancer and the shared Redis together cost under 20%), the lower of the default and filtered lists: ${target} — ${target >= 0.8 ? 'met' : 'NOT met'}. Two replicas on these 2 cores share the cores with HAProxy, PostgreSQL, Redis and the load generator, so they are not expected to double throughput.`,
  ].join('\n');
  writeResults('replicas', { count, duration, redis: redactUrl(REDIS_URL), results, summary, target_met: target >= 0.8 }, md);
  process.stdout.write(`${md}\n`);
} finally {
  for (const p of [one, two, bareBehind]) p.stop();
  await Promise.all([a.stop(), b.stop(), solo.stop(), bare.stop()]);
  rmSync(dir, { recursive: true, force: true });
}
