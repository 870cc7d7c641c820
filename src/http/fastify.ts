/**
 * The Fastify base shared by every paywatch listener (the public API in ../api/app.ts, the trust check in
 * src/trust/app.ts), so validation, serialisation and error mapping are the same everywhere.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Fastify, { LogController } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from '../config.js';
import { type AccessLog, noteAnswered } from './access-log.js';
import { answerClientError, answerFrameworkError, installErrorHandling, MAX_PARAM_LENGTH } from './errors.js';
import { plainValidatorCompiler } from './validation.js';
import { installJsonBodies } from './json-body.js';
import { requestId } from './request-id.js';
import { trustProxyOption } from './trust-proxy.js';
import type { AnswerReplay } from './replay.js';

/**
 * Response serialisation: plain JSON.stringify. Response schemas exist for the OpenAPI document and are
 * checked in tests against real answers; re-validating every row with zod on each request would only cost time.
 */
const jsonSerializerCompiler = () => (data: unknown) => JSON.stringify(data);

/** The listener settings baseFastify reads. */
export type ListenerConfig = Pick<
  Config,
  | 'logLevel'
  | 'requestTimeoutSeconds'
  | 'headersTimeoutSeconds'
  | 'keepAliveSeconds'
  | 'connectionIdleSeconds'
  | 'maxConnections'
  | 'trustProxy'
>;

/**
 * A bare Fastify instance as every paywatch listener wants it (the public API and the trust check): zod
 * request validation answering plain sentences (./validation.ts), strict JSON bodies and 415 for anything else
 * (./json-body.ts), JSON.stringify responses, one log line per request carrying its request id (X-Request-Id,
 * honoured or generated, echoed back), and `{error}` for every failure: route
 * errors, 404/405, router failures (414 path parameter, 400 bad URL) and requests Node's parser refused
 * (431, 414, 501, 400, 408 on a request timeout; see ./errors.ts).
 *
 * Timeouts (Node's http.Server, https://nodejs.org/api/http.html#class-httpserver): a request's head must arrive
 * within headersTimeoutSeconds and the whole request within requestTimeoutSeconds (both about receiving: a long
 * answer such as the CSV export is not cut), a kept-alive connection waits keepAliveSeconds for its next request,
 * a connection with nothing moving either way for connectionIdleSeconds is closed, and past maxConnections open
 * connections Node closes new ones at once.
 * @param bodyLimit request body cap in bytes
 * @param listener the listener's name in metrics (`api`, `verify`)
 * @param replay remembered answers replayed in front of the router (./replay.ts; the public listener), attached by
 *   the caller once its rate limit is registered
 */
export function baseFastify(
  config: ListenerConfig,
  bodyLimit: number,
  logger: boolean | object | undefined,
  listener: 'api' | 'verify',
  replay?: AnswerReplay,
) {
  const ms = (s: number) => Math.max(1, Math.round(s * 1000));
  const headersTimeout = ms(config.headersTimeoutSeconds);
  const http = {
    headersTimeout,
    requestTimeout: ms(config.requestTimeoutSeconds),
    connectionsCheckingInterval: Math.min(1000, headersTimeout),
  };
  const app = Fastify({
    // With a replay in front, the server Fastify would make, with its request handler behind the replay's
    // (fastify/lib/server.js getServerInstance sets the same timeouts).
    serverFactory: replay
      ? (handler) => {
          const server = createServer(http, (req: IncomingMessage, res: ServerResponse) => replay.handle(req, res, handler));
          server.keepAliveTimeout = ms(config.keepAliveSeconds);
          server.requestTimeout = ms(config.requestTimeoutSeconds);
          server.setTimeout(ms(config.connectionIdleSeconds));
          return server;
        }
      : undefined,
    logger: logger ?? { level: config.logLevel },
    trustProxy: trustProxyOption(config),
    requestIdHeader: false,
    genReqId: (req) => requestId(req),
    bodyLimit,
    requestTimeout: ms(config.requestTimeoutSeconds),
    keepAliveTimeout: ms(config.keepAliveSeconds),
    connectionTimeout: ms(config.connectionIdleSeconds),
    // Node checks the head and request timeouts every connectionsCheckingInterval (default 30 s), so without a
    // shorter interval a 10 s head timeout would cut at up to 40 s.
    http,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  }).withTypeProvider<ZodTypeProvider>();
  app.server.maxConnections = config.maxConnections;
  app.setValidatorCompiler(plainValidatorCompiler);
  app.setSerializerCompiler(jsonSerializerCompiler);
  installJsonBodies(app);
  installErrorHandling(app);
  // Hooks in callback style: an async hook costs a promise and a microtask turn on every request.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    done();
  });
  // One structured line and one metrics sample per answered request (the route pattern, not the raw URL).
  app.addHook('onResponse', (req, reply, done) => {
    noteAnswered(req.log as AccessLog, listener, req.method, req.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime);
    done();
  });
  return app;
}

/**
 * Stops `app` gracefully: it accepts no new connections, idle kept-alive ones close, requests in flight finish;
 * after `graceSeconds` (PAYWATCH_SHUTDOWN_GRACE_SECONDS) any still open are cut.
 */
export async function closeGracefully(
  app: { close(): Promise<unknown>; server: { closeAllConnections(): void } },
  graceSeconds: number,
): Promise<void> {
  const cut = setTimeout(() => app.server.closeAllConnections(), Math.round(graceSeconds * 1000));
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}
