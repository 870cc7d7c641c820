/**
 * The public chain observation endpoints (docs/api-chain.md): status, coverage, transactions, transaction
 * detail, metrics and the CSV export. Thin: parse with the shared schemas, call one repository function, shape.
 */
import { cacheScope, publicBaseUrl } from '../../http/base-urls.js';
import { MANIFEST_PATH } from './manifest.js';
import { heavyReadBudget } from '../../limits/heavy-budget.js';
import type { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { POLL_INTERVAL_SECONDS } from '../../domain/filters.js';
import {
  chainStatus,
  coverage,
  exportBatches,
  isFilteredBeyondTime,
  metrics,
  metricsSeries,
  SERIES_MAX_BUCKETS,
  transactionDetail,
  transactionsPage,
} from '../../chain/queries.js';
import { ErrorBody } from '../../domain/error-body.js';
import { publicErrorResponses } from '../schemas/common.js';
import {
  CoverageSchema,
  ExportQuery,
  FiltersQuery,
  HashParams,
  MetricsSchema,
  MetricsSeriesSchema,
  SeriesQuery,
  StatusSchema,
  TransactionDetailSchema,
  TransactionListSchema,
  TransactionsQuery,
} from '../../chain/schemas.js';
import { csvExport, EXPORTS_AT_ONCE, ExportSlots } from './chain-export.js';
import { abortWhenStalled } from '../../http/stalled.js';
import { FRESH, renderedOnce, sendRenderedJson } from '../../http/reply.js';
import { markReplayable } from '../../http/replay.js';

/** A recorded finalized transaction never changes. */
const IMMUTABLE = 'public, max-age=3600';

const tags = ['chain'];

/** Route plugin; register with the AppContext as options. */
export const chainRoutes: FastifyPluginAsync<AppContext> = async (fastify, ctx) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  /** Metrics, exports and lists filtered beyond time: at most heavyPerClient in flight per client. */
  const heavy = heavyReadBudget(ctx.config);

  app.get(
    '/api/status',
    {
      schema: {
        tags,
        summary: 'Source freshness, collector state and coverage summary',
        querystring: z.strictObject({}),
        response: { 200: StatusSchema, ...publicErrorResponses },
      },
    },
    async (req, reply) => {
      const status = await chainStatus(ctx);
      // Its manifest link may follow the request's Host: then private (src/http/base-urls.ts).
      reply.header('cache-control', `${cacheScope(ctx.config.publicUrl)}, max-age=${POLL_INTERVAL_SECONDS}`);
      return { ...status, manifest: `${publicBaseUrl(ctx.config, req)}${MANIFEST_PATH}` };
    },
  );

  app.get(
    '/api/coverage',
    {
      schema: {
        tags,
        summary: 'Recorded block-height intervals (gaps are not zero activity)',
        querystring: z.strictObject({}),
        response: { 200: CoverageSchema, ...publicErrorResponses },
      },
    },
    async (_req, reply) => {
      const body = await coverage(ctx.store);
      reply.header('cache-control', FRESH);
      return body;
    },
  );

  app.get(
    '/api/transactions',
    {
      schema: {
        tags,
        summary: 'Observed finalized transactions, time descending then hash ascending',
        description: 'Pagination: requests share no frozen snapshot; fix until, deduplicate hashes and reconcile late arrivals.',
        querystring: TransactionsQuery,
        response: { 200: TransactionListSchema, ...publicErrorResponses },
      },
      preHandler: heavy.hook((req) => isFilteredBeyondTime(req.query as Record<string, unknown>)),
    },
    async (req, reply) => {
      const { limit, offset } = req.query;
      markReplayable(reply, ctx.store.cache);
      const page = await transactionsPage(ctx.store, req.query);
      reply.header('cache-control', FRESH);
      // A remembered page (same store version, same query, so the same limit and offset) is the same object: render it once.
      return sendRenderedJson(
        reply,
        renderedOnce(page, () => ({ total: page.total, limit, offset, as_of: page.as_of, rows: page.rows })),
      );
    },
  );

  app.get(
    '/api/transactions/:hash',
    {
      schema: {
        tags,
        summary: 'One observed transaction with its retained detail',
        params: HashParams,
        querystring: z.strictObject({}),
        response: {
          200: TransactionDetailSchema,
          ...publicErrorResponses,
          404: ErrorBody.describe('Not recorded in this archive; not proof that the transaction does not exist on chain.'),
        },
      },
    },
    async (req, reply) => {
      // A 404 may be collected later: only a recorded transaction is immutable.
      reply.header('cache-control', FRESH);
      markReplayable(reply, ctx.store.cache);
      const detail = await transactionDetail(ctx.store, req.params.hash, ctx.primary);
      reply.header('cache-control', IMMUTABLE);
      return sendRenderedJson(reply, renderedOnce(detail));
    },
  );

  app.get(
    '/api/metrics',
    {
      schema: {
        tags,
        summary: 'Aggregates over the latest 50,000 matching observations',
        querystring: FiltersQuery,
        response: { 200: MetricsSchema, ...publicErrorResponses },
      },
      preHandler: heavy.hook(),
    },
    async (req, reply) => {
      const m = await metrics(ctx.store, req.query);
      reply.header('cache-control', FRESH);
      return m;
    },
  );

  app.get(
    '/api/metrics/series',
    {
      schema: {
        tags,
        summary: 'Metrics per hour or day bucket, split by execution and by listed token',
        description: `Exact decimal sums per UTC-aligned bucket over [since, until) (defaults: until = end of the current bucket, since = until minus 24 hours for hour or 30 days for day), aggregated from the same latest 50,000 matches as /api/metrics; at most ${SERIES_MAX_BUCKETS} buckets.`,
        querystring: SeriesQuery,
        response: { 200: MetricsSeriesSchema, ...publicErrorResponses },
      },
      preHandler: heavy.hook(),
    },
    async (req, reply) => {
      const series = await metricsSeries(ctx.store, req.query);
      reply.header('cache-control', FRESH);
      return series;
    },
  );

  /** Exports running in this app (each holds a step of rows; see ExportSlots). */
  const exportSlots = new ExportSlots();
  app.get(
    '/api/export',
    {
      schema: {
        tags,
        summary: 'CSV export of the newest 10,000 matches, newest first (offset is ignored)',
        description: `Columns: see docs/api-chain.md. Exact decimal strings; *_unit columns state units; an empty cell is null (unknown). Full integrity stages and raw evidence are only in the JSON endpoints. At most ${EXPORTS_AT_ONCE} exports run at once; another one is answered 503 with Retry-After. An export whose client takes no bytes for ${ctx.config.exportIdleSeconds} s is cut (the connection is reset mid-CSV).`,
        querystring: ExportQuery,
        response: {
          200: { description: 'CSV with a header row.', content: { 'text/csv': { schema: z.string() } } },
          ...publicErrorResponses,
          503: ErrorBody.describe(
            `The store cannot answer now, or ${EXPORTS_AT_ONCE} exports are already running; retry after Retry-After seconds.`,
          ),
        },
      },
      preHandler: heavy.hook(),
    },
    async (req, reply) => {
      const release = exportSlots.take();
      let body: Readable;
      try {
        // Read the first rows before answering, so a store outage is still a JSON {error} with 503.
        body = await csvExport(exportBatches(ctx.store, req.query));
      } catch (e) {
        release();
        throw e;
      }
      // The slot is held until the stream has ended ('end' comes before the response's own end, so a client's
      // next export finds it free), failed or was destroyed because the client went away (both 'close').
      body.once('end', release).once('close', release);
      // A client that stops reading would otherwise hold its slot for as long as it keeps the connection open.
      const idle = ctx.config.exportIdleSeconds;
      abortWhenStalled(reply.raw, idle * 1000, () => req.log.info({ idle_seconds: idle }, 'export aborted: the client took no bytes'));
      reply.header('cache-control', FRESH);
      reply.header('content-type', 'text/csv; charset=utf-8');
      reply.header(
        'content-disposition',
        `attachment; filename="paywatch-transactions-${new Date().toISOString().slice(0, 19).replace(/[-:]/g, '')}Z.csv"`,
      );
      // The CSV stream's chunks are bytes; the declared 200 type is the document's `string`.
      return reply.send(body as unknown as string);
    },
  );
};
