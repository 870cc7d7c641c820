/**
 * GET /healthz (liveness: the process answers) and GET /readyz (readiness: the store answers a trivial query
 * within READY_TIMEOUT_MS) on every listener, for load balancers and orchestrators. Neither is rate-limited or
 * cached. A collector in `error` (node unreachable, say) does not make the service unready, since stored data is
 * still served, but /readyz shows its state and last error; neither does a Redis outage (limits then count per
 * process, src/limits/shared.ts), which /readyz shows under `limits` (whether counts are shared, never the Redis
 * address). A store that cannot write is unready until a write succeeds: while it lasts, /readyz tries a tiny
 * rolled-back write of its own (Store.probeWrite, at most once per few seconds).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { SharedLimits } from '../limits/shared.js';
import { shortMessage } from '../domain/errors.js';
import { collectorReadiness } from '../chain/readiness.js';
import { renderJson, sendRenderedJson } from './reply.js';

/** /healthz's one answer, rendered with its ETag once (@fastify/etag would hash it on every probe). */
const HEALTHY = renderJson({ status: 'ok' });

/** Milliseconds the store has to answer before /readyz says 503. */
export const READY_TIMEOUT_MS = 2000;

export const Health = z.object({ status: z.literal('ok') });
export const Readiness = z.object({
  status: z.enum(['ready', 'unready']),
  store: z.object({ ok: z.boolean(), ms: z.number().nullable(), error: z.string().nullable() }),
  collector: z
    .object({ state: z.string(), last_error: z.string().nullable() })
    .nullable()
    .describe('the chain collector of this process, when it runs one'),
  limits: z
    .object({
      store: z.enum(['memory', 'redis']).describe('where per-client limits count: this process, or Redis shared by every replica'),
      shared: z
        .boolean()
        .describe(
          'true while limits count in a Redis every replica shares; false without Redis, or while it does not answer or refuses authentication',
        ),
      error: z.string().nullable().describe('why a configured Redis is not counting (the Redis address is never shown)'),
    })
    .describe('per-client limits (rate limits, key issuance, failed authentications)'),
});
export const Unready = Readiness.extend({ error: z.string() });
export const CollectorReady = z.object({
  status: z.enum(['ready', 'unready']),
  error: z.string().nullable().describe('the reasons, joined by "; " (null when ready)'),
  reasons: z.array(z.string()),
  state: z.string().nullable().describe("the collector's state (live in this process, else its last recorded one); null when none ran"),
  last_error: z.string().nullable(),
  behind_blocks: z.int().nullable().describe('blocks between the checkpoint and the finalized head'),
  lag_seconds: z.number().nullable().describe('0 at the finalized head, else now minus the newest collected block time; null when unknown'),
  max_lag_seconds: z.int().describe('PAYWATCH_READY_MAX_LAG_SECONDS'),
  quarantined: z
    .int()
    .nullable()
    .describe('blocks quarantined (`paywatch collect --retry-quarantined` tries them again); null when unknown'),
});

/** Resolves when `p` does, or rejects after `ms` milliseconds. */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

/** The collector's live state as /readyz shows it, from the component map (null when none runs here). */
function collectorOf(ctx: AppContext): z.infer<typeof Readiness>['collector'] {
  const live = ctx.components.get('collector')?.();
  if (!live?.state) return null;
  return { state: live.state, last_error: live.last_error };
}

/**
 * Adds /healthz and /readyz to `app` (call before the app is ready).
 * @param tags the OpenAPI tags of these operations on this listener
 */
export function addHealthRoutes(app: FastifyInstance, ctx: AppContext, tags: string[]): void {
  const noStore = { 'cache-control': 'no-store' };
  // The rendered answer carries an ETag: only where @fastify/etag would add one anyway (the public listener).
  const etagged = app.hasPlugin('@fastify/etag');
  addCollectorReadyRoute(app, ctx, tags);
  app.get(
    '/healthz',
    { config: { rateLimit: false }, schema: { tags, summary: 'Liveness: the process answers', response: { 200: Health } } },
    async (_req, reply) => (etagged ? sendRenderedJson(reply.headers(noStore), HEALTHY) : reply.headers(noStore).send({ status: 'ok' })),
  );
  app.get(
    '/readyz',
    {
      config: { rateLimit: false },
      schema: { tags, summary: 'Readiness: the store answers (503 with the reason when not)', response: { 200: Readiness, 503: Unready } },
    },
    async (_req, reply) => {
      const t0 = performance.now();
      const collector = collectorOf(ctx);
      const limits = (ctx.limits ?? SharedLimits.inMemory()).status();
      const unready = (message: string) =>
        reply
          .code(503)
          .headers({ ...noStore, 'retry-after': '5' })
          .send({
            status: 'unready',
            error: `store unavailable: ${message}`,
            store: { ok: false, ms: null, error: message },
            collector,
            limits,
          });
      try {
        await within(ctx.store.ping(), READY_TIMEOUT_MS);
        // A store that answers reads but cannot write (disk full, read-only, I/O error) is not ready until a write
        // succeeds again: its own tiny write, rolled back, at most once per few seconds (src/store/db.ts).
        if (ctx.store.writeOutage() !== null) await within(ctx.store.probeWrite(), READY_TIMEOUT_MS).catch(() => undefined);
        const cannotWrite = ctx.store.writeOutage();
        if (cannotWrite !== null) return unready(`the store cannot write: ${cannotWrite}`);
        return reply
          .headers(noStore)
          .send({ status: 'ready', store: { ok: true, ms: Number((performance.now() - t0).toFixed(1)), error: null }, collector, limits });
      } catch (e) {
        // The driver's message can name internal hosts: logged, not answered.
        ctx.log?.warn({ err: shortMessage(e) }, 'readiness check: store unavailable');
        return unready(/no answer within/.test(shortMessage(e)) ? shortMessage(e) : 'the store query failed');
      }
    },
  );
}

/**
 * GET /readyz/collector: 200 while the chain collection keeps up; 503 with the reasons when the collector is in
 * `error`, has quarantined blocks, lags more than PAYWATCH_READY_MAX_LAG_SECONDS, or the store does not answer
 * (src/chain/readiness.ts). For a standby or an alert; /readyz stays about serving.
 */
function addCollectorReadyRoute(app: FastifyInstance, ctx: AppContext, tags: string[]): void {
  const headers = { 'cache-control': 'no-store' };
  // Every 503 here says when to look again, as the documents promise for 503 (src/http/openapi.ts).
  const unready = { ...headers, 'retry-after': '5' };
  app.get(
    '/readyz/collector',
    {
      config: { rateLimit: false },
      schema: {
        tags,
        summary: 'Collector readiness: 503 with the reasons when it is in error, has quarantined blocks or lags',
        response: { 200: CollectorReady, 503: CollectorReady },
      },
    },
    async (_req, reply) => {
      try {
        const r = await within(collectorReadiness(ctx), READY_TIMEOUT_MS);
        const { ready, ...rest } = r;
        return reply
          .code(ready ? 200 : 503)
          .headers(ready ? headers : unready)
          .send({ status: ready ? 'ready' : 'unready', error: ready ? null : r.reasons.join('; '), ...rest });
      } catch (e) {
        // The driver's message can name internal hosts: logged, not answered.
        ctx.log?.warn({ err: shortMessage(e) }, 'collector readiness: store unavailable');
        const error = 'store unavailable: the store query failed';
        return reply
          .code(503)
          .headers(unready)
          .send({
            status: 'unready',
            error,
            reasons: [error],
            state: null,
            last_error: null,
            behind_blocks: null,
            lag_seconds: null,
            max_lag_seconds: ctx.config.readyMaxLagSeconds,
            quarantined: null,
          });
      }
    },
  );
}
