/**
 * A bystander under an MCP batch flood: one client (its own loopback address, 127.0.0.2) keeps 20 JSON-RPC batches
 * of 100 `tools/call` in flight against `paywatch serve` with its default limits, while a bystander (127.0.0.1)
 * sends `GET /api/providers?limit=1` one after another (4 per second at most, within its own limit); the bystander's p50/p99 with the flood beside the same
 * bystander alone (the reference, same run, same server). Also counts the flood's answers by status and the tool
 * calls it got answered per second. Every message of a batch counts against its client's limit, and tool calls
 * take the heavy-read budget like their HTTP twins, so the flood is soon refused (429) and the bystander stays near
 * its reference. Results: bench/results/mcp-flood.{json,md}.
 * Run: node bin/run-ts.js bench/mcp-flood.ts [--duration S] [--batches N] [--batch-size N] [--rows N] [--providers N]
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../src/chain/anvil.js';
import { seedStore } from '../src/seed/chain.js';
import { seedIntel } from '../src/seed/intel.js';
import { openStore } from '../src/store/db.js';
import { spawnServer, writeResults } from './lib/load.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '20' },
    batches: { type: 'string', default: '20' },
    'batch-size': { type: 'string', default: '100' },
    rows: { type: 'string', default: '20000' },
    providers: { type: 'string', default: '200' },
  },
});
const DURATION_MS = Number(values.duration) * 1000;
const BATCHES = Number(values.batches);
const BATCH_SIZE = Number(values['batch-size']);
const ROWS = Number(values.rows);
const PROVIDERS = Number(values.providers);
/** One bystander request per PACE_MS at most (4 per second). */
const PACE_MS = 250;

async function seeded(): Promise<string> {
  mkdirSync('bench/tmp', { recursive: true });
  const file = `bench/tmp/mcp-flood-${ROWS}-${PROVIDERS}.sqlite`;
  const fresh = !existsSync(file);
  const store = await openStore(`sqlite:${file}`);
  if (fresh) {
    await seedStore(store, { count: ROWS });
    await seedIntel(store, { providers: PROVIDERS });
  }
  await store.close();
  return `sqlite:${resolve(file)}`;
}

/**
 * The flood, in its own process (so its event loop is not the bystander's): `batches` loops, each POSTing `body`
 * from 127.0.0.2 again as soon as the last answer is read, for `ms`; prints {statuses, answered} as JSON at the end.
 */
const FLOOD_JS = `
const http = require('node:http');
const [url, body, batches, ms, size] = [process.argv[1], process.argv[2], Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5])];
const statuses = {}; let answered = 0; const end = Date.now() + ms;
const once = () => new Promise((done) => {
  const req = http.request(url, { method: 'POST', localAddress: '127.0.0.2', headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
    res.resume(); res.on('end', () => done(res.statusCode)); res.on('error', () => done(-1));
  });
  req.on('error', () => done(-1)); req.end(body);
});
Promise.all(Array.from({ length: batches }, async () => {
  while (Date.now() < end) { const s = await once(); statuses[s] = (statuses[s] ?? 0) + 1; if (s === 200) answered += size; }
})).then(() => process.stdout.write(JSON.stringify({ statuses, answered })));
`;

/** Runs the flood process for `ms`; resolves with its answer counts. */
function flood(url: string, body: string, ms: number): Promise<{ statuses: Record<string, number>; answered: number }> {
  const child = spawn(process.execPath, ['-e', FLOOD_JS, url, body, String(BATCHES), String(ms), String(BATCH_SIZE)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  return new Promise((done, fail) =>
    child.on('exit', (code) => (code === 0 ? done(JSON.parse(out)) : fail(new Error(`flood exited ${code}`)))),
  );
}

/** The bystander: sequential GETs for `ms`; latencies in ms and statuses. */
async function bystander(url: string, ms: number): Promise<{ n: number; p50_ms: number; p99_ms: number; non200: number }> {
  const times: number[] = [];
  let non200 = 0;
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const t0 = performance.now();
    const r = await fetch(url);
    await r.arrayBuffer();
    times.push(performance.now() - t0);
    if (r.status !== 200) non200++;
    // Paced within the default 600 requests per minute per client, warm-up, reference and flood phases together.
    await new Promise((res) => setTimeout(res, Math.max(0, PACE_MS - (performance.now() - t0))));
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Number(times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2));
  return { n: times.length, p50_ms: at(0.5), p99_ms: at(0.99), non200 };
}

/** CPU milliseconds (user + system) `pid` has used so far (/proc/PID/stat, clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

/** `run` with the server's CPU milliseconds per wall second over it. */
async function withCpu<T>(pid: number, run: () => Promise<T>): Promise<T & { server_cpu_ms_per_s: number }> {
  const c0 = cpuMs(pid);
  const t0 = performance.now();
  const r = await run();
  return { ...r, server_cpu_ms_per_s: Math.round(((cpuMs(pid) - c0) / (performance.now() - t0)) * 1000) };
}

const db = await seeded();
const port = await freePort();
const server = await spawnServer([resolve('bin/paywatch.js'), 'serve', '--db', db, '--port', String(port), '--log-level', 'warn'], port, {
  readyPath: '/api/status',
  env: { PAYWATCH_FROM_SOURCE: '1' },
});
const target = `${server.url}/api/providers?limit=1`;
const batch = JSON.stringify(
  Array.from({ length: BATCH_SIZE }, (_, i) => ({
    jsonrpc: '2.0',
    id: i + 1,
    method: 'tools/call',
    params: { name: 'search_providers', arguments: { limit: 1 } },
  })),
);
try {
  await bystander(target, 1000); // warm-up
  const reference = await withCpu(server.pid, () => bystander(target, DURATION_MS));
  const load0 = loadavg()[0];
  const flooding = flood(`${server.url}/api/mcp`, batch, DURATION_MS + 1000);
  await new Promise((r) => setTimeout(r, 500)); // the flood under way first
  const t0 = performance.now();
  const flooded = await withCpu(server.pid, () => bystander(target, DURATION_MS));
  const floodSeconds = (performance.now() - t0) / 1000 + 1;
  const { statuses, answered: answeredCalls } = await flooding;
  const load1 = loadavg()[0];
  const COMMAND = ['node bin/run-ts.js bench/mcp-flood.ts', ...process.argv.slice(2)].join(' ');
  const byStatus = statuses;
  const md = [
    '# MCP batch flood: a bystander beside it',
    '',
    `Command: \`${COMMAND}\`. \`paywatch serve\` with its default limits over SQLite (${ROWS} synthetic observations, ${PROVIDERS} providers). Flood: one client (127.0.0.2, its own process) with ${BATCHES} batches of ${BATCH_SIZE} \`tools/call\` (search_providers) always in flight; bystander (127.0.0.1): sequential \`GET /api/providers?limit=1\` at most 4 per second (within its 600/min limit), ${DURATION_MS / 1000} s alone (reference) then ${DURATION_MS / 1000} s beside the flood. Load average ${load0.toFixed(2)} → ${load1.toFixed(2)} (2 cores shared with other work). Node ${process.version}, ${new Date().toISOString()}.`,
    '',
    '| bystander | requests | p50 ms | p99 ms | not 200 | server CPU ms per s |',
    '|---|---:|---:|---:|---:|---:|',
    `| alone (reference) | ${reference.n} | ${reference.p50_ms} | ${reference.p99_ms} | ${reference.non200} | ${reference.server_cpu_ms_per_s} |`,
    `| beside the flood | ${flooded.n} | ${flooded.p50_ms} | ${flooded.p99_ms} | ${flooded.non200} | ${flooded.server_cpu_ms_per_s} |`,
    '',
    `Flood answers by HTTP status: ${Object.entries(byStatus)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ')}; tool calls answered: ${answeredCalls} (${(answeredCalls / floodSeconds).toFixed(1)}/s).`,
    '',
  ].join('\n');
  writeResults(
    'mcp-flood',
    { command: COMMAND, reference, flooded, flood_statuses: byStatus, tool_calls_answered: answeredCalls, load: [load0, load1] },
    md,
  );
  process.stdout.write(md);
} finally {
  await server.stop();
}
