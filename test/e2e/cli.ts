/**
 * Runs the real `paywatch` command (node bin/paywatch.js) as a child process, and reads a store back for
 * comparisons between runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../src/store/db.js';
import { getCheckpoint, getCoverage } from '../../src/store/chain/index.js';
import { rowToTransaction } from '../../src/store/chain/rows.js';

export const BIN = fileURLToPath(new URL('../../bin/paywatch.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts `paywatch ARGS` with `env` added to the environment; `done` resolves when it exits. */
export function startCli(args: string[], env: Record<string, string> = {}): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, PAYWATCH_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<CliResult>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

/** Runs `paywatch ARGS` to its end. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return startCli(args, env).done;
}

/** What a collected store holds, without fetch- and evaluation-time members, for comparing two runs. */
export interface StoreSnapshot {
  rows: Record<string, unknown>[];
  hashes: string[];
  coverage: { first: number; last: number }[];
  checkpoint: { height: number; hash: string } | null;
}

/** Reads the observations (public members and integrity score), coverage and checkpoint of the store at `url`. */
export async function snapshotStore(url: string): Promise<StoreSnapshot> {
  const store = await openStore(url);
  try {
    const raw = await store.db.selectFrom('observations').selectAll().orderBy('height').orderBy('tx_index').execute();
    // The public row (shared converter) minus integrity's evaluation time, plus the position in the block.
    const rows = raw.map((r) => {
      const { integrity, chain_id: _chainId, ...t } = rowToTransaction(r, store.tokenList);
      return { ...t, tx_index: r.tx_index, score: integrity.score };
    });
    const cp = await getCheckpoint(store);
    return {
      rows,
      hashes: rows.map((r) => r.hash),
      coverage: (await getCoverage(store)).map((c) => ({ first: Number(c.first), last: Number(c.last) })),
      checkpoint: cp && { height: Number(cp.height), hash: cp.hash },
    };
  } finally {
    await store.close();
  }
}

/**
 * The reference a crash or takeover test compares with: `paywatch collect --once` from block 0 into the store at
 * `url`, run to its end without interruption, read back with snapshotStore.
 * @throws when the command wrote to stderr or did not exit 0 (such a reference would prove nothing)
 */
export async function referenceCollect(url: string, rpcUrl: string): Promise<StoreSnapshot> {
  const r = await runCli(['collect', '--once', '--db', url, '--rpc', rpcUrl, '--from', '0']);
  if (r.stderr !== '' || r.code !== 0) throw new Error(`the reference collect --once failed (exit ${r.code}): ${r.stderr}`);
  return snapshotStore(url);
}
