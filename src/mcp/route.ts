/**
 * The MCP endpoint at /api/mcp: Streamable HTTP, stateless (no session id), no key, answered by ./jsonrpc.ts over
 * the tool table built once for this app (./tools.ts). POST carries JSON-RPC; clients must send
 * `Accept: application/json, text/event-stream`. GET and DELETE (server-initiated streams, session teardown) do
 * not exist without sessions: 405. Also serves GET /llms.txt (./llms.ts), the agent's first read.
 */
import { PAYWATCH_VERSION } from '../net/user-agent.js';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import { answerMcpPost, listenerRequestCounter, MAX_BATCH } from './jsonrpc.js';
import { llmsRoute } from './llms.js';
import { MCP_TOOLS, publicToolTable } from './tools.js';

const version = PAYWATCH_VERSION;

/** Registers /api/mcp and /llms.txt on the main listener's public scope. */
export const mcpRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  const table = publicToolTable(ctx, { name: 'paywatch', title: 'paywatch (read-only observations)', version });
  const endpoint = { table, countExtra: listenerRequestCounter(app, 'publicRequests') };
  const description = `Model Context Protocol server (Streamable HTTP, stateless, no key or payment). POST JSON-RPC with Accept: application/json, text/event-stream; a batch holds at most ${MAX_BATCH} messages, each counted as one request against the rate limit. Read-only tools, each answering what its HTTP twin answers (structuredContent, and the same JSON as text): ${Object.entries(
    MCP_TOOLS,
  )
    .map(([tool, route]) => `${tool} (${route})`)
    .join(', ')}.`;
  app.post('/api/mcp', { schema: { tags: ['mcp'], summary: 'MCP endpoint (read-only tools)', description } }, (req, reply) =>
    answerMcpPost(endpoint, req, reply),
  );
  addStatelessRefusals(app, '/api/mcp');
  llmsRoute(app, ctx);
};

/** GET and DELETE on a stateless MCP endpoint: 405 `{error}` with Allow: POST. */
export function addStatelessRefusals(app: FastifyInstance, path: string): void {
  const notAllowed = async (_req: unknown, reply: FastifyReply) =>
    reply.code(405).header('allow', 'POST').send({ error: 'method not allowed: this MCP endpoint is stateless; use POST' });
  app.get(path, { schema: { hide: true } }, notAllowed);
  app.delete(path, { schema: { hide: true } }, notAllowed);
}
