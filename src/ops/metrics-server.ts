/**
 * The Prometheus metrics listener: GET /metrics answers the registry (./metrics.ts) in the text exposition
 * format, on its own port (`--metrics-port`, loopback by default), apart from the public API so that scraping is
 * never rate-limited and the numbers are never public unless the operator binds them so.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { registry } from './metrics.js';
import { shortMessage } from '../domain/errors.js';

/** A running metrics listener. */
export interface MetricsServer {
  /** e.g. http://127.0.0.1:9464/metrics */
  url: string;
  close(): Promise<void>;
}

/**
 * Listens on `host:port` (0 = any free port).
 * @throws the listen error (EADDRINUSE, EACCES…) when the port cannot be bound
 */
export async function startMetricsServer(host: string, port: number): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(path === '/metrics' ? 405 : 404, {
        'content-type': 'application/json',
        ...(path === '/metrics' ? { allow: 'GET, HEAD' } : {}),
      });
      res.end(
        JSON.stringify({
          error: path === '/metrics' ? `method ${req.method} not allowed here; use GET` : `no route ${req.method} ${path}`,
        }),
      );
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (e: unknown) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: `metrics unavailable: ${shortMessage(e)}` }));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const a = server.address() as AddressInfo;
  const h = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return {
    url: `http://${h}:${a.port}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
