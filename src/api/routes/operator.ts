/**
 * GET /api/operator/{events,outcomes,costs}: the HTTP operator reads of private intake records
 * (docs/intake.md). Authorization: Bearer <operator token> is checked before anything else; a missing token and a
 * wrong one (unknown or revoked alike) get their own 401 sentence, and neither says anything about the stored data; a client address with too many failures gets 429
 * before its token is even looked up. Hidden from the public OpenAPI document and MCP.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.js';
import { Unauthenticated } from '../../domain/errors.js';
import { isOperatorToken } from '../../intake/operator.js';
import { costSummary, readEvents, readOutcomes } from '../../intake/queries.js';
import { OperatorCostsQuery, OperatorListQuery } from '../../intake/schemas.js';
import { clientKey } from '../../limits/client-key.js';
import { FailedAuthLimiter } from '../../limits/failed-auth.js';

const MISSING = 'operator token required: send Authorization: Bearer <operator token>';
/** A token that is not a live one: unknown and revoked read the same, so nothing about stored tokens leaks. */
const WRONG = 'invalid operator token: it is unknown or revoked; send Authorization: Bearer <a live operator token>';

/** Registers the operator read routes. */
export const operatorRoutes: FastifyPluginAsync<AppContext> = async (fastify, ctx) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  const failures = new FailedAuthLimiter(ctx.config.authFailureLimitPerMinute, 'operator tokens', { shared: ctx.limits });

  app.addHook('onRequest', async (req, reply) => {
    const client = clientKey(req.ip);
    await failures.check(client);
    const m = /^Bearer ([^\s]+)$/.exec(req.headers.authorization ?? '');
    if (!m || !(await isOperatorToken(ctx.store, m[1]))) {
      await failures.fail(client);
      reply.header('www-authenticate', 'Bearer realm="paywatch-operator"');
      throw new Unauthenticated(m ? WRONG : MISSING);
    }
    // Private data: never cached by shared caches.
    reply.header('cache-control', 'private, no-store');
  });

  app.get('/api/operator/events', { schema: { hide: true, querystring: OperatorListQuery } }, async (req) =>
    readEvents(ctx.store, req.query),
  );
  app.get('/api/operator/outcomes', { schema: { hide: true, querystring: OperatorListQuery } }, async (req) =>
    readOutcomes(ctx.store, req.query),
  );
  app.get('/api/operator/costs', { schema: { hide: true, querystring: OperatorCostsQuery } }, async (req) => {
    const { period, ...f } = req.query;
    return costSummary(ctx.store, f, period);
  });
};
