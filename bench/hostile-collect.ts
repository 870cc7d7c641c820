/**
 * Collection across a hostile transaction, the command as a user runs it: on a fresh anvil node in Tempo mode, a
 * token whose symbol() answers 1 MiB (test/fixtures/hostile/HostileToken.sol) and one transaction emitting 600
 * Transfer logs of it; then `paywatch collect --once` from block 0 into a fresh SQLite store, under
 * `/usr/bin/time -v`, for this checkout and for each `--base` checkout given (built: `npm run build` there), in
 * one run on one node. Reports exit code, wall time, peak RSS, and the bytes stored for that transaction (its
 * observations row's columns and its detail); for this checkout also the bytes a user gets with that token present:
 * the default list, the transaction's detail and the export, from `paywatch serve` over the collected store.
 * Results: bench/results/hostile-collect.{json,md}.
 * Run: node bin/run-ts.js bench/hostile-collect.ts [--base /path/to/checkout …] [--timeout-s 900]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { openSqlite } from '../src/store/sqlite.js';
import { readStoredDetails } from '../src/store/chain/stored-details.js';
import { ANVIL_KEYS, startAnvil } from '../src/chain/anvil.js';
import { deployHostileToken, sprayTransfers } from '../test/fixtures/hostile/hostile-token.js';
import { finalize } from '../test/chain/live-payments.js';
import { servePaywatch, writeResults } from './lib/load.js';

const { values } = parseArgs({
  options: { base: { type: 'string', multiple: true, default: [] }, 'timeout-s': { type: 'string', default: '900' } },
});
const checkouts = [resolve('.'), ...(values.base ?? []).map((b) => resolve(b))];
const LOGS = 600;
const SYMBOL_BYTES = 1 << 20;

interface Run {
  checkout: string;
  exit: number | null;
  signal: string | null;
  wall_s: number;
  peak_rss_mb: number | null;
  stored_bytes: number | null;
  decode: string | null;
  stderr_tail: string;
  /** Bytes of the served answers (this checkout only; null for --base checkouts or when collection failed). */
  answers: { list: number; detail: number; export: number } | null;
}

/** Bytes of the default list, the transaction's detail and the default export, as `paywatch serve` answers them. */
async function answerBytes(file: string, hash: string): Promise<Run['answers']> {
  const server = await servePaywatch(`sqlite:${file}`);
  try {
    const size = async (path: string) => {
      const r = await fetch(`${server.url}${path}`, { headers: { 'accept-encoding': 'identity' } });
      if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
      return (await r.arrayBuffer()).byteLength;
    };
    return { list: await size('/api/transactions'), detail: await size(`/api/transactions/${hash}`), export: await size('/api/export') };
  } finally {
    await server.stop();
  }
}

const node = await startAnvil();
const runs: Run[] = [];
try {
  const token = await deployHostileToken(node.rpcUrl, ANVIL_KEYS[3], { repeat: 'A', length: SYMBOL_BYTES });
  const hash = await sprayTransfers(node.rpcUrl, ANVIL_KEYS[3], token, '0x00000000000000000000000000000000000b0b00', LOGS);
  await finalize(node.rpcUrl);
  for (const checkout of checkouts) {
    const dir = mkdtempSync(join(tmpdir(), 'paywatch-hostile-collect-'));
    const file = join(dir, 'store.sqlite');
    try {
      const bin = join(checkout, 'bin/paywatch.js');
      if (!existsSync(join(checkout, 'dist'))) throw new Error(`${checkout} is not built: run npm run build there`);
      const t0 = performance.now();
      const r = spawnSync(
        'timeout',
        [
          values['timeout-s']!,
          '/usr/bin/time',
          '-v',
          process.execPath,
          bin,
          'collect',
          '--once',
          '--db',
          `sqlite:${file}`,
          '--rpc',
          node.rpcUrl,
          '--from',
          '0',
        ],
        { encoding: 'utf8', env: { ...process.env, PAYWATCH_LOG_LEVEL: 'warn' }, maxBuffer: 64 << 20 },
      );
      const wall = (performance.now() - t0) / 1000;
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1];
      const exit = /Exit status: (\d+)/.exec(r.stderr)?.[1];
      let stored: number | null = null;
      let decode: string | null = null;
      if (existsSync(file)) {
        const db = new Database(file, { readonly: true });
        const row = db.prepare('select * from observations where hash = ?').get(hash) as Record<string, unknown> | undefined;
        if (row) {
          // The detail's JSON size (as served), not its packed size on disk; a grouped one needs its group's first row.
          const details = await openSqlite(file, { readonly: true });
          const [detail] = await readStoredDetails(
            details.db,
            await details.db.selectFrom('observation_details').selectAll().where('seq', '=', Number(row.seq)).execute(),
          );
          await details.db.destroy();
          if (detail === undefined || detail instanceof Error) throw detail ?? new Error(`no detail stored for ${hash}`);
          stored =
            Object.values(row).reduce<number>((n, v) => n + (v == null ? 0 : Buffer.byteLength(String(v))), 0) + Buffer.byteLength(detail);
          decode = String(row.decode);
        }
        db.close();
      }
      const answers = checkout === checkouts[0] && stored !== null ? await answerBytes(file, hash) : null;
      runs.push({
        checkout,
        answers,
        exit: exit === undefined ? r.status : Number(exit),
        signal: r.signal,
        wall_s: Number(wall.toFixed(2)),
        peak_rss_mb: rss ? Number((Number(rss) / 1024).toFixed(1)) : null,
        stored_bytes: stored,
        decode,
        stderr_tail: r.stderr
          .split('\n')
          .filter((l) => l.trim() && !/^\t/.test(l) && !/Command being timed/.test(l))
          .slice(-3)
          .join(' | ')
          .slice(0, 400),
      });
      process.stderr.write(`${checkout}: ${JSON.stringify(runs.at(-1))}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
} finally {
  await node.stop();
}

const md = [
  '# Collection across a hostile transaction',
  '',
  `Command: \`node bin/run-ts.js bench/hostile-collect.ts${(values.base ?? []).map((b) => ` --base ${b}`).join('')}\`. A token whose symbol() answers ${SYMBOL_BYTES} bytes and one transaction emitting ${LOGS} Transfer logs of it, on a fresh anvil node; \`/usr/bin/time -v node CHECKOUT/bin/paywatch.js collect --once --from 0\` into a fresh SQLite store, each checkout in turn on the same node. Run at ${new Date().toISOString()}, ${process.platform} ${process.arch}, Node ${process.version}, ${cpus().length} cores shared with other work.`,
  '',
  '| checkout | exit | wall s | peak RSS MB | bytes stored for the transaction | its decode | default list / its detail / export, bytes served | last lines of stderr |',
  '|---|---:|---:|---:|---:|---|---|---|',
  ...runs.map(
    (r) =>
      `| ${r.checkout} | ${r.exit}${r.signal ? ` (${r.signal})` : ''} | ${r.wall_s} | ${r.peak_rss_mb ?? '—'} | ${r.stored_bytes ?? 'none'} | ${r.decode ?? '—'} | ${r.answers ? `${r.answers.list} / ${r.answers.detail} / ${r.answers.export}` : '—'} | ${r.stderr_tail.replace(/\|/g, '\\|') || '—'} |`,
  ),
].join('\n');
writeResults('hostile-collect', { logs: LOGS, symbol_bytes: SYMBOL_BYTES, runs }, md);
console.log(md);
