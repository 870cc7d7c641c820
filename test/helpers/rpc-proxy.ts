/**
 * A real loopback HTTP proxy between a JSON-RPC client and a node that injects faults on chosen requests:
 * a timeout (the request is held and never answered), an HTTP 5xx, malformed JSON, and a receipt that does
 * not match its block (an `eth_getBlockReceipts` answer whose first receipt's transactionHash or blockHash is
 * rewritten). Everything else is forwarded byte for byte.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = 'timeout' | 'http5xx' | 'malformed' | 'receiptTxHash' | 'receiptBlockHash';

export interface RpcProxyOptions {
  /** The node's URL. */
  upstream: string;
  /** Faults to inject, in order; each is used once. */
  faults: Fault[];
  /** Requests forwarded untouched before the first fault (default 0). */
  skipFirst?: number;
  /** Forwarded requests between two faults (default 2). */
  every?: number;
  /** Methods answered with JSON-RPC error -32601 "method not found", as a node without them would. */
  unsupported?: string[];
}

export interface RpcProxy {
  /** http://127.0.0.1:PORT */
  url: string;
  /** How many of each fault were injected so far. */
  injected: Record<Fault, number>;
  /** Faults not injected yet. */
  remaining(): Fault[];
  /** Requests seen. */
  requests(): number;
  close(): Promise<void>;
}

const ZERO_HASH = `0x${'ee'.repeat(32)}`;

/** The whole body of an HTTP request, as UTF-8 text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (s += d));
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });
}

/** True when the request asks for block receipts (so a receipt fault can be injected into its answer). */
function asksReceipts(body: string): boolean {
  return body.includes('"eth_getBlockReceipts"');
}

/**
 * Rewrites the first non-empty eth_getBlockReceipts result in a JSON-RPC (batch) answer.
 * @returns the new body, or null when the answer holds no receipt to rewrite
 */
function corruptReceipt(answer: string, field: 'transactionHash' | 'blockHash'): string | null {
  const data = JSON.parse(answer) as unknown;
  const items = Array.isArray(data) ? data : [data];
  for (const it of items as { result?: unknown }[]) {
    const r = it?.result;
    if (Array.isArray(r) && r.length > 0 && r[0] && typeof r[0] === 'object' && field in r[0]) {
      (r[0] as Record<string, unknown>)[field] = ZERO_HASH;
      return JSON.stringify(data);
    }
  }
  return null;
}

/** Starts the proxy on a free loopback port. */
export async function startRpcProxy(opts: RpcProxyOptions): Promise<RpcProxy> {
  const queue = [...opts.faults];
  const injected: Record<Fault, number> = { timeout: 0, http5xx: 0, malformed: 0, receiptTxHash: 0, receiptBlockHash: 0 };
  const every = opts.every ?? 2;
  let seen = 0;
  let sinceFault = Number.POSITIVE_INFINITY;

  const unsupported = new Set(opts.unsupported ?? []);
  const upstream = async (body: string) => {
    const r = await fetch(opts.upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { status: r.status, text: await r.text() };
  };
  /** Forwards the call(s), answering unsupported methods itself (merged back into the batch answer). */
  const forward = async (body: string) => {
    if (unsupported.size === 0) return upstream(body);
    const parsed = JSON.parse(body) as { id: unknown; method: string } | { id: unknown; method: string }[];
    const calls = Array.isArray(parsed) ? parsed : [parsed];
    const refused = calls
      .filter((c) => unsupported.has(c.method))
      .map((c) => ({
        jsonrpc: '2.0',
        id: c.id,
        error: { code: -32601, message: `the method ${c.method} does not exist/is not available` },
      }));
    const rest = calls.filter((c) => !unsupported.has(c.method));
    if (refused.length === 0) return upstream(body);
    let answers: unknown[] = [];
    if (rest.length > 0) {
      const r = await upstream(JSON.stringify(rest));
      if (r.status !== 200) return r;
      answers = JSON.parse(r.text) as unknown[];
    }
    const all = [...answers, ...refused];
    return { status: 200, text: JSON.stringify(Array.isArray(parsed) ? all : all[0]) };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    seen++;
    sinceFault++;
    const due = seen > (opts.skipFirst ?? 0) && sinceFault > every && queue.length > 0;
    const fault = due ? queue[0] : null;
    if (fault === 'timeout') {
      queue.shift();
      injected.timeout++;
      sinceFault = 0;
      return; // never answered: the client's timeout must fire; close() destroys the socket
    }
    if (fault === 'http5xx') {
      queue.shift();
      injected.http5xx++;
      sinceFault = 0;
      res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream overloaded (injected fault)');
      return;
    }
    if (fault === 'malformed') {
      queue.shift();
      injected.malformed++;
      sinceFault = 0;
      res.writeHead(200, { 'content-type': 'application/json' }).end('[{"jsonrpc":"2.0","id":1,"result":{"number":"0x1');
      return;
    }
    const answer = await forward(body);
    // Requests run concurrently (the collector pipelines its fetches): the fault is still due only if no other
    // request took it while this one was forwarded.
    if ((fault === 'receiptTxHash' || fault === 'receiptBlockHash') && queue[0] === fault && asksReceipts(body) && answer.status === 200) {
      const changed = corruptReceipt(answer.text, fault === 'receiptTxHash' ? 'transactionHash' : 'blockHash');
      if (changed !== null) {
        queue.shift();
        injected[fault]++;
        sinceFault = 0;
        answer.text = changed;
      }
    }
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.text);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy error: ${(e as Error).message}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    injected,
    remaining: () => [...queue],
    requests: () => seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
