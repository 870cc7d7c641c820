/**
 * Many local paid services in one process, for the probe-throughput benchmark: `ports` node:http servers on
 * 127.0.0.1 (each its own provider "127.0.0.1:PORT", so the Prober's per-host politeness applies per port), each
 * with `routesPerPort` routes answering GET with a real x402 v2 challenge: 402, `{}` body, and the
 * PAYMENT-REQUIRED header encoded by @x402/core's encodePaymentRequiredHeader (what the @x402 middleware sends).
 * Each server counts the requests it has in flight and keeps the maximum, so the benchmark can show that no host
 * ever saw more than one request at a time. Answers are held for `delayMs` (a service's own latency): an answer
 * sent synchronously would finish before the next request is even parsed, and overlap could never be seen.
 */
import { createServer, type Server } from 'node:http';
import { encodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { freePort } from '../../src/chain/anvil.js';

export interface ManyServices {
  /** Every route as a probe target (GET, absolute URL). */
  services: { method: string; url: string }[];
  /** Per port: requests answered and the most requests that were in flight at once. */
  stats(): { port: number; requests: number; maxInFlight: number }[];
  stop(): Promise<void>;
}

/** The x402 v2 payment requirements of route `i` (price in atomic units of a 6-decimal TIP-20 on Tempo). */
function challengeFor(url: string, i: number): PaymentRequired {
  return {
    x402Version: 2,
    error: 'Payment required',
    resource: { url, description: `bench service ${i}`, mimeType: 'application/json' },
    accepts: [
      {
        scheme: 'exact',
        network: 'eip155:4217',
        asset: '0x20c0000000000000000000000000000000000000',
        amount: String(1000 + i),
        payTo: `0x${(i + 1).toString(16).padStart(40, '0')}`,
        maxTimeoutSeconds: 60,
        extra: { name: 'pathUSD', version: '1' },
      },
    ],
  };
}

/**
 * Starts `ports` servers with `routesPerPort` paid routes each (paths /svc/0 … /svc/N-1); unknown paths answer 404.
 * Headers are encoded once at start, so the servers' own cost per request is small next to the prober's.
 * @param delayMs milliseconds each answer is held before it is sent (default 5)
 */
export async function startManyServices(ports = 10, routesPerPort = 100, delayMs = 5): Promise<ManyServices> {
  const servers: { server: Server; port: number; requests: number; inFlight: number; maxInFlight: number }[] = [];
  const services: ManyServices['services'] = [];
  for (let h = 0; h < ports; h++) {
    const port = await freePort();
    const headers = new Map<string, string>();
    for (let r = 0; r < routesPerPort; r++) {
      const path = `/svc/${r}`;
      const url = `http://127.0.0.1:${port}${path}`;
      headers.set(path, encodePaymentRequiredHeader(challengeFor(url, h * routesPerPort + r)));
      services.push({ method: 'GET', url });
    }
    const s = { server: undefined as unknown as Server, port, requests: 0, inFlight: 0, maxInFlight: 0 };
    s.server = createServer((req, res) => {
      s.requests++;
      s.inFlight++;
      s.maxInFlight = Math.max(s.maxInFlight, s.inFlight);
      // Count the request as finished only when the response is fully sent (or the socket is gone).
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        s.inFlight--;
      };
      res.on('finish', finish);
      res.on('close', finish);
      const header = headers.get(req.url ?? '');
      setTimeout(() => {
        if (!header) res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        else res.writeHead(402, { 'content-type': 'application/json', 'payment-required': header }).end('{}');
      }, delayMs);
    });
    await new Promise<void>((resolve) => s.server.listen(port, '127.0.0.1', resolve));
    servers.push(s);
  }
  return {
    services,
    stats: () => servers.map((s) => ({ port: s.port, requests: s.requests, maxInFlight: s.maxInFlight })),
    stop: async () => {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.server.closeAllConnections();
              s.server.close(() => resolve());
            }),
        ),
      );
    },
  };
}
