/**
 * Load measurement shared by every benchmark: autocannon against a URL on loopback, and the bare-route
 * baseline (a Fastify route returning a fixed body of a given size) that each result is compared with.
 */
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

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
  const r = await autocannon({ ...base, duration: opts.duration ?? 8 });
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
  };
}

/**
 * Starts the bare-route baseline: Fastify answering GET /bare with a fixed JSON body of about `bytes` bytes.
 * @returns its URL and a stop function
 */
export async function startBareRoute(bytes: number): Promise<{ url: string; stop: () => Promise<void> }> {
  const app = Fastify({ logger: false });
  const body = JSON.stringify({ pad: 'x'.repeat(Math.max(0, bytes - 10)) });
  app.get('/bare', async (_req, reply) => reply.header('content-type', 'application/json').send(body));
  app.post('/bare', async (_req, reply) => reply.header('content-type', 'application/json').send(body));
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: `${address}/bare`, stop: () => app.close() };
}

/** Peak resident-set growth sampler: call `stop()` to get the max growth in bytes since `start`. */
export function sampleRss(pid = process.pid, everyMs = 20): { stop: () => number } {
  if (pid !== process.pid) throw new Error('only this process is sampled');
  const start = process.memoryUsage().rss;
  let peak = start;
  const t = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), everyMs);
  return { stop: () => (clearInterval(t), peak - start) };
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
      .map((r) => `| ${r.name} | ${r.req_per_s} | ${(r.req_per_s / baseline.req_per_s).toFixed(2)} | ${r.p50_ms} | ${r.p99_ms} | ${r.non2xx} | ${r.errors} |`)
      .join('\n')
  );
}
