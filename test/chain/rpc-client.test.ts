/**
 * TempoRpc's transport against real HTTP servers on 127.0.0.1: credentials in the URL go out as basic auth and
 * never into the source shown; a 5xx, a body that is not JSON and a request that times out are each retried;
 * a node that keeps failing ends in RpcUnavailableError naming the status, a read of several requests too; an empty
 * read sends nothing; a node on another chain is refused.
 * (Faults inside a real collector run, through a proxy in front of anvil: test/e2e/collector-robustness.test.ts.)
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RpcUnavailableError, TempoRpc, WrongChainError } from '../../src/chain/rpc.js';

type Handler = (req: IncomingMessage, body: { id: number; method: string }[], res: ServerResponse) => void;
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A JSON-RPC node whose answer to the n-th request (0-based) is decided by `handlers[n]` (the last repeats). */
async function node(handlers: Handler[]): Promise<{ url: string; requests: IncomingMessage[] }> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const h = handlers[Math.min(requests.length, handlers.length - 1)]!;
      requests.push(req);
      h(req, JSON.parse(raw), res);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

/** Answers every call with `result(method)`. */
const answer =
  (result: (method: string) => unknown, chainId = '0x1079'): Handler =>
  (_req, body, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify(body.map((c) => ({ jsonrpc: '2.0', id: c.id, result: c.method === 'eth_chainId' ? chainId : result(c.method) }))),
    );
  };
const status =
  (code: number): Handler =>
  (_req, _body, res) =>
    void res.writeHead(code).end('busy');
const garbage: Handler = (_req, _body, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0",');
const silent: Handler = () => {}; // never answers

const fast = { baseDelayMs: 1, maxDelayMs: 5 };

describe('TempoRpc transport', () => {
  it('sends credentials in the URL as basic auth and keeps them out of the URL and the source', async () => {
    const n = await node([answer(() => '0x2a')]);
    const rpc = await TempoRpc.connect({ url: n.url.replace('http://', 'http://alice:s%3Acret@'), ...fast });
    expect(await rpc.call('eth_blockNumber', [])).toBe('0x2a');
    expect(n.requests.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from('alice:s:cret').toString('base64')}`);
    expect(n.requests.at(-1)!.url).toBe('/');
    expect(rpc.source).toBe(n.url);
  });

  it('retries a 5xx, a body that is not JSON and a request that times out, then answers', async () => {
    const n = await node([answer(() => null), status(503), garbage, silent, answer(() => '0x7')]);
    const retries: string[] = [];
    const rpc = await TempoRpc.connect({ url: n.url, timeoutMs: 300, ...fast, onRetry: ({ error }) => retries.push(error) });
    expect(await rpc.call('eth_blockNumber', [])).toBe('0x7');
    expect(retries).toEqual([`HTTP 503 from ${n.url}`, expect.stringMatching(/JSON/), 'The operation was aborted due to timeout']);
  });

  it('gives up with RpcUnavailableError naming the last failure', async () => {
    const n = await node([answer(() => null), status(500)]);
    const rpc = await TempoRpc.connect({ url: n.url, maxAttempts: 3, ...fast });
    const err = await rpc.call('eth_blockNumber', []).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RpcUnavailableError);
    expect((err as Error).message).toBe(`eth_blockNumber at ${n.url} failed 3 times; last error: HTTP 500 from ${n.url}`);
  });

  it('answers an empty read at once, and rejects a read of several requests that keeps failing', async () => {
    const n = await node([answer(() => null), status(500)]);
    const rpc = await TempoRpc.connect({ url: n.url, maxAttempts: 2, batchCalls: 2, concurrency: 1, ...fast });
    expect(await rpc.batch([])).toEqual([]);
    expect(n.requests).toHaveLength(1); // eth_chainId only
    const calls = Array.from({ length: 6 }, () => ({ method: 'eth_blockNumber', params: [] }));
    await expect(rpc.batch(calls)).rejects.toBeInstanceOf(RpcUnavailableError);
  });

  it('refuses a node of another chain', async () => {
    const n = await node([answer(() => null, '0x1')]);
    await expect(TempoRpc.connect({ url: n.url, ...fast })).rejects.toBeInstanceOf(WrongChainError);
  });
});
