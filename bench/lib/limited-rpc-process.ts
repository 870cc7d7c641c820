/**
 * The limited RPC proxy (test/helpers/limited-rpc.ts) in a process of its own, as a real node is: in the
 * benchmark's process its forwarding (reading and re-sending every answer) and its delay timers would share the
 * event loop of the collector measured, and a collector busy decoding for a few milliseconds would hold back the
 * proxy's answers, which the plain fetch (idle meanwhile) never sees.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LimitedRpc, LimitedRpcOptions } from '../../test/helpers/limited-rpc.js';

type Counts = LimitedRpc['counts'];

/** A proxy process: its URL, its counts on demand, and `close`, which answers the final counts. */
export interface LimitedRpcProcess {
  url: string;
  /** The proxy process's id (its CPU: bench/lib/cpu.ts processCpuSeconds). */
  pid: number;
  counts(): Promise<Counts>;
  /** Stops the proxy and its process. @returns the proxy's final counts */
  close(): Promise<Counts>;
}

/** Starts the proxy process and waits until it listens. */
export async function startLimitedRpcProcess(opts: LimitedRpcOptions): Promise<LimitedRpcProcess> {
  const runTs = fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url));
  const body = fileURLToPath(new URL('./limited-rpc-child.ts', import.meta.url));
  const child: ChildProcess = fork(runTs, [body, JSON.stringify(opts)], { execArgv: [], stdio: 'inherit' });
  const next = <T>(key: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const onMessage = (m: Record<string, unknown>) => {
        if (!(key in m)) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(m[key] as T);
      };
      const onExit = (code: number | null) => reject(new Error(`proxy process exited (${code}) before answering ${key}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const url = await next<string>('url');
  return {
    url,
    pid: child.pid!,
    counts: () => {
      const c = next<Counts>('counts');
      child.send('counts');
      return c;
    },
    close: () => {
      const c = next<Counts>('counts');
      child.send('close');
      return c;
    },
  };
}
