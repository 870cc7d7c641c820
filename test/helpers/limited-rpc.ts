/**
 * A real loopback HTTP proxy in front of a JSON-RPC node (anvil) that behaves like a shared public RPC service:
 * - `delayMs`: each answer is held this long (a distant node: the round trip);
 * - `batchCap` + `capAnswer`: a batch of more calls than the cap is refused whole, answered HTTP 200 with one
 *   JSON-RPC error -32005 "batch too large" (`'-32005'`) or HTTP 413 (`'413'`), as shared providers do;
 * - `answerDelayMs`: each forwarded answer is held this long more (a node slow to answer large batches; its
 *   refusals still come back at once);
 * - `rate`: a token bucket of `rate` requests per second holding at most `rate` tokens (1 s of burst); a request
 *   finding it empty is answered HTTP 429 with `Retry-After: 1` and counted as refused;
 * - `breakParentOnce`: the first answer holding block `breakParentOnce` (eth_getBlockByNumber) has its
 *   parentHash rewritten, once (a node answering a block of another fork for a moment).
 * Everything else is forwarded byte for byte. Used by test/chain/rpc-limits.test.ts and bench/rpc-limits.ts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { request } from 'undici';
import { readBody } from './rpc-proxy.js';

export interface LimitedRpcOptions {
  upstream: string;
  delayMs?: number;
  answerDelayMs?: number;
  batchCap?: number;
  capAnswer?: '-32005' | '413';
  rate?: number;
  breakParentOnce?: number;
}

export interface LimitedRpc {
  url: string;
  /**
   * HTTP requests received, refused with 429, refused as too large, forwarded; largest batch forwarded; and how
   * many were in flight (received, not yet answered) over time: `inFlightMs` the integral of that count (ms),
   * `busyMs` the time with at least one, `spanMs` from the first request received to the last answer.
   */
  counts: {
    requests: number;
    refused: number;
    tooLarge: number;
    forwarded: number;
    largestBatch: number;
    parentBroken: number;
    inFlightMs: number;
    busyMs: number;
    spanMs: number;
  };
  /** Calls reading blocks (full eth_getBlockByNumber, eth_getBlockReceipts) in each forwarded request holding any. */
  blockCalls: number[];
  close(): Promise<void>;
}

/** Starts the proxy on a free loopback port. */
export async function startLimitedRpc(opts: LimitedRpcOptions): Promise<LimitedRpc> {
  const counts = {
    requests: 0,
    refused: 0,
    tooLarge: 0,
    forwarded: 0,
    largestBatch: 0,
    parentBroken: 0,
    inFlightMs: 0,
    busyMs: 0,
    spanMs: 0,
  };
  let inFlight = 0;
  let changedAt = 0;
  let firstAt: number | null = null;
  /** A request starts (+1) or is answered (-1): the in-flight integrals advance to now. */
  const inFlightChange = (delta: 1 | -1): void => {
    const now = performance.now();
    firstAt ??= now;
    if (inFlight > 0) {
      counts.inFlightMs += inFlight * (now - changedAt);
      counts.busyMs += now - changedAt;
    }
    inFlight += delta;
    changedAt = now;
    counts.spanMs = now - firstAt;
  };
  const blockCalls: number[] = [];
  const rate = opts.rate ?? null;
  let tokens = rate ?? 0;
  let refilledAt = Date.now();
  const takeToken = (): boolean => {
    if (rate === null) return true;
    const now = Date.now();
    tokens = Math.min(rate, tokens + ((now - refilledAt) / 1000) * rate);
    refilledAt = now;
    if (tokens < 1) return false;
    tokens--;
    return true;
  };
  const brokenTarget = opts.breakParentOnce === undefined ? null : `0x${opts.breakParentOnce.toString(16)}`;

  const server: Server = createServer(async (req, res) => {
    let started = false;
    try {
      const body = await readBody(req);
      counts.requests++;
      inFlightChange(1);
      started = true;
      if (opts.delayMs) await delay(opts.delayMs);
      if (!takeToken()) {
        counts.refused++;
        res.writeHead(429, { 'retry-after': '1', 'content-type': 'text/plain' }).end('too many requests');
        return;
      }
      const parsed = JSON.parse(body) as unknown;
      const calls = Array.isArray(parsed) ? parsed.length : 1;
      if (opts.batchCap !== undefined && calls > opts.batchCap) {
        counts.tooLarge++;
        if (opts.capAnswer === '413') res.writeHead(413, { 'content-type': 'text/plain' }).end('payload too large');
        else
          res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: null,
              error: { code: -32005, message: `batch too large: at most ${opts.batchCap} calls` },
            }),
          );
        return;
      }
      counts.forwarded++;
      const reads = (Array.isArray(parsed) ? parsed : [parsed]).filter(
        (c: { method?: unknown; params?: unknown[] }) =>
          c?.method === 'eth_getBlockReceipts' || (c?.method === 'eth_getBlockByNumber' && c.params?.[1] === true),
      ).length;
      if (reads > 0) blockCalls.push(reads);
      counts.largestBatch = Math.max(counts.largestBatch, calls);
      const up = await request(opts.upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      let text = await up.body.text();
      if (opts.answerDelayMs) await delay(opts.answerDelayMs);
      if (brokenTarget !== null && counts.parentBroken === 0 && text.includes(`"number":"${brokenTarget}"`)) {
        const data = JSON.parse(text) as { result?: { number?: string; parentHash?: string; transactions?: unknown } }[];
        const hit = (Array.isArray(data) ? data : [data]).find((r) => r?.result?.number === brokenTarget && r.result.transactions);
        if (hit?.result) {
          hit.result.parentHash = `0x${'ab'.repeat(32)}`;
          counts.parentBroken++;
          text = JSON.stringify(data);
        }
      }
      res.writeHead(up.statusCode, { 'content-type': 'application/json' }).end(text);
    } catch (e) {
      res.writeHead(502).end(String(e));
    } finally {
      if (started) inFlightChange(-1);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    blockCalls,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
