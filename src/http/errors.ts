/**
 * Maps anything thrown in a route to the `{error}` body (docs/api-chain.md): validation errors (InvalidInput from
 * ./validation.ts) to 400 naming the parameter, paywatch's errors to the status of their code (HTTP_STATUS_OF_CODE; store outages are
 * `store_unavailable`, 503 with Retry-After, also when they come from a thread: src/threads keeps their class).
 * Never a 500 with a stack trace: unexpected errors are logged and answered with a short message. Requests that
 * never reach a route get `{error}` too: 404/405 here, router failures (answerFrameworkError) and requests Node's
 * parser refused (answerClientError), both installed by ./fastify.ts.
 */
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ErrorCode, PaywatchError } from '../domain/errors.js';
import { LIMITS } from '../limits/index.js';

/**
 * The HTTP status of each error code (src/domain/error-codes.ts): the one table every listener answers with. null:
 * an internal failure (500 `internal error`, logged, its message never shown). Typed over every code, so a code added
 * to the catalogue without a status here fails the typecheck.
 */
export const HTTP_STATUS_OF_CODE: Readonly<Record<ErrorCode, number | null>> = {
  invalid_input: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  limit_exceeded: 429,
  unavailable: 503,
  store_unavailable: 503,
  body_too_large: 413,
  url_too_long: 414,
  unsupported_media_type: 415,
  config: null,
  sources_config: null,
  token_list: null,
  master_secret: null,
  read_replica: null,
  wrong_chain: null,
  cli: null,
  consensus_decode: null,
  token_metadata_timeout: null,
  rpc_unavailable: null,
  rpc_http: null,
  rpc_call: null,
  inconsistent_answer: null,
  collector_failed: null,
  integrity_mismatch: null,
  collector_locked: null,
  block_over_budget: null,
  collector_lock_lost: null,
  header_field: null,
  malformed_hex: null,
  unsupported_encoding: null,
  event_mismatch: null,
  anvil: null,
  decode_worker_failed: null,
  reader_thread_failed: null,
  writer_thread_failed: null,
  migration: null,
  sealed_value: null,
  invalid_decimal: null,
  internal: null,
  source_answer: null,
  evidence_format: null,
  fetch_scheme: null,
  fetch_address: null,
  fetch_credentials: null,
  fetch_bad_url: null,
  fetch_dns: null,
  fetch_connect: null,
  fetch_timeout: null,
  fetch_too_large: null,
  fetch_too_many_redirects: null,
  fetch_bad_redirect: null,
  payment_route_missing: null,
  openapi_incomplete: null,
  demo: null,
};

/** The codes only HTTP has words for. */
export type HttpErrorCode = 'body_too_large' | 'url_too_long' | 'unsupported_media_type';

/** An error only HTTP has words for (a body too large, a URL too long, an unsupported media type). */
export class HttpError extends PaywatchError {
  constructor(code: HttpErrorCode, message: string) {
    super(message, { code });
  }

  /** The status it is answered with (HTTP_STATUS_OF_CODE). */
  get status(): number {
    return HTTP_STATUS_OF_CODE[this.code]!;
  }
}

/**
 * How `err` is answered over HTTP: its status, and the Retry-After seconds when it has them; null when `err` is
 * not a caller-facing PaywatchError (then it is an internal failure).
 * @example httpAnswerOf(new NotFound('provider x is not listed')) // { status: 404, retryAfterSeconds: undefined }
 */
export function httpAnswerOf(err: unknown): { status: number; retryAfterSeconds?: number } | null {
  if (!(err instanceof PaywatchError)) return null;
  const status = HTTP_STATUS_OF_CODE[err.code] ?? null;
  if (status === null) return null;
  const retry = err.retryAfterSeconds;
  return { status, retryAfterSeconds: typeof retry === 'number' ? retry : undefined };
}

/** Longest URL answered, in characters (RFC 9110 section 4.1 asks servers to take at least 8000); longer is 414. */
export const MAX_URL_LENGTH = LIMITS.urlLength.value;

/** Longest path parameter the router matches; the longest valid one is a provider domain (260). Longer is 414. */
export const MAX_PARAM_LENGTH = LIMITS.pathParameter.value;

/**
 * Installs on `app` the error handler, the URL length rule (414 past MAX_URL_LENGTH) and the not-found handler:
 * 405 with `Allow` when the path exists under other methods (the methods the router finds for that URL), else 404.
 * Call before any route is registered (the methods are collected as routes are added).
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (clientGone(req, err)) {
      req.log.info({ code: err.code }, 'client disconnected before the answer');
      return reply.code(400).send({ error: 'the client closed the connection before the request was read' });
    }
    const known = httpAnswerOf(err);
    if (known) {
      if (known.status >= 500) req.log.warn({ err: err.message }, 'unavailable');
      if (known.retryAfterSeconds !== undefined) reply.header('retry-after', String(known.retryAfterSeconds));
      return reply.code(known.status).send({ error: err.message });
    }
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) {
      req.log.error({ err }, 'unhandled error');
      return reply.code(500).send({ error: 'internal error' });
    }
    // Fastify's own client errors (bad JSON, body too large, unsupported media type): keep status and say why.
    if (status === 429 && !reply.getHeader('retry-after')) reply.header('retry-after', '60');
    return reply.code(status).send({ error: err.message || 'bad request' });
  });
  const methods = new Set<string>();
  // Paths whose OPTIONS route only refuses a preflight (src/http/cors.ts refusePreflight): OPTIONS is not a method they take.
  const refusesOptions = new Set<string>();
  app.addHook('onRoute', (route) => {
    for (const m of [route.method].flat()) methods.add(m);
    if ((route.config as { refusesPreflight?: boolean } | undefined)?.refusesPreflight) refusesOptions.add(route.url);
  });
  // Callback style: an async hook costs a promise and a microtask turn on every request.
  app.addHook('onRequest', (req, _reply, done) => {
    done(req.url.length > MAX_URL_LENGTH ? new HttpError('url_too_long', `URL too long: at most ${MAX_URL_LENGTH} characters`) : undefined);
  });
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0]!;
    const notFound = () => reply.code(404).send({ error: `no route ${req.method} ${path}` });
    // A GET or HEAD route took the path and found nothing (a missing file under /assets/): the resource is missing, not the method.
    if ((req.method === 'GET' || req.method === 'HEAD') && app.findRoute({ method: req.method, url: path })) return notFound();
    // RFC 9110 section 15.5.6: a path that exists under other methods is 405 with the methods it takes.
    const takes = (m: string) =>
      m !== req.method && !(m === 'OPTIONS' && refusesOptions.has(path)) && app.findRoute({ method: m, url: path });
    const allow = [...methods].filter(takes).sort();
    // OPTIONS alone is CORS's catch-all preflight route (src/http/cors.ts), which every path matches: not a resource.
    if (allow.some((m) => m !== 'OPTIONS')) {
      return reply
        .code(405)
        .header('allow', allow.join(', '))
        .send({ error: `method ${req.method} not allowed here; use ${allow.join(', ')}` });
    }
    return notFound();
  });
}

/** True when `err` is the client going away mid-request (a reset or abort on its own socket), not a store outage. */
function clientGone(req: FastifyRequest, err: FastifyError): boolean {
  return req.raw.destroyed && (err.code === 'ECONNRESET' || err.code === 'ECONNABORTED' || err.message === 'aborted');
}

/**
 * Fastify's `frameworkErrors`: router failures that happen before any route or hook, answered as `{error}`.
 * FST_ERR_MAX_PARAM_LENGTH (a path parameter over MAX_PARAM_LENGTH) is 414, FST_ERR_BAD_URL (a path that is not
 * valid percent-encoded UTF-8) 400, anything else (an async constraint failing) 500; the path is not echoed.
 */
export function answerFrameworkError(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    reply.code(414).send({ error: `path parameter too long: at most ${MAX_PARAM_LENGTH} characters` });
  } else if (err.code === 'FST_ERR_BAD_URL') {
    reply.code(400).send({ error: 'invalid URL: the path is not valid percent-encoded UTF-8' });
  } else {
    reply.code(500).send({ error: 'internal error' });
  }
}

/** Status and message for an HTTP request that Node's parser refused (codes: llhttp's HPE_* and Node's ERR_*). */
function clientErrorAnswer(err: ConnectionError): [number, string] {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      // Node passes the packet as a Buffer (fastify's type says otherwise).
      if (requestLineTooLong(err.rawPacket as unknown as Buffer | undefined))
        return [414, `URL too long: at most ${MAX_URL_LENGTH} characters`];
      return [431, `request header fields too large: the request line and headers may take at most ${maxHeaderSize} bytes together`];
    case 'HPE_INVALID_METHOD':
      // RFC 9110 section 15.6.2: an unrecognised method is 501.
      return [501, 'unknown HTTP method'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'the request was not received in time'];
    default:
      return [400, 'malformed HTTP request'];
  }
}

/**
 * True when the packet that overflowed Node's header limit starts with a request line longer than MAX_URL_LENGTH
 * (the URL is too long, not the headers). Only the packet in hand is known: a request line spread over earlier
 * packets is answered 431.
 */
function requestLineTooLong(packet: Buffer | undefined): boolean {
  if (!Buffer.isBuffer(packet) || !/^[A-Z]+ /.test(packet.subarray(0, 20).toString('latin1'))) return false;
  const end = packet.indexOf('\r\n');
  return (end < 0 ? packet.length : end) > MAX_URL_LENGTH;
}

/**
 * Fastify's `clientErrorHandler` (Node's `clientError` event): a request Node's HTTP parser refused before Fastify
 * saw it (oversized head, unknown method, malformed) is answered with the `{error}` body and the connection closed.
 * A client that reset or closed its connection gets nothing and is logged as a disconnect. `this` is the instance.
 */
export function answerClientError(this: FastifyInstance, err: ConnectionError, socket: Socket): void {
  // Node's own handler (lib/_http_server.js) also leaves a socket alone once a response on it has started.
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (err.code === 'ECONNRESET' || err.code === 'HPE_INVALID_EOF_STATE' || socket.destroyed || !socket.writable || inFlight) {
    this.log.debug({ code: err.code }, 'client disconnected');
    socket.destroy();
    return;
  }
  const [status, error] = clientErrorAnswer(err);
  this.log.debug({ code: err.code, status }, 'client error');
  const body = JSON.stringify({ error });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  // A client that keeps sending would hold the half-closed socket open.
  setTimeout(() => socket.destroy(), 2000).unref();
}
