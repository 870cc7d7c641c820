/**
 * Misbehaving HTTP servers for tests of the prober and the safe fetcher (a real loopback socket each, no mocks):
 * - `/malformed`: 402 whose `PAYMENT-REQUIRED` header is not base64 JSON and whose body is not JSON.
 * - `/malformed-mpp`: 402 whose `WWW-Authenticate: Payment` challenge has an undecodable `request`.
 * - `/slow?ms=N`: waits N ms (default 5,000) before answering 200.
 * - `/oversized?bytes=N`: 200 with an N-byte body (default 2 MiB), streamed, no content-length; the bytes it got
 *   to write before the client went away are in `sent`.
 * - `/not-json`: 200 `application/json` whose body is cut off mid-object (a malformed JSON-RPC answer).
 * - `/redirect?to=URL`: 302 to URL. `/redirect-loop`: 302 to itself, forever.
 * - `/rate-limited?retry=S&status=N`: N (default 429) with `Retry-After: S` (default 1; `retry=none` omits it).
 * - `/inflight?ms=N`: 200 after N ms (default 50), counting requests in flight (see `maxInFlight`).
 * - anything else: 200 `{ok: true}`.
 * Every request is counted per path in `hits`, with its arrival time (epoch ms) in `hitTimes`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export interface BadServers {
  /** http://HOST:PORT */
  origin: string;
  /** Requests seen, by path (without query). */
  hits: Map<string, number>;
  /** Arrival times (epoch ms) of the requests, by path. */
  hitTimes: Map<string, number[]>;
  /** Body bytes written, by path (`/oversized`: what was sent before the client stopped reading). */
  sent: Map<string, number>;
  /** Highest number of requests in flight at once on `/inflight`, since start or the last reset(). */
  maxInFlight(): number;
  /** Clears hits and maxInFlight. */
  reset(): void;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts the misbehaving server on `host` (default 127.0.0.1) at a free port.
 * @throws Error when the socket cannot be bound
 */
export async function startBadServers(host = '127.0.0.1'): Promise<BadServers> {
  const hits = new Map<string, number>();
  const hitTimes = new Map<string, number[]>();
  const sent = new Map<string, number>();
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch(() => res.destroy());
  });
  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://x');
    const num = (name: string, dflt: number) => {
      const v = Number(url.searchParams.get(name));
      return Number.isFinite(v) && v > 0 ? v : dflt;
    };
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    hitTimes.set(url.pathname, [...(hitTimes.get(url.pathname) ?? []), Date.now()]);
    switch (url.pathname) {
      case '/malformed':
        res.writeHead(402, { 'payment-required': '%%% not base64 %%%', 'content-type': 'application/json' });
        return void res.end('{"x402Version": 2, "accepts": [');
      case '/malformed-mpp':
        res.writeHead(402, {
          'www-authenticate': 'Payment id="abc", realm="bad", method="tempo", intent="charge", request="!!!not-base64url!!!"',
        });
        return void res.end();
      case '/slow':
        await sleep(num('ms', 5000));
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('{"ok":true}');
      case '/oversized': {
        const total = num('bytes', 2 * 1024 * 1024);
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        for (let at = 0; at < total && !res.destroyed; at += chunk.length) {
          const part = at + chunk.length <= total ? chunk : chunk.subarray(0, total - at);
          const ok = res.write(part);
          sent.set(url.pathname, (sent.get(url.pathname) ?? 0) + part.length);
          // Whichever comes first removes both listeners: one left per stalled write piled up past Node's limit of 10.
          if (!ok)
            await new Promise<void>((r) => {
              const done = () => {
                res.off('drain', done).off('close', done);
                r();
              };
              res.once('drain', done).once('close', done);
            });
        }
        return void res.end();
      }
      case '/not-json':
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('{"jsonrpc":"2.0","id":1,"result":{"number":"0x1","hash":');
      case '/redirect':
        res.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
        return void res.end();
      case '/redirect-loop':
        res.writeHead(302, { location: '/redirect-loop' });
        return void res.end();
      case '/rate-limited':
        res.writeHead(num('status', 429), url.searchParams.get('retry') === 'none' ? {} : { 'retry-after': String(num('retry', 1)) });
        return void res.end('{"error":"slow down"}');
      case '/inflight':
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        try {
          await sleep(num('ms', 50));
        } finally {
          inFlight--;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('{"ok":true}');
      default:
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('{"ok":true}');
    }
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as { port: number };
  return {
    origin: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    hits,
    hitTimes,
    sent,
    maxInFlight: () => maxInFlight,
    reset: () => {
      hits.clear();
      hitTimes.clear();
      sent.clear();
      maxInFlight = 0;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
