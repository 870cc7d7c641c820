/**
 * POST /api/protocol-events and POST /api/intelligence/outcomes: the private signed intake (docs/intake.md).
 * Inside this plugin only, JSON bodies are kept as raw bytes so the HMAC is
 * verified on exactly what was sent, before any parsing. Hidden from the public OpenAPI document.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { Unavailable } from '../../domain/errors.js';
import { HttpError } from '../../http/errors.js';
import { refuseEncodedBody, UNSUPPORTED_TYPE } from '../../http/json-body.js';
import { loadMasterSecret } from '../../secrets/index.js';
import { KeyVault } from '../../intake/keys.js';
import { KeyCache } from '../../intake/key-cache.js';
import { acceptOutcome, acceptProtocolEvent, authenticate, type Sender } from '../../intake/deliver.js';
import { Unauthorized } from '../../intake/signature.js';
import type { SenderKind } from '../../store/intake/senders.js';
import { nowSeconds } from '../../intake/operator.js';
import { clientKey } from '../../limits/client-key.js';
import { FailedAuthLimiter } from '../../limits/failed-auth.js';
import { rateLimitOf } from '../../limits/register.js';
import { intakeDeliveries } from '../../ops/metrics.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the intake plugin once the signature verified. */
    intakeSender?: Sender;
  }
}

const UNSUPPORTED = UNSUPPORTED_TYPE;

/** Registers the intake routes. */
export const intakeRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  // A bad secret stops the server at start; a missing one only disables the intake (503), not the public API.
  const master = loadMasterSecret(ctx.config);
  const keys = master ? new KeyCache(ctx.store, new KeyVault(master)) : null;

  // Name the limit on 413; everything else goes on to the app's error handler (a throw here reaches the parent's).
  app.setErrorHandler((err: { code?: string }) => {
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      throw new HttpError('body_too_large', `request body too large: the limit is ${app.initialConfig.bodyLimit ?? 262_144} bytes`);
    throw err;
  });
  // Failed authentications per client address, refused before the body is read or any key looked up.
  const failures = new FailedAuthLimiter(ctx.config.authFailureLimitPerMinute, 'intake authentications', { shared: ctx.limits });
  app.addHook('onRequest', async (req) => failures.check(clientKey(req.ip)));

  app.removeAllContentTypeParsers();
  // Raw bytes, so the HMAC is checked on what was sent; a compressed body is 415 as on every JSON route.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    try {
      refuseEncodedBody(req);
      done(null, body);
    } catch (e) {
      done(e as Error, undefined);
    }
  });
  app.addContentTypeParser('*', (_req, _payload, done) => done(new HttpError('unsupported_media_type', UNSUPPORTED), undefined));

  const verify = (kind: SenderKind) => async (req: FastifyRequest) => {
    if (!Buffer.isBuffer(req.body)) throw new HttpError('unsupported_media_type', UNSUPPORTED);
    if (!keys) throw new Unavailable('intake not configured: the server has no PAYWATCH_SECRET', { retryAfterSeconds: 60 });
    const h = req.headers;
    const one = (v: string | string[] | undefined) => (Array.isArray(v) ? undefined : v);
    const delivery = {
      senderId: one(kind === 'connection' ? h['x-svc-connection'] : h['x-svc-producer']),
      timestamp: one(h['x-svc-timestamp']),
      signature: one(h['x-svc-signature']),
      body: req.body,
    };
    try {
      req.intakeSender = await authenticate(keys, kind, delivery, nowSeconds());
    } catch (e) {
      if (e instanceof Unauthorized) await failures.fail(clientKey(req.ip));
      throw e;
    }
  };

  // Per authenticated sender, counted after the signature verified, so nobody can spend another sender's quota.
  const rateLimit = {
    ...rateLimitOf('intakeDeliveries', ctx.config.intakeRateLimitPerMinute, (req) => `intake:${req.intakeSender!.id}`),
    hook: 'preHandler' as const,
  };

  app.addHook('onResponse', async (req, reply) => {
    const s = reply.statusCode;
    intakeDeliveries.inc({
      route: req.routeOptions.url ?? 'unmatched',
      result: s === 201 ? 'created' : s === 200 ? 'duplicate' : String(s),
    });
  });

  app.post(
    '/api/protocol-events',
    { schema: { hide: true }, config: { rateLimit }, preValidation: verify('connection') },
    async (req, reply) => {
      const r = await acceptProtocolEvent(ctx.store, req.intakeSender!, req.body as Buffer, new Date());
      return reply.code(r.status).send(r.receipt);
    },
  );

  app.post(
    '/api/intelligence/outcomes',
    { schema: { hide: true }, config: { rateLimit }, preValidation: verify('producer') },
    async (req, reply) => {
      const r = await acceptOutcome(ctx.store, req.intakeSender!, req.body as Buffer, new Date());
      return reply.code(r.status).send(r.receipt);
    },
  );
};
