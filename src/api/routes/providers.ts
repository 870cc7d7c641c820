/**
 * GET /api/providers and GET /api/providers/{domain} (docs/intelligence.md). Thin: zod parses
 * the input (shapes shared with the MCP tools), one query function answers.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { FRESH, renderedOnce, sendRenderedJson } from '../../http/reply.js';
import type { AppContext } from '../../context.js';
import { searchProviders } from '../../intel/queries.js';
import { providerProfile } from '../../chain/payments.js';
import { ProviderPaymentsQuery, ProviderProfileWithPayments } from '../../chain/payments-schemas.js';
import { ErrorBody } from '../../domain/error-body.js';
import { collectionErrorResponses } from '../schemas/common.js';
import { ProviderParams, ProvidersQuery, ProvidersResponse } from '../../intel/schemas.js';

/** Registers the provider routes. */
export const providerRoutes: FastifyPluginAsync<AppContext> = async (fastify, ctx) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const opts = () => ({ staleAfterDays: ctx.config.intelStaleDays });

  app.get(
    '/api/providers',
    {
      schema: {
        tags: ['providers'],
        summary: 'Search provider listings',
        description:
          'Providers (origin domains) with their paid services, the latest dated endpoint check and advertised offers of each, source freshness and pagination. Stale services (failing longer than `stale_after_days`) are hidden unless include_stale=true; their history stays. A listing does not establish a completed purchase; domain control does not prove wallet control. 503 until the first collection run has finished.',
        querystring: ProvidersQuery,
        response: { 200: ProvidersResponse, ...collectionErrorResponses },
      },
    },
    // The answer is reused for up to 5 s (src/store/cache.ts); its JSON text is sent as is.
    async (req, reply) => {
      const answer = await searchProviders(ctx.store, req.query, opts());
      return sendRenderedJson(reply.header('cache-control', FRESH), renderedOnce(answer));
    },
  );

  app.get(
    '/api/providers/:domain',
    {
      schema: {
        tags: ['providers'],
        summary: 'Provider profile',
        description:
          'One provider with all its services (stale ones marked with the date of their last good check), the offers of their latest check and their recent dated checks, and the payments attributed to the provider and to each service over [since, until) (default the last 30 days, widened to whole UTC days; docs/payments.md). 404 when not listed; 503 until the first collection run has finished.',
        params: ProviderParams,
        querystring: ProviderPaymentsQuery,
        response: {
          200: ProviderProfileWithPayments,
          ...collectionErrorResponses,
          404: ErrorBody.describe('The provider is not listed here; this is not proof that it does not exist.'),
        },
      },
    },
    async (req, reply) => {
      const answer = await providerProfile(ctx.store, req.params.domain, req.query, opts());
      reply.header('cache-control', FRESH);
      return answer;
    },
  );
};
