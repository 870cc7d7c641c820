/**
 * Compression benchmark: `paywatch serve` over a seeded SQLite store, in its own process. Bytes on the wire of a
 * 100-row /api/transactions page, /api/openapi.json and a full /api/export, identity vs gzip vs br; req/s of the
 * 100-row page with and without gzip (autocannon, 10 connections); and the server's peak RSS growth under 2
 * concurrent exports, identity and gzip, each on a fresh server warmed up alike (the export's bound: < 64 MB). Results: bench/results/compression.{json,md}.
 * Run: node bin/run-ts.js bench/compression.ts [--count N] [--duration S]
 */
import { request } from 'node:http';
import { parseArgs } from 'node:util';
import { seededStore } from './lib/seeded.js';
import { exportMemory, measure, servePaywatch, writeResults } from './lib/load.js';

const { values } = parseArgs({ options: { count: { type: 'string', default: '100000' }, duration: { type: 'string', default: '8' } } });
const COUNT = Number(values.count);
const DURATION = Number(values.duration);

/** Bytes of the body `url` sends with `Accept-Encoding: encoding` (as sent, not decoded) and the encoding used. */
function wireBytes(url: string, encoding: string): Promise<{ bytes: number; encoding: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { 'accept-encoding': encoding } }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ bytes, encoding: String(res.headers['content-encoding'] ?? 'identity') }));
    });
    req.on('error', reject);
    req.end();
  });
}

const { db } = await seededStore('sqlite', COUNT);
const server = await servePaywatch(db);
try {
  const api = `${server.url}/api`;
  const sizes: Record<string, Record<string, number>> = {};
  for (const [name, url] of [
    ['100-row page', `${api}/transactions?limit=100`],
    ['openapi.json', `${api}/openapi.json`],
    ['export (10,000 rows)', `${api}/export`],
  ] as const) {
    sizes[name] = {};
    for (const enc of ['identity', 'gzip', 'br']) {
      const r = await wireBytes(url, enc);
      if (r.encoding !== enc) throw new Error(`${url} answered ${r.encoding} for Accept-Encoding ${enc}`);
      sizes[name]![enc] = r.bytes;
    }
  }
  const list = `${api}/transactions?limit=100`;
  const throughput = [
    await measure('100-row page, identity', list, { duration: DURATION }),
    await measure('100-row page, gzip', list, { duration: DURATION, headers: { 'accept-encoding': 'gzip' } }),
    await measure('100-row page, br', list, { duration: DURATION, headers: { 'accept-encoding': 'br' } }),
  ];
  const exportGrowth: Record<string, number> = {};
  for (const enc of ['identity', 'gzip']) {
    exportGrowth[enc] = (await exportMemory(db, `export ${enc}`, { 'accept-encoding': enc }, DURATION)).peak_rss_growth_mb;
  }
  const pass = Object.values(exportGrowth).every((mb) => mb < 64);
  const md = [
    '# Compression benchmark',
    '',
    `Command: \`node bin/run-ts.js bench/compression.ts --count ${COUNT} --duration ${DURATION}\`. \`paywatch serve\` over a seeded SQLite store of ${COUNT} observations in its own process (paywatch's V8 flags); bytes as sent on the wire. Run at ${new Date().toISOString()}, Node ${process.version}.`,
    '',
    '| answer | identity bytes | gzip bytes | br bytes |',
    '|---|---:|---:|---:|',
    ...Object.entries(sizes).map(([n, s]) => `| ${n} | ${s.identity} | ${s.gzip} | ${s.br} |`),
    '',
    '| load (autocannon, 10 connections) | req/s | p50 ms | p99 ms |',
    '|---|---:|---:|---:|',
    ...throughput.map((r) => `| ${r.name} | ${r.req_per_s} | ${r.p50_ms} | ${r.p99_ms} |`),
    '',
    `Server peak RSS growth under 2 concurrent exports for ${DURATION} s (each encoding on a fresh server warmed up alike, bench/lib/load.ts exportMemory): identity ${exportGrowth.identity} MB, gzip ${exportGrowth.gzip} MB (bound < 64 MB: ${pass ? 'met' : 'NOT met'}).`,
  ].join('\n');
  writeResults('compression', { count: COUNT, sizes, throughput, export_peak_rss_growth_mb: exportGrowth, pass }, md);
  process.stdout.write(`${md}\n`);
  if (!pass) process.exitCode = 1;
} finally {
  await server.stop();
}
