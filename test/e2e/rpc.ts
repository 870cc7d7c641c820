/** One raw JSON-RPC call to a node, for test set-up (mining, reading the finalized head). */
export async function rpcCall<T = unknown>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const r = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const j = (await r.json()) as { result?: T; error?: { message: string } };
  if (j.error) throw new Error(`${method}: ${j.error.message}`);
  return j.result as T;
}

/** The node's finalized block height. */
export async function finalizedHeight(rpcUrl: string): Promise<number> {
  return Number.parseInt((await rpcCall<{ number: string }>(rpcUrl, 'eth_getBlockByNumber', ['finalized', false])).number, 16);
}
