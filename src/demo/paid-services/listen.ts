/**
 * Serves a Hono app on loopback at a free port (the OS picks it), for the demo's local paid services.
 */
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';

export interface Listening {
  /** http://127.0.0.1:PORT (no trailing slash). */
  origin: string;
  port: number;
  /** Stops accepting and closes open connections. */
  close(): Promise<void>;
}

/**
 * Starts `app` on `host` (default 127.0.0.1) at a free port.
 * @throws Error when the socket cannot be bound
 */
export async function listen(app: Hono, host = '127.0.0.1'): Promise<Listening> {
  const server: ServerType = serve({ fetch: app.fetch, port: 0, hostname: host });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', reject);
  });
  const { port } = server.address() as { port: number };
  return {
    origin: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
