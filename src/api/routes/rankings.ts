/**
 * GET /api/rankings/services, /api/rankings/recipients, /api/rankings/payers and GET /api/payments
 * (docs/payments.md). Thin: the shared query schemas parse, one query function answers from the per-day payment
 * rollups.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.js';
import { payments, rankings } from '../../chain/payments.js';
import { PaymentsAnswerSchema, PaymentsQuery, RankingSchema, RankingsQuery } from '../../chain/payments-schemas.js';
import { FRESH, renderedOnce, sendRenderedJson } from '../../http/reply.js';
import { markReplayable } from '../../http/replay.js';
import { heavyReadBudget } from '../../limits/heavy-budget.js';
import { publicErrorResponses } from '../schemas/common.js';

const SUMMARIES = {
  services: 'Services ranked by nominal received, payments or distinct payers',
  recipients: 'Recipient addresses ranked by nominal received, payments or distinct payers',
  payers: 'Payer addresses ranked by nominal paid or payments',
} as const;

/** Route plugin; register with the AppContext as options. */
export const rankingRoutes: FastifyPluginAsync<AppContext> = async (fastify, ctx) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const heavy = heavyReadBudget(ctx.config);
  for (const kind of ['services', 'recipients', 'payers'] as const) {
    app.get(
      `/api/rankings/${kind}`,
      {
        schema: {
          tags: ['chain'],
          summary: SUMMARIES[kind],
          description:
            'Read from per-day rollups of successful payments with a known payer, over whole UTC days (since and until are widened to day boundaries). Counts are over the collected part of the window (covered_since, covered_until); complete is false when it has gaps. Nominal is listed USD at face value, not revenue. Remembered until the next store write.',
          querystring: RankingsQuery,
          response: { 200: RankingSchema, ...publicErrorResponses },
        },
        preHandler: heavy.hook(),
      },
      async (req, reply) => {
        markReplayable(reply, ctx.store.cache);
        const answer = await rankings(ctx.store, kind, req.query);
        return sendRenderedJson(reply.header('cache-control', FRESH), renderedOnce(answer));
      },
    );
  }

  app.get(
    '/api/payments',
    {
      schema: {
        tags: ['chain'],
        summary: 'Payments attributed to one service or to every service of one provider',
        description:
          'Counts per attribution method and protocol, distinct payers and MPP clients, nominal received (listed USD, not revenue), first and last payment and the largest payer\u2019s share, over [since, until) widened to whole UTC days (default the last 30 days), with the collected part of the window. Give exactly one of service_id and provider.',
        querystring: PaymentsQuery,
        response: { 200: PaymentsAnswerSchema, ...publicErrorResponses },
      },
    },
    async (req, reply) => {
      const answer = await payments(ctx.store, req.query);
      reply.header('cache-control', FRESH);
      return answer;
    },
  );
};
