/**
 * GET /api/intelligence/{status,offers,changes,history} (docs/intelligence.md).
 * Thin: zod parses the input (shapes shared with the MCP tools), one query function answers. The list endpoints
 * (and the provider routes) answer 503 with Retry-After until the first collection run has finished
 * (assertCollectionAvailable).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.js';
import { FRESH, renderedOnce, sendRenderedJson } from '../../http/reply.js';
import { intelligenceStatus, listChanges, listHistory, listOffers } from '../../intel/queries.js';
import { collectionErrorResponses, publicErrorResponses } from '../schemas/common.js';
import { ChangesResponse, HistoryResponse, IntelligenceStatusResponse, IntelQuery, NoParams, OffersResponse } from '../../intel/schemas.js';

/** Registers the intelligence routes. */
export const intelligenceRoutes: FastifyPluginAsync<AppContext> = async (fastify, ctx) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const opts = () => ({ staleAfterDays: ctx.config.intelStaleDays });

  app.get(
    '/api/intelligence/status',
    {
      schema: {
        tags: ['intelligence'],
        summary: 'Collection health',
        description:
          'Collection health (last run, availability), source freshness, history coverage and the latest archive verification result.',
        querystring: NoParams,
        response: { 200: IntelligenceStatusResponse, ...publicErrorResponses },
      },
    },
    async (_req, reply) => {
      const answer = await intelligenceStatus(ctx.store, opts());
      reply.header('cache-control', FRESH);
      return answer;
    },
  );

  const lists = [
    {
      path: '/api/intelligence/offers',
      summary: 'Retained payment options',
      description:
        'Every retained advertised payment option (from endpoint checks and directory listings), newest first, with exact atomic amounts, snapshot ids and evidence hashes. Offers are advertisements, not charges.',
      response: OffersResponse,
      query: listOffers,
    },
    {
      path: '/api/intelligence/changes',
      summary: 'Dated changes',
      description:
        'Dated change records (offer added/removed, price, payTo, asset, network, status, invalid challenge, directory drift), newest first; each cites the snapshots it compares.',
      response: ChangesResponse,
      query: listChanges,
    },
    {
      path: '/api/intelligence/history',
      summary: 'Observation history',
      description:
        'Dated endpoint checks of a service or provider with the offers each advertised, newest first. domain or service_id is required.',
      response: HistoryResponse,
      query: listHistory,
    },
  ] as const;
  for (const l of lists) {
    app.get(
      l.path,
      {
        schema: {
          tags: ['intelligence'],
          summary: l.summary,
          description: `${l.description} 503 until the first collection run has finished.`,
          querystring: IntelQuery,
          response: { 200: l.response, ...collectionErrorResponses },
        },
      },
      // Answers are reused for up to 5 s (src/store/cache.ts); their JSON text is sent as is.
      async (req, reply) => {
        const answer = await l.query(ctx.store, req.query, opts());
        return sendRenderedJson(reply.header('cache-control', FRESH), renderedOnce(answer));
      },
    );
  }
};
