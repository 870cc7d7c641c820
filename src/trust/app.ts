/**
 * The trust-check service on its own listener (contract: POST {verify_url}/v1/check): API keys, metering,
 * x402 per-call payment, its own OpenAPI 3.1 document at GET /v1/openapi.json. Errors are `{error}` through
 * the same handler as the public API (src/http/errors.ts).
 */
import { CheckSlots } from '../limits/check-slots.js';
import { LIMITS } from '../limits/index.js';
import { rateLimitOf, registerRequestLimit } from '../limits/register.js';
import { PAYWATCH_VERSION } from '../net/user-agent.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import type { AppContext } from '../context.js';
import { baseFastify, closeGracefully } from '../http/fastify.js';
import { registerCompression } from '../http/compression.js';
import { registerExplorerCors } from '../http/cors.js';
import { addHealthRoutes } from '../http/health.js';
import { documentFinisher } from '../http/openapi.js';
import { configuredBaseUrls, verifyBaseUrl } from '../http/base-urls.js';
import { Unauthenticated } from '../domain/errors.js';
import type { Resolver } from '../net/safe-fetch.js';
import { assetResolver, type AssetResolver } from './assets.js';
import { type CheckRun, checkWithKey, checkWithPayment } from './access.js';
import { runCheck } from './check.js';
import { apiKeyFromHeader, issueFreeKey } from './keys.js';
import { FailedAuthLimiter } from '../limits/failed-auth.js';
import { clientKey } from '../limits/client-key.js';
import { CHECK_PRICE_DOLLARS, FREE_MONTHLY_CHECKS } from './metering.js';
import { paymentGate } from './payment.js';
import { CheckAnswer, CheckRequest, Errors, KeyAnswer, KeyRequest, PayToCheckAnswer, PayToCheckRequest } from './schemas.js';
import { DEFAULT_PAY_TO_NETWORK, runPayToCheck } from './pay-to.js';
import { type GatherOptions, refuseBadUrl } from './gather.js';
import { registerTrustMcp } from './mcp.js';

const version = PAYWATCH_VERSION;

/** Largest request body the check service reads (a URL of 2,048 characters fits many times over). */
export const VERIFY_BODY_LIMIT = LIMITS.verifyBody.value;

export interface BuildVerifyAppOptions {
  /** pino logger options or false for silence (tests). */
  logger?: boolean | object;
  /** DNS resolver override for the safe fetcher (tests). */
  resolve?: Resolver;
  /** Asset resolver override (default: static list + TIP-20 calls to config.rpcUrl). */
  assets?: AssetResolver;
}

/**
 * Creates the trust-check app; call `listen` or `inject` on it.
 * @param ctx store and configuration (the same AppContext as the public API)
 */
export async function buildVerifyApp(ctx: AppContext, opts: BuildVerifyAppOptions = {}): Promise<FastifyInstance> {
  const { config, store } = ctx;
  const app = baseFastify(config, VERIFY_BODY_LIMIT, opts.logger, 'verify');

  const base = verifyBaseUrl(config);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'paywatch trust-check API',
        version: '1.0.0',
        description: `Should an agent pay this URL? POST /v1/check fetches the URL once without paying, parses its 402 challenge and weighs it against provider history, on-chain observations and ownership proofs. Access: Authorization: Bearer <API_KEY> (free key: POST /v1/keys, ${FREE_MONTHLY_CHECKS} successful checks per UTC month; at most ${config.verifyFreeKeysPerMonth} free keys per client address a month; a free key unused for ${config.verifyKeyIdleDays} days expires), or pay ${CHECK_PRICE_DOLLARS} dollars per call with x402 and no key. Failed checks are never metered or settled. Scores describe evidence, not honesty or task success; domain control does not prove wallet control.`,
      },
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer' } } },
    },
    transform: jsonSchemaTransform,
    transformObject: documentFinisher(configuredBaseUrls(config).verify),
  });
  await registerCompression(app);
  // The explorer page (public listener) may issue a key and check from its own origin; nobody else gets CORS.
  await registerExplorerCors(app, config);
  await registerRequestLimit(app, 'verifyRequests', config.rateLimitPerMinute, ctx.limits);

  const gather: Omit<GatherOptions, 'now'> = {
    store,
    assets: opts.assets ?? assetResolver(config.rpcUrl),
    timeoutMs: config.verifyTimeoutMs,
    maxBytes: config.verifyMaxBytes,
    allowLoopback: config.verifyAllowLoopback,
    changeWindowDays: config.trustChangeWindowDays,
    resolve: opts.resolve,
  };
  const payToOptions = () => ({ store, changeWindowDays: config.trustChangeWindowDays, now: new Date() });
  const gate = paymentGate(config, `${base}/v1/check`);
  const keyFailures = new FailedAuthLimiter(config.authFailureLimitPerMinute, 'API keys', { shared: ctx.limits });
  // Each check holds a fetch of up to verifyMaxBytes for up to verifyTimeoutMs: cap how many run at once, per client too.
  const slots = new CheckSlots(config.verifyMaxInFlight, config.verifyMaxInFlightPerClient);

  app.post(
    '/v1/keys',
    {
      config: { rateLimit: rateLimitOf('keyIssuance', config.verifyKeysPerHour) },
      schema: {
        tags: ['trust-check'],
        summary: 'Issue a free API key (shown once)',
        description: `Issues a free-plan key: ${FREE_MONTHLY_CHECKS} successful checks per UTC calendar month. The key is shown once and stored hashed; it expires when unused for ${config.verifyKeyIdleDays} days. At most ${config.verifyKeysPerHour} keys per client address per hour and ${config.verifyFreeKeysPerMonth} per client address (IPv6 /64) per UTC calendar month.`,
        body: KeyRequest,
        response: { 201: KeyAnswer, 400: Errors[400], 415: Errors[415], 429: Errors[429], 503: Errors[503] },
      },
    },
    async (req, reply) => {
      const { key, row } = await issueFreeKey(store, clientKey(req.ip), config.verifyFreeKeysPerMonth);
      return reply.code(201).header('cache-control', 'no-store').send({
        key,
        key_id: row.id,
        plan: row.plan,
        monthly_checks: FREE_MONTHLY_CHECKS,
        created_at: row.created_at,
        expires_after_idle_days: config.verifyKeyIdleDays,
      });
    },
  );

  /**
   * Answers one check request: its API key, else its x402 payment (else 401), a slot of checks in flight, then the
   * check's work metered or settled only when it succeeds (./access.ts). Shared by every check route.
   */
  const answerCheck = async (req: FastifyRequest, reply: FastifyReply, run: CheckRun, refuse?: () => Promise<void>) => {
    const client = clientKey(req.ip);
    const key = await apiKeyFromHeader(store, req.headers.authorization, keyFailures, client, config.verifyKeyIdleDays);
    if (key === null && !gate)
      throw new Unauthenticated('missing API key: send Authorization: Bearer <API_KEY>; get a free key with POST /v1/keys');
    // A check that cannot run is refused (400) before any 402, so an x402 client never signs for it.
    if (key === null) await refuse?.();
    // The slot is held while the check's work runs (also when its client has gone away), not until the answer is sent.
    const release = slots.take(key !== null ? [`addr:${client}`, `key:${key.id}`] : [`addr:${client}`]);
    try {
      const out = key !== null ? await checkWithKey(store, key, run) : await checkWithPayment(store, gate!, req, run);
      return reply.code(out.status).headers(out.headers).send(out.body);
    } finally {
      release();
    }
  };

  // The refusals both check routes answer (and document): one list.
  const CHECK_ERRORS = { 400: Errors[400], 401: Errors[401], 402: Errors[402], 415: Errors[415], 429: Errors[429], 503: Errors[503] };

  app.post(
    '/v1/check',
    {
      schema: {
        tags: ['trust-check'],
        summary: 'Check whether to pay a URL',
        description:
          'Fetches the URL once without paying and answers with a verdict, reasons, the offers seen now and the signals used. A do_not_pay verdict is a successful (metered) check; a validation error, a refused address or a failure of ours is not metered or settled.',
        security: [{ apiKey: [] }, {}],
        body: CheckRequest,
        response: {
          200: CheckAnswer,
          ...CHECK_ERRORS,
        },
      },
    },
    // The zod response types are for the document; answers are sent as the access path built them.
    (req, reply) =>
      answerCheck(
        req,
        reply as unknown as FastifyReply,
        (who) => runCheck(req.body.url, { ...gather, now: new Date() }, who, req.body.policy ?? null),
        () => refuseBadUrl(req.body.url, gather),
      ),
  );

  app.post(
    '/v1/check/pay-to',
    {
      schema: {
        tags: ['trust-check'],
        summary: 'Check a payee alone (no URL)',
        description:
          'A verdict on a payTo address from our chain observations and intel history alone, fetching nothing: its observed inbound payments in listed tokens and their age, the listed services that advertise or advertised it (with dates), and recent payTo changes that moved a service to it. Same access, limits and metering as POST /v1/check: a completed check is metered (also do_not_pay); a bad body or a failure of ours is not.',
        security: [{ apiKey: [] }, {}],
        body: PayToCheckRequest,
        response: {
          200: PayToCheckAnswer,
          ...CHECK_ERRORS,
        },
      },
    },
    (req, reply) =>
      answerCheck(req, reply as unknown as FastifyReply, (who) =>
        runPayToCheck(req.body.pay_to, req.body.network ?? DEFAULT_PAY_TO_NETWORK, payToOptions(), who),
      ),
  );

  // The same check as an MCP tool, sharing this listener's key checks, slots and request limit (./mcp.ts).
  registerTrustMcp(app, { store, gather, slots, keyIdleDays: config.verifyKeyIdleDays, keyFailures, x402: gate !== null, version });

  addHealthRoutes(app, ctx, ['operations']);
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}

/** A running trust-check listener. */
export interface VerifyServer {
  app: FastifyInstance;
  /** The address it listens on, e.g. http://127.0.0.1:8081. */
  url: string;
  /** The port it listens on (the one the OS chose when config.verifyPort is 0). */
  port: number;
  close(): Promise<void>;
}

/**
 * Builds the app and listens on config.host:config.verifyPort (the lead calls this from `paywatch start`
 * and `paywatch demo`; `paywatch verify` runs it alone).
 * @throws when the port cannot be bound
 */
export async function startVerifyServer(ctx: AppContext, opts: BuildVerifyAppOptions = {}): Promise<VerifyServer> {
  const app = await buildVerifyApp(ctx, opts);
  const address = await app.listen({ host: ctx.config.host, port: ctx.config.verifyPort });
  const bound = app.server.address();
  const port = bound && typeof bound === 'object' ? bound.port : ctx.config.verifyPort;
  return { app, url: address, port, close: () => closeGracefully(app, ctx.config.shutdownGraceSeconds) };
}
