/**
 * MCP benchmark: MCP `tools/call` requests/s beside its HTTP twin's on the same store, same concurrency, one run
 * each face (search_providers ↔ GET /api/providers, get_service_offers ↔ GET /api/intelligence/offers,
 * search_transactions ↔ GET /api/transactions, default pages) under three Accept-Encodings: none (identity on both
 * faces), `gzip, deflate` and `br, gzip, deflate`, what Node's fetch and so the MCP SDK's client send over http and
 * over https (the twin's remembered gzip or br form; the tool's remembered DEFLATE blocks or brotli opening spliced
 * with the request's id: src/http/spliced-deflate.ts, src/http/spliced-brotli.ts), and the `initialize` + `notifications/initialized` +
 * `tools/list` round trip of a new client (sequential, p50/p99). Each server is `paywatch serve` in its own process
 * (rate limit and heavy budget lifted, as bench/lib/load.ts servePaywatch does); `--before DIR` also runs the same
 * cases against the checkout at DIR (e.g. main) over the same store, so one run gives before and after.
 * Targets (issue: MCP at the speed of its HTTP twin): tools/call ≥ 0.5 × the twin's req/s; init + list p50 ≤ 20 ms.
 * Results: bench/results/mcp.{json,md} (with `--only init`: bench/results/mcp-init.{json,md}).
 * Run: node bin/run-ts.js bench/mcp.ts [--before /work/main] [--only init] [--rows N] [--providers N] [--duration S] [--alternations N] [--connections C] [--rounds N]
 * The seeded store is kept (bench/tmp/mcp-ROWS-PROVIDERS.sqlite) and reused.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { freePort } from '../src/chain/anvil.js';
import { seedStore } from '../src/seed/chain.js';
import { seedIntel } from '../src/seed/intel.js';
import { openStore } from '../src/store/db.js';
import { ownCpuSeconds, processCpuSeconds } from './lib/cpu.js';
import { type ChildServer, type LoadResult, measure, spawnServer, writeResults } from './lib/load.js';

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    rows: { type: 'string', default: '100000' },
    providers: { type: 'string', default: '1000' },
    duration: { type: 'string', default: '4' },
    connections: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '300' },
    alternations: { type: 'string', default: '3' },
    only: { type: 'string' },
  },
});
const ROWS = Number(values.rows);
const PROVIDERS = Number(values.providers);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const ROUNDS = Number(values.rounds);
/** `--only init`: the initialize + tools/list round trip alone (no tools/call cases). */
const ONLY_INIT = values.only === 'init';
if (values.only !== undefined && !ONLY_INIT) throw new Error(`--only takes 'init', not '${values.only}'`);

/** Seconds of load on each face of each case, discarded, before the first case (a fresh server's start-up). */
const WARM_UP_S = 3;

/** Runs per face and case, alternating twin and MCP; the median run (by req/s) is reported. */
const ALTERNATIONS = Number(values.alternations);

/** The median of the runs' server CPU ms per request (null when none was read). */
function medianCpu(runs: LoadResult[]): number | null {
  const xs = runs
    .map((r) => r.server_cpu_ms_per_req)
    .filter((x): x is number => typeof x === 'number')
    .sort((a, b) => a - b);
  return xs.length ? xs[Math.floor(xs.length / 2)] : null;
}

/** The run with the median req/s (its latencies with it). */
function median(runs: LoadResult[]): LoadResult {
  const sorted = [...runs].sort((a, b) => a.req_per_s - b.req_per_s);
  return sorted[Math.floor(sorted.length / 2)];
}

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

/** The store: ROWS synthetic observations and PROVIDERS seeded providers, seeded once. */
async function seeded(): Promise<string> {
  mkdirSync('bench/tmp', { recursive: true });
  const file = `bench/tmp/mcp-${ROWS}-${PROVIDERS}.sqlite`;
  const fresh = !existsSync(file);
  const store = await openStore(`sqlite:${file}`);
  if (fresh) {
    process.stderr.write(`seeding ${ROWS} observations and ${PROVIDERS} providers into ${file}…\n`);
    await seedStore(store, { count: ROWS });
    await seedIntel(store, { providers: PROVIDERS });
    await sql`analyze`.execute(store.db);
  }
  await store.close();
  return `sqlite:${resolve(file)}`;
}

/** `paywatch serve` of the checkout at `root` over `db`, from its sources (both sides alike). */
async function serve(root: string, db: string): Promise<ChildServer> {
  const port = await freePort();
  return spawnServer([resolve(root, 'bin/paywatch.js'), 'serve', '--db', db, '--port', String(port), '--log-level', 'warn'], port, {
    readyPath: '/api/status',
    env: { PAYWATCH_FROM_SOURCE: '1', PAYWATCH_RATE_LIMIT: '100000000', PAYWATCH_HEAVY_PER_CLIENT: '64' },
  });
}

const rpc = (id: number, method: string, params?: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });

/** The Accept-Encodings each case runs under: none, and what Node's fetch (the MCP SDK client's transport) sends over http and over https. */
const ACCEPT_ENCODINGS: [label: string, headers: Record<string, string>][] = [
  ['identity', {}],
  ['gzip, deflate', { 'accept-encoding': 'gzip, deflate' }],
  ['br, gzip, deflate', { 'accept-encoding': 'br, gzip, deflate' }],
];

interface Pair {
  tool: string;
  /** The Accept-Encoding both faces were asked with ('identity': none sent). */
  accept_encoding: string;
  http: string;
  mcp: LoadResult | null;
  twin: LoadResult;
  /** MCP req/s over the twin's; null when the tool does not exist on this side. */
  ratio: number | null;
  /** Server CPU ms per request, the median over each face's runs (load-independent, unlike req/s). */
  mcp_cpu_ms_per_req: number | null;
  twin_cpu_ms_per_req: number | null;
  /** The twin's server CPU per request over MCP's. */
  cpu_ratio: number | null;
}

interface SideReport {
  side: 'before' | 'after';
  root: string;
  pairs: Pair[];
  init_list: {
    rounds: number;
    p50_ms: number;
    p99_ms: number;
    tools: number;
    /** CPU ms (user + system, all threads) of the server process per round trip, over the counted rounds. */
    server_cpu_ms: number | null;
    /** CPU ms of this (client) process per round trip over the same span. */
    client_cpu_ms: number;
    /** Bytes of the tools/list answer as received (after Content-Encoding) and its encoding. */
    /** null when sent chunked (compressed as it was sent, no Content-Length). */
    list_bytes: number | null;
    list_encoding: string;
  };
}

const CASES: [tool: string, path: string][] = [
  ['search_providers', '/api/providers'],
  ['get_service_offers', '/api/intelligence/offers'],
  ['search_transactions', '/api/transactions'],
];

/**
 * Milliseconds of one new client's initialize, initialized notification and tools/list, `ROUNDS` times in a row,
 * and the CPU time server and client spent per round (load-independent, unlike the wall-clock figures).
 * Node's fetch asks for `gzip, deflate, br`, as most HTTP clients of MCP servers do, so the answer is compressed.
 */
async function initAndList(server: ChildServer): Promise<SideReport['init_list']> {
  const base = server.url;
  const times: number[] = [];
  let tools = 0;
  let serverCpu0: number | null = null;
  let clientCpu0 = 0;
  for (let i = 0; i < ROUNDS + 20; i++) {
    if (i === 20) {
      serverCpu0 = processCpuSeconds(server.pid);
      clientCpu0 = ownCpuSeconds();
    }
    const t0 = performance.now();
    const init = await fetch(`${base}/api/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: rpc(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } }),
    });
    await init.text();
    const h = { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18' };
    await (
      await fetch(`${base}/api/mcp`, {
        method: 'POST',
        headers: h,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      })
    ).text();
    const list = (await (await fetch(`${base}/api/mcp`, { method: 'POST', headers: h, body: rpc(2, 'tools/list', {}) })).json()) as {
      result: { tools: unknown[] };
    };
    tools = list.result.tools.length;
    if (i >= 20) times.push(performance.now() - t0); // the first 20 warm up
  }
  const serverCpu1 = processCpuSeconds(server.pid);
  const clientCpu = ((ownCpuSeconds() - clientCpu0) * 1000) / ROUNDS;
  const serverCpu = serverCpu0 === null || serverCpu1 === null ? null : ((serverCpu1 - serverCpu0) * 1000) / ROUNDS;
  const probe = await fetch(`${base}/api/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18' },
    body: rpc(2, 'tools/list', {}),
  });
  await probe.arrayBuffer();
  const listEncoding = probe.headers.get('content-encoding') ?? 'identity';
  // fetch decodes the body: the bytes on the wire are the Content-Length the server sent.
  const length = probe.headers.get('content-length');
  const listBytes = length === null ? null : Number(length);
  times.sort((a, b) => a - b);
  const at = (q: number) => Number(times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2));
  const round3 = (x: number) => Number(x.toFixed(3));
  return {
    rounds: ROUNDS,
    p50_ms: at(0.5),
    p99_ms: at(0.99),
    tools,
    server_cpu_ms: serverCpu === null ? null : round3(serverCpu),
    client_cpu_ms: round3(clientCpu),
    list_bytes: listBytes,
    list_encoding: listEncoding,
  };
}

async function benchSide(side: 'before' | 'after', root: string, db: string): Promise<SideReport> {
  const server = await serve(root, db);
  try {
    const listed = (await (
      await fetch(`${server.url}/api/mcp`, { method: 'POST', headers: MCP_HEADERS, body: rpc(1, 'tools/list', {}) })
    ).json()) as {
      result: { tools: { name: string }[] };
    };
    const has = new Set(listed.result.tools.map((t) => t.name));
    // A fresh server answers its first seconds of load several times slower (120 against 3,000 req/s measured on
    // the twin): without this, the first case's runs measured the start-up, not the code.
    if (!ONLY_INIT)
      for (const [tool, path] of CASES) {
        await measure('warm-up', `${server.url}${path}`, { duration: WARM_UP_S, connections: CONNECTIONS });
        if (has.has(tool))
          await measure('warm-up', `${server.url}/api/mcp`, {
            duration: WARM_UP_S,
            connections: CONNECTIONS,
            method: 'POST',
            headers: MCP_HEADERS,
            body: rpc(1, 'tools/call', { name: tool, arguments: {} }),
          });
      }
    const pairs: Pair[] = [];
    for (const [tool, path, [encoding, accept]] of ONLY_INIT ? [] : CASES.flatMap((c) => ACCEPT_ENCODINGS.map((e) => [...c, e] as const))) {
      const twinUrl = `${server.url}${path}`;
      const body = rpc(1, 'tools/call', { name: tool, arguments: {} });
      const mcpOpts = { connections: CONNECTIONS, method: 'POST' as const, headers: { ...MCP_HEADERS, ...accept }, body };
      const twinRuns: LoadResult[] = [];
      const mcpRuns: LoadResult[] = [];
      if (has.has(tool)) {
        const probe = await fetch(`${server.url}/api/mcp`, { method: 'POST', headers: MCP_HEADERS, body });
        const text = await probe.text();
        if (probe.status !== 200 || text.includes('"isError":true'))
          throw new Error(`${side} ${tool}: ${probe.status} ${text.slice(0, 300)}`);
      }
      // Alternating short runs, so a change in the machine's other load falls on both faces alike.
      for (let i = 0; i < ALTERNATIONS; i++) {
        twinRuns.push(
          await measure(`GET ${path}`, twinUrl, { duration: DURATION, connections: CONNECTIONS, headers: accept, cpuPid: server.pid }),
        );
        if (has.has(tool))
          mcpRuns.push(await measure(`MCP ${tool}`, `${server.url}/api/mcp`, { duration: DURATION, ...mcpOpts, cpuPid: server.pid }));
      }
      const twin = median(twinRuns);
      const mcp = mcpRuns.length ? median(mcpRuns) : null;
      const ratio = mcp ? Number((mcp.req_per_s / Math.max(1, twin.req_per_s)).toFixed(2)) : null;
      const mcpCpu = medianCpu(mcpRuns);
      const twinCpu = medianCpu(twinRuns);
      const cpu_ratio = mcpCpu && twinCpu ? Number((twinCpu / mcpCpu).toFixed(2)) : null;
      pairs.push({
        tool,
        accept_encoding: encoding,
        http: `GET ${path}`,
        mcp,
        twin,
        ratio,
        mcp_cpu_ms_per_req: mcpCpu,
        twin_cpu_ms_per_req: twinCpu,
        cpu_ratio,
      });
      process.stderr.write(
        `  ${side} ${tool} (${encoding}): MCP ${mcp?.req_per_s ?? '—'} req/s (p99 ${mcp?.p99_ms ?? '—'} ms, ${mcpCpu ?? '—'} CPU ms/req) vs ${twin.req_per_s} req/s (p99 ${twin.p99_ms} ms, ${twinCpu ?? '—'} CPU ms/req): ${ratio ?? '—'}, CPU ${cpu_ratio ?? '—'}\n`,
      );
    }
    const init_list = await initAndList(server);
    process.stderr.write(
      `  ${side} initialize + tools/list: p50 ${init_list.p50_ms} ms, p99 ${init_list.p99_ms} ms (${init_list.tools} tools); CPU per round server ${init_list.server_cpu_ms} ms, client ${init_list.client_cpu_ms} ms; tools/list ${init_list.list_bytes} bytes ${init_list.list_encoding}\n`,
    );
    return { side, root, pairs, init_list };
  } finally {
    await server.stop();
  }
}

const db = await seeded();
const sides: SideReport[] = [];
if (values.before) sides.push(await benchSide('before', values.before, db));
sides.push(await benchSide('after', '.', db));

const after = sides[sides.length - 1];
const targets = {
  ...Object.fromEntries(
    after.pairs.map((p) => [
      `${p.tool} (${p.accept_encoding}) MCP ≥ 0.5 × HTTP req/s`,
      { value: p.ratio, target: '≥ 0.5', pass: (p.ratio ?? 0) >= 0.5 },
    ]),
  ),
  'initialize + tools/list p50 ≤ 20 ms': { value: after.init_list.p50_ms, target: '≤ 20', pass: after.init_list.p50_ms <= 20 },
};
const COMMAND = ['node bin/run-ts.js bench/mcp.ts', ...process.argv.slice(2)].join(' ');
const LOAD = loadavg()
  .map((x) => x.toFixed(2))
  .join(' / ');
const md = [
  '# MCP benchmark',
  '',
  `Command: \`${COMMAND}\`. Store: SQLite, ${ROWS} synthetic observations and ${PROVIDERS} seeded providers. ${ONLY_INIT ? '' : `${CONNECTIONS} connections; per case ${ALTERNATIONS} alternating runs of ${DURATION} s per face (each after a 1 s warm-up), the median run shown, after ${WARM_UP_S} s of discarded load on each face of each case; `}init + list: ${ROUNDS} sequential rounds of initialize, notifications/initialized and tools/list after 20 warm-up rounds. Server CPU per request: user + system of the server process (/proc, 10 ms ticks) over each run, per request answered, the median over the runs; CPU ratio = twin's CPU per request / MCP's, the load-independent form of the req/s ratio. CPU per round trip: user + system of the server process (/proc) and of this client process over the counted rounds. Machine: ${process.platform} ${process.arch}, 2 cores shared with other work, load average (1 / 5 / 15 min) at the end ${LOAD}, Node ${process.version}. Run at ${new Date().toISOString()}.`,
  '',
  ...(ONLY_INIT
    ? []
    : [
        '| side | tool | Accept-Encoding | MCP req/s | MCP p99 ms | MCP server CPU ms/req | HTTP twin | twin req/s | twin p99 ms | twin server CPU ms/req | ratio | CPU ratio (twin/MCP) |',
        '|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|',
        ...sides.flatMap((s) =>
          s.pairs.map(
            (p) =>
              `| ${s.side} | ${p.tool} | ${p.accept_encoding} | ${p.mcp?.req_per_s ?? '—'} | ${p.mcp?.p99_ms ?? '—'} | ${p.mcp_cpu_ms_per_req ?? '—'} | ${p.http} | ${p.twin.req_per_s} | ${p.twin.p99_ms} | ${p.twin_cpu_ms_per_req ?? '—'} | ${p.ratio ?? '— (no such tool)'} | ${p.cpu_ratio ?? '—'} |`,
          ),
        ),
        '',
      ]),
  '| side | initialize + tools/list p50 ms | p99 ms | server CPU ms per round | client CPU ms per round | tools listed | tools/list bytes sent |',
  '|---|---:|---:|---:|---:|---:|---:|',
  ...sides.map(
    (s) =>
      `| ${s.side} | ${s.init_list.p50_ms} | ${s.init_list.p99_ms} | ${s.init_list.server_cpu_ms ?? '—'} | ${s.init_list.client_cpu_ms} | ${s.init_list.tools} | ${s.init_list.list_bytes ?? 'chunked'} (${s.init_list.list_encoding}) |`,
  ),
  '',
  '| target (after) | value | pass |',
  '|---|---:|---|',
  ...Object.entries(targets).map(([k, v]) => `| ${k} | ${v.value ?? '—'} | ${v.pass ? 'yes' : 'NO'} |`),
  '',
].join('\n');
writeResults(
  ONLY_INIT ? 'mcp-init' : 'mcp',
  {
    command: COMMAND,
    load_average: loadavg(),
    rows: ROWS,
    providers: PROVIDERS,
    duration_s: DURATION,
    connections: CONNECTIONS,
    sides,
    targets,
  },
  md,
);
process.stdout.write(md);
