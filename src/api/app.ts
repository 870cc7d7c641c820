/**
 * Builds the main Fastify application (public API + private intake): zod schemas validate requests and
 * generate the OpenAPI 3.1 document (GET /api/openapi.json), errors map to `{error}`, per-IP rate limits,
 * weak ETags with 304 on If-None-Match, br/gzip compression, CORS on the public routes (none on private ones), and
 * the explorer's pages (./web.ts).
 */
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import etag from '@fastify/etag';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import type { AppContext } from '../context.js';
import { baseFastify } from '../http/fastify.js';
import { trustProxyOption } from '../http/trust-proxy.js';
import { AnswerReplay } from '../http/replay.js';
import { LIMITS } from '../limits/index.js';
import { registerRequestLimit } from '../limits/register.js';
import { privateRoutePlugins, publicRoutePlugins } from './routes/index.js';
import { registerCompression } from '../http/compression.js';
import { refusePreflight, registerPublicCors } from '../http/cors.js';
import { addHealthRoutes } from '../http/health.js';
import { registerExplorer } from './web.js';
import { documentFinisher } from '../http/openapi.js';
import { configuredBaseUrls } from '../http/base-urls.js';
import { MCP_TOOLS } from '../mcp/tools.js';
import { MANIFEST_PATH } from './routes/manifest.js';
import { POLL_INTERVAL_SECONDS } from '../domain/filters.js';

export interface BuildAppOptions {
  /** pino logger options or false for silence (tests). */
  logger?: boolean | object;
}

/**
 * Creates the app with every route plugin registered; call `listen` or `inject` on it.
 * @param ctx store, config and component state shared by the routes
 */
export async function buildApp(ctx: AppContext, opts: BuildAppOptions = {}): Promise<FastifyInstance> {
  // Remembered chain answers replayed in front of the router (../http/replay.ts).
  const replay = new AnswerReplay();
  const app = baseFastify(ctx.config, LIMITS.publicBody.value, opts.logger, 'api', replay);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'paywatch public observation API',
        version: '1.0.0',
        description: `Free, read-only observations of finalized Tempo (chain id 4217) transactions, coverage, metrics, CSV export, provider listings and payment-offer intelligence. Records are observations, not a complete feed: a missing record is not zero activity. Unknown values are null, never zero. Money is an exact decimal string. Wallets identify accounts, not verified bots. Read-only access only: this document enables no payments, mandates or agent identity. No uptime guarantee. The same provider and intelligence reads are MCP tools at /api/mcp (Streamable HTTP, stateless, no key or payment; send Accept: application/json, text/event-stream): ${Object.keys(MCP_TOOLS).join(', ')}. Polling: at most once every ${POLL_INTERVAL_SECONDS} seconds; cache (ETag, Cache-Control) and keep concurrency low. What the service is, in one document: ${MANIFEST_PATH}.`,
      },
    },
    transform: jsonSchemaTransform,
    transformObject: documentFinisher(configuredBaseUrls(ctx.config).api),
  });
  // Weak: one validator for every encoding of an answer (../http/compression.ts). Registered before compression so
  // the ETag and the 304 are decided on the identity body.
  await app.register(etag, { weak: true });
  await registerCompression(app);
  // Per client (IPv6 by /64), counted through Redis when configured (src/limits/).
  await registerRequestLimit(app, 'publicRequests', ctx.config.rateLimitPerMinute, ctx.limits);
  replay.attach(app, trustProxyOption(ctx.config));

  // CORS by scope (../http/cors.ts). The rate limit's hooks are route-level, so they run after the scope's CORS hook
  // and a 429 can be read by a page on another origin too.
  // Public reads go to the read replica when there is one (src/store/read-replica.ts); the rest to the primary.
  const readCtx: AppContext = ctx.readStore ? { ...ctx, store: ctx.readStore, primary: ctx.store } : ctx;
  await app.register(async (pub) => {
    await registerPublicCors(pub);
    for (const plugin of publicRoutePlugins) await pub.register(plugin, readCtx);
    addHealthRoutes(pub, readCtx, ['operations']);
    pub.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    await registerExplorer(pub, ctx);
  });
  await app.register(async (priv) => {
    const refuseOptions = refusePreflight(priv);
    for (const plugin of privateRoutePlugins) await priv.register(plugin, ctx);
    refuseOptions();
  });
  return app;
}
