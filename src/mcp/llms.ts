/**
 * GET /llms.txt (the llmstxt.org format: an H1, a blockquote summary, then H2 sections of links): what paywatch is
 * for an agent's first minute, the semantics of its numbers, both MCP endpoints and their tools, the main HTTP
 * endpoints, the polling rules and the OpenAPI documents. Base URLs as in the manifest (src/api/routes/manifest.ts):
 * configured, else taken from the request.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { POLL_INTERVAL_SECONDS } from '../domain/filters.js';
import { cacheScope, MANIFEST_PATH, publicBaseUrl, verifyBaseUrl } from '../http/base-urls.js';
import { MCP_TOOLS, TRUST_MCP_TOOLS } from './tools.js';

/**
 * The llms.txt text for the two base URLs (no trailing slash).
 * @param rateLimitPerMinute requests per minute per client (each JSON-RPC message counts as one)
 */
export function llmsText(api: string, verify: string, rateLimitPerMinute: number): string {
  const tools = (t: Record<string, string>) =>
    Object.entries(t)
      .map(([name, twin]) => `${name} (${twin})`)
      .join(', ');
  return `# paywatch

> A public, read-only window onto machine payments on the Tempo chain (chain id 4217): observations of finalized transactions, paid-service listings with dated endpoint checks, advertised payment offers, and a separate keyed trust check that answers whether to pay a URL.

How to read every answer:

- Records are observations of finalized blocks and of what providers advertised when checked, not a complete feed: a missing record is not zero activity, and gaps in coverage are unknown.
- null means unknown, never zero. Money is an exact decimal string; atomic amounts are integer strings.
- nominal is the face value of listed USD stablecoins (the token list's, one dollar per token); other tokens have no dollar value (null). Fees and transaction value are separate figures.
- Advertised prices are offers, not charges; a listing does not establish a completed purchase; domain control does not prove wallet control; wallets identify accounts, not verified agents.
- Nothing here enables a payment. Trust-check scores describe the available evidence, not honesty.

## MCP

- [Public MCP endpoint](${api}/api/mcp): Streamable HTTP, stateless, no key. POST JSON-RPC with \`Accept: application/json, text/event-stream\`. Tools, each answering what its HTTP twin answers: ${tools(MCP_TOOLS)}.
- [Trust-check MCP endpoint](${verify}/v1/mcp): Streamable HTTP, stateless, \`Authorization: Bearer <API_KEY>\` (a free key from POST ${verify}/v1/keys), metered and limited as /v1/check. Tools: ${tools(TRUST_MCP_TOOLS)}. Without a key, pay per call with x402 on POST ${verify}/v1/check instead; x402 inside MCP is not offered.

## HTTP API

- [Manifest](${api}${MANIFEST_PATH}): what the service is, where everything is, rate limits.
- [Transactions](${api}/api/transactions): observed transactions, newest first; filters since, until, q, asset, exchange, execution; page with limit and offset and fix until while paging.
- [Transaction](${api}/api/transactions/{hash}): one transaction with its retained detail.
- [Metrics](${api}/api/metrics) and [series](${api}/api/metrics/series): aggregates over the latest matching observations.
- [Coverage](${api}/api/coverage) and [status](${api}/api/status): what has been recorded, and how fresh it is.
- [Providers](${api}/api/providers): paid-service listings with their latest checks and offers.
- [Offers](${api}/api/intelligence/offers), [changes](${api}/api/intelligence/changes), [history](${api}/api/intelligence/history): retained offers, dated changes and checks.
- [CSV export](${api}/api/export): the newest 10,000 matches.
- [Trust check](${verify}/v1/check): POST {"url": …}; answers a verdict (pay, caution, do_not_pay) with reasons.

## Polling

- Poll any one URL at most once every ${POLL_INTERVAL_SECONDS} seconds; send If-None-Match with the ETag you have (a 304 costs almost nothing).
- At most ${rateLimitPerMinute} requests per minute per client (an IPv4 address or an IPv6 /64); every message of an MCP batch counts as one request. Metrics, exports and filtered lists (HTTP or MCP) also have a small per-client budget of requests at once.

## OpenAPI

- [Public API](${api}/api/openapi.json): every public endpoint, including /api/mcp.
- [Trust check](${verify}/v1/openapi.json): /v1/check, /v1/keys, /v1/mcp, keys and x402 payment.
`;
}

/** Registers GET /llms.txt on the public listener (text/plain, cacheable like the manifest). */
export function llmsRoute(app: FastifyInstance, ctx: AppContext): void {
  const fixed =
    ctx.config.publicUrl && ctx.config.verifyUrl
      ? llmsText(publicBaseUrl(ctx.config), verifyBaseUrl(ctx.config), ctx.config.rateLimitPerMinute)
      : null;
  app.get(
    '/llms.txt',
    {
      schema: {
        tags: ['meta'],
        summary: 'What paywatch is, for a language model (llmstxt.org format)',
        response: { 200: { description: 'Markdown text (https://llmstxt.org).', content: { 'text/plain': { schema: z.string() } } } },
      },
    },
    async (req, reply) =>
      reply
        .type('text/plain; charset=utf-8')
        .header('cache-control', `${cacheScope(ctx.config.publicUrl, ctx.config.verifyUrl)}, max-age=300`)
        .send(fixed ?? llmsText(publicBaseUrl(ctx.config, req), verifyBaseUrl(ctx.config, req), ctx.config.rateLimitPerMinute)),
  );
}
