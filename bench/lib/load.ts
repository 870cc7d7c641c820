/**
 * Load measurement shared by every benchmark: autocannon against a URL on loopback, and the bare-route
 * baseline (a Fastify route returning a fixed body of a given size) that each result is compared with.
 */
import { NODE_FLAGS } from '../../src/cli/node-flags.js';
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { freePort } from '../../src/chain/anvil.js';
import { dirname } from 'node:path';
import { processCpuSeconds } from './cpu.js';

export interface LoadResult {
  name: string;
  url: string;
  /** Mean requests per second over the run. */
  req_per_s: number;
  /** Latency percentiles in milliseconds. */
  p50_ms: number;
  p99_ms: number;
  /** Responses by status class, to show the run measured successes. */
  non2xx: number;
  errors: number;
  /** Mean response size in bytes. */
  bytes_per_req: number;
  duration_s: number;
  connections: number;
  /** CPU ms (user + system, all threads) the server process `cpuPid` spent per request over the run (load-independent). */
  server_cpu_ms_per_req?: number | null;
}

export interface LoadOptions {
  /** Seconds to run (default 8). */
  duration?: number;
  /** Concurrent connections (default 10). */
  connections?: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Per-request bodies/headers (autocannon `requests`). */
  requests?: autocannon.Request[];
  /** The server's process id: its CPU time per request over the run is reported (server_cpu_ms_per_req). */
  cpuPid?: number;
}

/**
 * Runs autocannon against `url` and returns req/s and p50/p99 latency (milliseconds).
 * A short warm-up (1 s) runs first and is discarded.
 */
export async function measure(name: string, url: string, opts: LoadOptions = {}): Promise<LoadResult> {
  const base = {
    url,
    connections: opts.connections ?? 10,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
    requests: opts.requests,
  };
  await autocannon({ ...base, duration: 1 });
  const cpu0 = opts.cpuPid === undefined ? null : processCpuSeconds(opts.cpuPid);
  const r = await autocannon({ ...base, duration: opts.duration ?? 8 });
  const cpu1 = opts.cpuPid === undefined ? null : processCpuSeconds(opts.cpuPid);
  const served = r.requests.total;
  return {
    name,
    url,
    req_per_s: Math.round(r.requests.average),
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    bytes_per_req: r.requests.total ? Math.round(r.throughput.total / r.requests.total) : 0,
    duration_s: r.duration,
    connections: base.connections,
    ...(opts.cpuPid === undefined
      ? {}
      : { server_cpu_ms_per_req: cpu0 === null || cpu1 === null || !served ? null : Number((((cpu1 - cpu0) * 1000) / served).toFixed(3)) }),
  };
}

/** A server running as a child process (so load generator and server do not share an event loop). */
export interface ChildServer {
  /** Base URL, http://127.0.0.1:PORT */
  url: string;
  pid: number;
  /** Resident set size of the child now, in bytes (from /proc). */
  rss(): number;
  stop(): Promise<void>;
}

/**
 * Spawns `node ARGS…` and waits until GET `readyPath` on `port` answers (any status), at most `timeoutMs`.
 * @throws Error with the child's last stderr when it exits or does not answer in time
 */
export async function spawnServer(
  args: string[],
  port: number,
  opts: { readyPath?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<ChildServer> {
  // BENCH_CPU_PROF=DIR writes each child server's V8 CPU profile into DIR when it stops (node --cpu-prof).
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // With paywatch's V8 flags (src/cli/node-flags.ts), so servers are measured as `npx paywatch` runs them (the
  // baselines too, for a like-for-like comparison).
  const child = spawn(process.execPath, [...NODE_FLAGS, ...prof, ...args], {
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}): ${stderr.trim()}`);
    try {
      await fetch(url + (opts.readyPath ?? '/'));
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`server did not answer on ${url}: ${stderr.trim()}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    pid: child.pid!,
    rss: () => {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      return m ? Number(m[1]) * 1024 : 0;
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 3000);
      await done;
      clearTimeout(t);
    },
  };
}

/**
 * Runs `paywatch serve` over store `db` in its own process on a free port, without rate limits or the per-client
 * budget of expensive requests (a load generator is one client with many connections; `env` adds to it).
 * @param bin the CLI to start (another checkout's built `bin/paywatch.js` for a before/after comparison)
 */
export async function servePaywatch(db: string, env: NodeJS.ProcessEnv = {}, bin = 'bin/paywatch.js'): Promise<ChildServer> {
  const port = await freePort();
  return spawnServer([bin, 'serve', '--db', db, '--port', String(port), '--log-level', 'warn'], port, {
    readyPath: '/api/status',
    env: { PAYWATCH_RATE_LIMIT: '100000000', PAYWATCH_HEAVY_PER_CLIENT: '64', ...env },
  });
}

/**
 * Starts the bare-route baseline in its own process: Fastify answering /bare with a fixed JSON body of about
 * `bytes` bytes (the same size as the responses it is compared with).
 */
export async function startBareRoute(bytes: number): Promise<ChildServer & { bareUrl: string }> {
  const port = await freePort();
  const s = await spawnServer(['bin/run-ts.js', 'bench/lib/bare-server.ts', String(bytes), String(port)], port, { readyPath: '/bare' });
  return { ...s, bareUrl: `${s.url}/bare` };
}

/** Samples a child server's RSS every `everyMs` ms; `stop()` returns the peak growth in bytes over the start. */
export function sampleChildRss(server: ChildServer, everyMs = 20): { stop: () => number } {
  const start = server.rss();
  let peak = start;
  const t = setInterval(() => {
    peak = Math.max(peak, server.rss());
  }, everyMs);
  return {
    stop: () => {
      clearInterval(t);
      return peak - start;
    },
  };
}

/**
 * Runs `measure` while sampling `server`'s RSS (the export's memory bound is measured this way).
 * @returns the load result and the server's peak RSS growth over its start, in MB (one decimal)
 */
export async function measureWithRss(
  server: ChildServer,
  name: string,
  url: string,
  opts: LoadOptions = {},
): Promise<LoadResult & { peak_rss_growth_mb: number }> {
  const rss = sampleChildRss(server);
  const result = await measure(name, url, opts);
  return { ...result, peak_rss_growth_mb: Number((rss.stop() / 2 ** 20).toFixed(1)) };
}

/**
 * The CSV export's memory, measured alike for every Accept-Encoding: a fresh `paywatch serve` over `db`, warmed up
 * (3 s of 100-row pages at 10 connections, then one export with `headers`), then sampled under 2 concurrent
 * exports for `duration` s. RSS is a high-water mark and a fresh server grows ~85-115 MB under any sustained load
 * (the young generation filling its semi-spaces), so without the same warm-up that growth would land on whichever
 * case ran first.
 * @returns the export's load result with its peak RSS growth (MB), and the warm-up's own growth (MB)
 */
export async function exportMemory(
  db: string,
  name: string,
  headers: Record<string, string>,
  duration: number,
): Promise<LoadResult & { peak_rss_growth_mb: number; warm_up_rss_growth_mb: number }> {
  const server = await servePaywatch(db);
  try {
    const rss = sampleChildRss(server);
    await measure('warm-up', `${server.url}/api/transactions?limit=100`, { duration: 3 });
    await (await fetch(`${server.url}/api/export`, { headers })).arrayBuffer();
    const warmUp = Number((rss.stop() / 2 ** 20).toFixed(1));
    return {
      ...(await measureWithRss(server, name, `${server.url}/api/export`, { duration, connections: 2, headers })),
      warm_up_rss_growth_mb: warmUp,
    };
  } finally {
    await server.stop();
  }
}

/** Writes `data` as JSON and `markdown` beside it (bench/results/NAME.json and .md). */
export function writeResults(name: string, data: unknown, markdown: string): void {
  const json = `bench/results/${name}.json`;
  mkdirSync(dirname(json), { recursive: true });
  writeFileSync(json, `${JSON.stringify(data, null, 2)}\n`);
  writeFileSync(`bench/results/${name}.md`, markdown.endsWith('\n') ? markdown : `${markdown}\n`);
}

/** A markdown table of load results, with each row's req/s as a share of `baseline`'s. */
export function loadTable(rows: LoadResult[], baseline: LoadResult): string {
  const head = '| case | req/s | share of bare | p50 ms | p99 ms | non-2xx | errors |\n|---|---:|---:|---:|---:|---:|---:|\n';
  return (
    head +
    rows
      .map(
        (r) =>
          `| ${r.name} | ${r.req_per_s} | ${(r.req_per_s / baseline.req_per_s).toFixed(2)} | ${r.p50_ms} | ${r.p99_ms} | ${r.non2xx} | ${r.errors} |`,
      )
      .join('\n')
  );
}
