/**
 * A throwaway Redis server of the test's own (Debian's redis-server, which .ci/run installs) on a free loopback
 * port, without persistence, so a test can stop and start it without touching the machine's Redis.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { freePort } from '../../src/chain/anvil.js';

export interface RedisServer {
  port: number;
  /** redis://[:password@]127.0.0.1:PORT */
  url: string;
  /** Stops it (SIGKILL: as a crash) and waits until it is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: nothing was persisted) and waits until it answers PING. */
  start(): Promise<void>;
}

/** Resolves once a PING on `port` gets +PONG (or -NOAUTH, which also means it is up); rejects after `ms`. */
async function answers(port: number, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('error', () => resolve(false));
      s.once('data', (d) => {
        s.destroy();
        resolve(/^(\+PONG|-NOAUTH)/.test(d.toString()));
      });
      s.write('PING\r\n');
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not answer within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts a redis-server on a free port; `password` sets requirepass. */
export async function startRedis(opts: { password?: string } = {}): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    ...(opts.password ? ['--requirepass', opts.password] : []),
  ];
  const server: RedisServer = {
    port,
    url: `redis://${opts.password ? `:${encodeURIComponent(opts.password)}@` : ''}127.0.0.1:${port}`,
    async stop() {
      if (!child || child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
      child = null;
    },
    async start() {
      child = spawn('redis-server', args, { stdio: 'ignore' });
      await answers(port);
    },
  };
  await server.start();
  return server;
}
