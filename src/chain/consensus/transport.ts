/**
 * One JSON-RPC call over HTTP for the finality side of the collector: the consensus node
 * (`consensus_getFinalization`) and the witnesses (`eth_getBlockByNumber`). Unlike src/chain/rpc.ts it never
 * retries: a missing certificate (Tempo's 503) or a silent witness is simply asked again at the next check, and
 * collection never waits for it. Credentials in the URL go as basic auth (RFC 7617), as src/chain/rpc.ts sends
 * them, and never into a message: errors name the URL without credentials, path or query (src/net/redact-url.ts).
 * Each request takes its turn in the pace the collector's client keeps for the same node (nodeGate), so these
 * reads never spend a rate-limited node's allowance behind the client's back.
 */
import { redactUrl } from '../../net/redact-url.js';
import { type NodeGate, nodeGate, splitCredentials } from '../rpc.js';
import type { ConsensusRequest } from './reader.js';

/** A JSON-RPC error answer; `rpcCode` is what ./reader.ts classifies (method not found, not available). */
export class JsonRpcAnswerError extends Error {
  constructor(
    readonly rpcCode: number | null,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A ConsensusRequest over fetch to `url`: honours the caller's signal and refuses a body over `maxBytes`
 * while reading it.
 * @param gate the pace each request waits for and reports its status to (default: that of the node at `url`,
 *   shared with its TempoRpc clients; unpaced when it has none)
 * @example await httpJsonRpc('https://user:key@node.example')('eth_chainId', [], { signal, maxBytes: 1024 })
 * @throws JsonRpcAnswerError for a JSON-RPC error answer; Error for transport, HTTP status, size or JSON faults
 */
export function httpJsonRpc(url: string, gate: NodeGate = nodeGate(url)): ConsensusRequest {
  const { endpoint, authorization } = splitCredentials(url);
  const shown = redactUrl(url);
  let id = 0;
  return async (method, params, { signal, maxBytes }) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (authorization) headers.authorization = authorization;
    const ticket = await gate.take();
    signal.throwIfAborted();
    const res = await fetch(endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      signal,
    });
    gate.answered(ticket, res.status, res.headers.get('retry-after'));
    if (!res.ok) {
      await res.body?.cancel();
      throw new Error(`HTTP ${res.status} from ${shown}`);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > maxBytes) throw new Error(`answer from ${shown} larger than ${maxBytes} bytes`);
      chunks.push(chunk);
    }
    let body: { result?: unknown; error?: { code?: unknown; message?: unknown } };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      throw new Error(`answer from ${shown} is not JSON`);
    }
    if (body?.error) {
      const code = typeof body.error.code === 'number' ? body.error.code : null;
      throw new JsonRpcAnswerError(code, String(body.error.message ?? 'error').slice(0, 200));
    }
    if (!body || !('result' in body)) throw new Error(`answer from ${shown} has neither result nor error`);
    return body.result;
  };
}
