/**
 * One POST to an MCP endpoint over node:http, its answer as bytes: fetch would decode the body, hiding the bytes
 * sent and their Content-Encoding (test/mcp/fixed-answers.test.ts, test/mcp/spliced-answers.test.ts).
 */
import { request } from 'node:http';

/** What the Streamable HTTP transport requires of a POST (src/mcp/jsonrpc.ts answerMcpPost). */
export const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

/** An answer as received: status, headers and the body's bytes (still encoded). */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * POSTs `body` (as JSON) to `base` + `path` with MCP_HEADERS and `headers`.
 * @param base http://HOST:PORT of the listener
 */
export function postMcpRaw(base: string, body: unknown, headers: Record<string, string>, path = '/api/mcp'): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: 'POST', headers: { ...MCP_HEADERS, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
