/**
 * Starts a local anvil node in Tempo mode from the installed `@foundry-rs/anvil-<platform>` npm package (a
 * devDependency: `@foundry-rs/anvil-linux-amd64`), for the demo,
 * tests and benchmarks. The binary of the platform package is run directly (not the bin.mjs wrapper), under a
 * small shell watchdog (WATCHDOG), so neither stopping nor killing this process leaves an orphan node behind.
 */
import { PaywatchError } from '../domain/errors.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';

/** The local anvil node cannot be found or started. */
export class AnvilError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'anvil' });
  }
}

export interface AnvilNode {
  /** http://127.0.0.1:PORT */
  rpcUrl: string;
  port: number;
  process: ChildProcess;
  /** Stops the node (SIGTERM, then SIGKILL after 2 s). */
  stop(): Promise<void>;
}

export interface AnvilOptions {
  /** Port to bind; default a free loopback port. */
  port?: number;
  /** Seconds between automatic blocks; default: a block per transaction (automine). */
  blockTime?: number;
  /** Extra command-line arguments. */
  args?: string[];
}

/** The well-known anvil development accounts' private keys (public test keys, never real funds). */
export const ANVIL_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
] as const;

/**
 * Path of the anvil binary shipped in the platform npm package.
 * @throws Error when the package is not installed (it is a devDependency: run `npm install`)
 */
export function anvilBinary(): string {
  const require = createRequire(import.meta.url);
  const pkg = `@foundry-rs/anvil-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`;
  let dir: string;
  try {
    dir = dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    throw new AnvilError(`anvil is not installed (npm package ${pkg}); run npm install in the paywatch folder`);
  }
  const bin = join(dir, 'bin', 'anvil');
  if (!existsSync(bin)) throw new AnvilError(`anvil binary missing at ${bin}`);
  return bin;
}

/**
 * The shell that runs anvil (`sh -c WATCHDOG anvil BINARY ARGS…`): it starts anvil in the background and waits
 * for it, so it exits with anvil (an early failure shows at once, with anvil's stderr); beside it, a reader
 * blocks on the shell's stdin (kept as fd 3), a pipe from this process. The read returns when this process
 * closes the pipe (stop()) or ends in any way, SIGKILL included, since the kernel then closes its end; the
 * reader then terminates anvil. A SIGTERM to the shell does the same. Without it a killed `paywatch demo` left
 * anvil running.
 */
const WATCHDOG =
  'exec 3<&0; trap \'kill "$pid" 2>/dev/null\' TERM; "$@" 0</dev/null 3<&- & pid=$!; { read _ <&3 || true; kill "$pid" 2>/dev/null; } & wait "$pid"';

/** Finds a free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts `anvil --network tempo --chain-id 4217 --slots-in-an-epoch 1` on loopback and waits until it answers
 * JSON-RPC. With slots-in-an-epoch 1, the finalized tag is latest − 2.
 * @throws Error when it does not answer within 15 s
 */
export async function startAnvil(opts: AnvilOptions = {}): Promise<AnvilNode> {
  const port = opts.port ?? (await freePort());
  const args = [
    '--network',
    'tempo',
    '--chain-id',
    '4217',
    '--slots-in-an-epoch',
    '1',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--silent',
  ];
  if (opts.blockTime !== undefined) args.push('--block-time', String(opts.blockTime));
  args.push(...(opts.args ?? []));
  // Through a parent-death watchdog (see WATCHDOG): anvil never outlives this process, even one killed with SIGKILL.
  const child = spawn('/bin/sh', ['-c', WATCHDOG, 'anvil', anvilBinary(), ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
  const rpcUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new AnvilError(`anvil exited with code ${child.exitCode}: ${stderr.trim()}`);
    try {
      const r = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
      });
      if (r.ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new AnvilError(`anvil did not answer on ${rpcUrl} within 15 s: ${stderr.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    // Closing the watchdog's stdin is the stop signal: it terminates anvil, waits for it, then exits.
    child.stdin!.end();
    const t = setTimeout(() => child.kill('SIGTERM'), 2000);
    await exited;
    clearTimeout(t);
  };
  return { rpcUrl, port, process: child, stop };
}
