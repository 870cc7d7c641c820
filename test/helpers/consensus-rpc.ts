/**
 * A real loopback JSON-RPC node for finality tests (node:http on 127.0.0.1), in front of an upstream node (anvil):
 * - `consensus_getFinalization` (`["latest"]` or `[{"height": N}]`) and `consensus_getLatest`, answering Tempo's
 *   CertifiedBlock (tempoxyz/tempo `crates/node/src/rpc/consensus/types.rs`), or Tempo's error 503 when there is
 *   no certificate; with `certify`, certificates signed by test keys over the served chain's own blocks;
 * - every other method forwarded to the upstream, single calls and batches;
 * - `extraData`: chosen blocks served with another `extraData` (a boundary block carrying a DKG outcome, which
 *   anvil cannot mine). That block and every later one are served with their hashes recomputed from their headers
 *   (src/chain/integrity/header.ts `headerHash`, in the encoding the upstream's blocks use) and every reference to
 *   an old hash rewritten (parent hashes, transactions', receipts' and logs' block hashes), so the served chain is
 *   consistent and its certificates sign the served hashes;
 * - `unsupported`: every `consensus_*` call answered -32601, as shared RPC services do; `hang`: never answered.
 * Also a ConsensusRequest over fetch (what the project's RPC client provides to src/chain/consensus/reader.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ConsensusRequest, epochOf } from '../../src/chain/consensus/index.js';
import { checkBlockHash, headerHash } from '../../src/chain/integrity/index.js';
import type { RpcBlock } from '../../src/chain/types.js';
import { signFinalization, type TestKey } from './consensus.js';
import { readBody } from './rpc-proxy.js';

/** A JSON-RPC error answer, as a request function rejects with it (code as `rpcCode`, as src/chain/rpc.ts does). */
export class TestRpcError extends Error {
  constructor(
    readonly rpcCode: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A ConsensusRequest over fetch. It honours the signal and refuses a body of more than `maxBytes` while reading it.
 */
export function fetchRequest(url: string): ConsensusRequest {
  let id = 0;
  return async (method, params, { signal, maxBytes }) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      signal,
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > maxBytes) throw new Error(`answer larger than ${maxBytes} bytes`);
      chunks.push(chunk);
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { result?: unknown; error?: { code: number; message: string } };
    if (body.error) throw new TestRpcError(body.error.code, body.error.message);
    return body.result;
  };
}

/** A Tempo `CertifiedBlock` as `consensus_getFinalization` serves it. */
export interface CertifiedBlockJson {
  epoch: number;
  view: number;
  digest: string;
  /** Hex without 0x, as the node serves it. */
  certificate: string;
  block: { header: Record<string, unknown>; body: { transactions: unknown[]; ommers: unknown[]; withdrawals: unknown } };
}

/**
 * The CertifiedBlock of a node's block: its header members (without `hash`) and its transactions as the body.
 * @param certificate 0x hex (served without the prefix)
 */
export function certifiedBlockJson(block: RpcBlock, certificate: string, round: { epoch: number; view: number }): CertifiedBlockJson {
  const { hash, transactions, uncles: _u, withdrawals, size: _s, totalDifficulty: _t, ...header } = block;
  return {
    epoch: round.epoch,
    view: round.view,
    digest: hash,
    certificate: certificate.replace(/^0x/, ''),
    block: { header, body: { transactions, ommers: [], withdrawals: withdrawals ?? null } },
  };
}

/** Which certificate the node serves for a query: a CertifiedBlock, or null for "nothing stored". */
export type FinalizationSource = (query: 'latest' | { height: number }) => CertifiedBlockJson | null | Promise<CertifiedBlockJson | null>;

/** How `certify` signs the served chain's blocks: epoch = height / epochLength, view = height + 1, parent view = height. */
export interface CertifierOptions {
  epochLength: number;
  /** The key that signs an epoch's certificates. */
  keyFor: (epoch: number) => TestKey;
  /** Rewrites a certificate's payload (a certificate over another block). */
  payloadFor?: (height: number, hash: string) => string;
}

export interface ConsensusRpcOptions {
  /** The node every other method is forwarded to (anvil); without it they answer -32601. */
  upstream?: string;
  /** Serves certificates as given. */
  finalization?: FinalizationSource;
  /** Serves certificates signed over the served chain's own blocks, up to its finalized head. */
  certify?: CertifierOptions;
  /** Blocks served with another `extraData` (height → 0x hex); later blocks follow with recomputed hashes. */
  extraData?: Record<number, string>;
  /** Answer every `consensus_*` call with -32601. */
  unsupported?: boolean;
  /** Hold `consensus_*` calls unanswered until close. */
  hang?: boolean;
}

export interface ConsensusRpc {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Every call received, in order. */
  calls: { method: string; params: unknown[] }[];
  close(): Promise<void>;
}

interface Call {
  id: unknown;
  method: string;
  params?: unknown[];
}

const METHOD_NOT_FOUND = -32601;
const notFound = (c: Call) => ({
  jsonrpc: '2.0',
  id: c.id,
  error: { code: METHOD_NOT_FOUND, message: `the method ${c.method} does not exist/is not available` },
});

/**
 * The upstream's chain as served: blocks from the first rewritten height on get the chosen `extraData`, the
 * rewritten parent's hash and their own recomputed hash; `rename` maps each replaced hash to its new one.
 */
class ChainView {
  private readonly first: number;
  private readonly rewritten = new Map<number, RpcBlock>();
  /** Old hash → served hash, and back. */
  readonly rename = new Map<string, string>();
  readonly original = new Map<string, string>();
  private id = 0;

  constructor(
    private readonly upstream: string,
    private readonly extraData: Record<number, string>,
  ) {
    const heights = Object.keys(extraData).map(Number);
    this.first = heights.length ? Math.min(...heights) : Number.POSITIVE_INFINITY;
  }

  async raw(method: string, params: unknown[]): Promise<Record<string, unknown>> {
    const res = await fetch(this.upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }),
    });
    return (await res.json()) as Record<string, unknown>;
  }

  /** Makes sure every block up to `height` is rewritten (from the first rewritten height on), in order. */
  async prepare(height: number): Promise<void> {
    for (let h = this.first; h <= height; h++) {
      if (this.rewritten.has(h)) continue;
      const b = (await this.raw('eth_getBlockByNumber', [`0x${h.toString(16)}`, true])).result as RpcBlock | null;
      if (b === null) return;
      const encoding = checkBlockHash(b).encoding ?? 'ethereum';
      const parent = this.rewritten.get(h - 1);
      const served = { ...b, parentHash: parent ? parent.hash : b.parentHash, extraData: this.extraData[h] ?? b.extraData } as RpcBlock;
      served.hash = headerHash(served, encoding);
      this.rename.set(b.hash.toLowerCase(), served.hash);
      this.original.set(served.hash, b.hash.toLowerCase());
      this.rewritten.set(h, served);
    }
  }

  /** Heights named by `number`/`blockNumber` members of a JSON answer. */
  static heights(v: unknown, out: number[] = []): number[] {
    if (Array.isArray(v)) for (const x of v) ChainView.heights(x, out);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if ((k === 'number' || k === 'blockNumber') && typeof x === 'string' && /^0x[0-9a-f]+$/i.test(x)) out.push(Number(BigInt(x)));
        else ChainView.heights(x, out);
      }
    }
    return out;
  }

  /** A JSON value with old hashes renamed (and a rewritten block's `extraData` set). */
  rewrite(v: unknown): unknown {
    if (typeof v === 'string') return this.rename.get(v.toLowerCase()) ?? v;
    if (Array.isArray(v)) return v.map((x) => this.rewrite(x));
    if (v && typeof v === 'object') {
      const o = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.rewrite(x)]));
      if (typeof o.number === 'string' && typeof o.extraData === 'string' && 'hash' in o) {
        const served = this.rewritten.get(Number(BigInt(o.number)));
        if (served) o.extraData = served.extraData;
      }
      return o;
    }
    return v;
  }

  /** Forwards a call (served hashes in its params mapped back) and rewrites the answer. */
  async forward(c: Call): Promise<unknown> {
    const params = (c.params ?? []).map((p) => (typeof p === 'string' ? (this.original.get(p.toLowerCase()) ?? p) : p));
    const answer = await this.raw(c.method, params);
    const heights = ChainView.heights(answer.result);
    if (heights.length) await this.prepare(Math.max(...heights));
    return { ...(this.rewrite(answer) as object), id: c.id };
  }
}

/** Starts the node on a free loopback port (see the module comment). */
export async function startConsensusRpc(opts: ConsensusRpcOptions): Promise<ConsensusRpc> {
  const calls: ConsensusRpc['calls'] = [];
  const view = opts.upstream ? new ChainView(opts.upstream, opts.extraData ?? {}) : null;
  const forward = (c: Call): Promise<unknown> => (view ? view.forward(c) : Promise.resolve(notFound(c)));
  const served = async (tag: string): Promise<RpcBlock | null> =>
    ((await forward({ id: 0, method: 'eth_getBlockByNumber', params: [tag, true] })) as { result: RpcBlock | null }).result;

  const certify = opts.certify;
  const finalization: FinalizationSource | undefined =
    opts.finalization ??
    (certify &&
      (async (query) => {
        const head = await served('finalized');
        if (head === null) return null;
        const height = query === 'latest' ? Number(BigInt(head.number)) : query.height;
        if (height > Number(BigInt(head.number))) return null;
        const b = await served(`0x${height.toString(16)}`);
        if (b === null) return null;
        const epoch = epochOf(height, certify.epochLength);
        const payload = certify.payloadFor ? certify.payloadFor(height, b.hash) : b.hash;
        const certificate = signFinalization({ key: certify.keyFor(epoch), epoch, view: height + 1, parentView: height, payload });
        return certifiedBlockJson(b, certificate, { epoch, view: height + 1 });
      }));

  const consensus = async (c: Call): Promise<unknown> => {
    if (opts.unsupported || !finalization) return notFound(c);
    const ok = (result: unknown) => ({ jsonrpc: '2.0', id: c.id, result });
    if (c.method === 'consensus_getLatest') return ok({ finalized: await finalization('latest'), notarized: null });
    if (c.method !== 'consensus_getFinalization') return notFound(c);
    const q = c.params?.[0];
    const height = typeof q === 'object' && q !== null ? (q as { height?: unknown }).height : undefined;
    const query = q === 'latest' ? 'latest' : typeof height === 'number' ? { height } : null;
    if (query === null) return { jsonrpc: '2.0', id: c.id, error: { code: -32602, message: 'invalid params' } };
    const found = await finalization(query);
    if (found !== null) return ok(found);
    const message = 'the consensus subservice was not available, but the request can be retried later';
    return { jsonrpc: '2.0', id: c.id, error: { code: 503, message, data: 'certificate' } };
  };

  const hanging = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    (async () => {
      const parsed = JSON.parse(await readBody(req)) as Call | Call[];
      const list = Array.isArray(parsed) ? parsed : [parsed];
      for (const c of list) calls.push({ method: c.method, params: c.params ?? [] });
      if (opts.hang && list.some((c) => c.method.startsWith('consensus_'))) {
        await new Promise<void>((r) => hanging.add(r));
        return;
      }
      const answers = await Promise.all(list.map((c) => (c.method.startsWith('consensus_') ? consensus(c) : forward(c))));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]));
    })().catch((e) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(String(e));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((r) => {
        for (const release of hanging) release();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
