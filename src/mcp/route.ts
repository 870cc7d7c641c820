/**
 * The MCP endpoint at /api/mcp: Streamable HTTP, stateless (a new server and transport per request, no session
 * id), no key. POST carries JSON-RPC; clients must send `Accept: application/json, text/event-stream`. GET and
 * DELETE (server-initiated streams, session teardown) do not exist without sessions: 405.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AppContext } from '../context.js';
import { createMcpServer, MCP_TOOLS } from './tools.js';

/** Registers /api/mcp on the main listener. */
export const mcpRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  const description = `Model Context Protocol server (Streamable HTTP, stateless, no key or payment). POST JSON-RPC with Accept: application/json, text/event-stream. Read-only tools, each with the input and output shape of its HTTP twin: ${Object.entries(
    MCP_TOOLS,
  )
    .map(([tool, route]) => `${tool} (${route})`)
    .join(', ')}.`;
  app.post('/api/mcp', { schema: { tags: ['mcp'], summary: 'MCP endpoint (read-only tools)', description } }, async (req, reply) => {
    const server = createMcpServer(ctx);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // The transport writes the raw response: hand it the headers the hooks set so far (CORS, X-Request-Id,
    // x-ratelimit-*), which Fastify would otherwise drop with the hijacked reply.
    for (const [name, value] of Object.entries(reply.getHeaders()))
      if (value !== undefined) reply.raw.setHeader(name, value as string | number | string[]);
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req.raw, reply.raw, req.body);
    } catch (err) {
      req.log.error({ err }, 'mcp request failed');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null }));
      }
    }
  });
  const notAllowed = async (_req: unknown, reply: FastifyReply) =>
    reply.code(405).header('allow', 'POST').send({ error: 'method not allowed: this MCP endpoint is stateless; use POST' });
  app.get('/api/mcp', { schema: { hide: true } }, notAllowed);
  app.delete('/api/mcp', { schema: { hide: true } }, notAllowed);
};
