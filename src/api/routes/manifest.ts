/**
 * GET /.well-known/paywatch.json: the service manifest (RFC 8615 well-known location). What paywatch is, where
 * its API description, MCP endpoint and trust check live, how to poll the read-only API, what its data means, and
 * that it enables no payments, mandates or agent identity (contract §1: the manifest describes read-only access
 * only), so it names the trust check and its own OpenAPI document but none of its access or payment terms. Built
 * from the configuration and the address the request was sent to (src/http/base-urls.ts); in `start` and `demo` the
 * configuration carries the trust check's real port (withListeningVerifyPort). Its schema is in the OpenAPI
 * document. Linked from /api/status.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { PAYWATCH_VERSION } from '../../net/user-agent.js';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { Config } from '../../config.js';
import { CHAIN_ID } from '../../domain/observation.js';
import { integerConstant } from '../../domain/integer-constant.js';
import { MCP_TOOLS } from '../../mcp/tools.js';
import { POLL_INTERVAL_SECONDS } from '../../domain/filters.js';
import { cacheScope, MANIFEST_PATH, publicBaseUrl, verifyBaseUrl, type RequestAddress } from '../../http/base-urls.js';

export { MANIFEST_PATH };

/** The version of the public API the manifest and /api/openapi.json describe. */
export const API_VERSION = '1.0.0';

export const Manifest = z
  .object({
    name: z.literal('paywatch'),
    description: z.string(),
    software_version: z.string().describe("paywatch's package version."),
    chain: z.object({ name: z.literal('Tempo'), chain_id: integerConstant(CHAIN_ID), caip2: z.literal(`eip155:${CHAIN_ID}`) }),
    api: z.object({
      base_url: z.url(),
      openapi_url: z.url(),
      openapi_version: z.literal('3.1.0'),
      version: z.literal(API_VERSION),
      access: z.literal('read-only'),
      authentication: z.literal('none'),
    }),
    mcp: z.object({
      url: z.url(),
      transport: z.literal('streamable-http'),
      stateless: z.literal(true),
      authentication: z.literal('none'),
      tools: z.array(z.string()).describe('Names of the read-only MCP tools.'),
    }),
    polling: z.object({
      min_interval_seconds: z.int().describe('Poll any one URL at most this often.'),
      conditional_requests: z.string(),
    }),
    rate_limits: z.object({
      requests_per_minute_per_client: z.int(),
      heavy_requests_in_flight_per_client: z.int().describe('Metrics, export or filtered lists one client may have running at once.'),
      client: z.string().describe('What one client is.'),
    }),
    data_semantics: z.array(z.string()).describe('How to read every number the API gives.'),
    enables: z
      .object({ payments: z.literal(false), mandates: z.literal(false), agent_identity: z.literal(false), statement: z.string() })
      .describe('What using this service does not do.'),
    trust_check: z
      .object({
        url: z.url().describe('POST here to check a URL: the trust-check listener as it really listens (or PAYWATCH_VERIFY_URL).'),
        openapi_url: z
          .url()
          .describe("The trust check's own OpenAPI document: its requests, keys and payment are described there, not here."),
        description: z.string(),
      })
      .describe(
        'Where the separate trust-check API is (its own listener, its own access rules). This manifest describes read-only access only: how the trust check is accessed or paid is in its own document.',
      ),
  })
  .describe('What this service is and how to use it.');

export type ManifestBody = z.infer<typeof Manifest>;

const version = PAYWATCH_VERSION;

/**
 * The manifest for this configuration, as seen by a request addressed to `req` (its base URLs: the configured
 * public URLs, else the request's scheme and host; deterministic for the same configuration and address).
 */
export function buildManifest(config: Config, req?: RequestAddress): ManifestBody {
  const base = publicBaseUrl(config, req);
  const verify = verifyBaseUrl(config, req);
  return {
    name: 'paywatch',
    description:
      'A public window onto machine payments on the Tempo chain: observations of finalized transactions, paid-service listings with dated checks, and payment-offer intelligence.',
    software_version: version,
    chain: { name: 'Tempo', chain_id: CHAIN_ID, caip2: `eip155:${CHAIN_ID}` },
    api: {
      base_url: base,
      openapi_url: `${base}/api/openapi.json`,
      openapi_version: '3.1.0',
      version: API_VERSION,
      access: 'read-only',
      authentication: 'none',
    },
    mcp: { url: `${base}/api/mcp`, transport: 'streamable-http', stateless: true, authentication: 'none', tools: Object.keys(MCP_TOOLS) },
    polling: {
      min_interval_seconds: POLL_INTERVAL_SECONDS,
      conditional_requests: 'Send If-None-Match with the ETag you have; a 304 costs almost nothing.',
    },
    rate_limits: {
      requests_per_minute_per_client: config.rateLimitPerMinute,
      heavy_requests_in_flight_per_client: config.heavyPerClient,
      client: 'an IPv4 address, or an IPv6 /64',
    },
    data_semantics: [
      'Records are observations of finalized blocks, not a complete feed: a missing record is not zero activity.',
      'Unknown values are null, never zero.',
      'Money is an exact decimal string; atomic amounts are integer strings.',
      'Wallets identify accounts, not verified bots or agents.',
      'Stablecoin dollar values assume one dollar per token; fees and transaction value are separate, and nominal values do not measure revenue.',
      'Activity on the chain does not establish activity in a machine-payment protocol; advertised prices are offers, not charges.',
      'Scores describe the available evidence, not honesty or task success. There is no uptime guarantee.',
      'Only tokens on the token list count as dollars (nominal); token symbols alone prove nothing.',
    ],
    enables: {
      payments: false,
      mandates: false,
      agent_identity: false,
      statement: 'Read-only access only: this service enables no payments, mandates or agent identity, and holds no keys of yours.',
    },
    trust_check: {
      url: `${verify}/v1/check`,
      openapi_url: `${verify}/v1/openapi.json`,
      description:
        'Should an agent pay this URL? A separate API on its own listener; how to call it, and how it is accessed, is in its OpenAPI document (openapi_url). Nothing in this manifest enables a payment.',
    },
  };
}

/** Registers the manifest route. */
export const manifestRoutes: FastifyPluginAsync<AppContext> = async (fastify, ctx) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    MANIFEST_PATH,
    {
      schema: {
        tags: ['meta'],
        summary: 'The service manifest: what this is, where things are, what it does not do',
        description:
          'Base URLs are PAYWATCH_PUBLIC_URL and PAYWATCH_VERIFY_URL when configured, else taken from the address this request was sent to.',
        response: { 200: Manifest },
      },
    },
    async (req, reply) =>
      reply
        .header('cache-control', `${cacheScope(ctx.config.publicUrl, ctx.config.verifyUrl)}, max-age=300`)
        .send(buildManifest(ctx.config, req)),
  );
};
