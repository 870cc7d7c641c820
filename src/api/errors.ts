/**
 * Maps anything thrown in a route to the contract's `{error}` body (contract section 7): validation
 * errors to 400 naming the parameter, HttpError to its own status, store outages to 503 with Retry-After.
 * Never a 500 with a stack trace: unexpected errors are logged and answered with a short message.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { HttpError } from '../domain/errors.js';

/** Error codes and messages that mean the store (SQLite or PostgreSQL) cannot answer right now. */
const STORE_DOWN = /ECONNREFUSED|3D000|ECONNRESET|ETIMEDOUT|57P0[1-3]|08\d\d\d|53300|SQLITE_BUSY|SQLITE_CANTOPEN|SQLITE_IOERR|Connection terminated|timeout exceeded when trying to connect|database is locked|pool.*(ended|destroyed)|driver has already been destroyed/i;

/** True when `err` says the database is unreachable or busy, rather than that the request is wrong. */
export function isStoreUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return STORE_DOWN.test(`${e?.code ?? ''} ${e?.message ?? ''}`);
}

/** One validation issue as fastify-type-provider-zod reports it (keyword = zod issue code). */
interface ValidationIssue {
  keyword?: string;
  instancePath?: string;
  message?: string;
  params?: { keys?: string[] };
}

/** Turns a zod issue list into one sentence naming the parameter. */
function describeValidation(err: FastifyError): string {
  const v = (err as unknown as { validation: ValidationIssue[] }).validation;
  const where = (err as unknown as { validationContext?: string }).validationContext ?? 'request';
  const first = v[0];
  const kind = where === 'querystring' ? 'query parameter' : where === 'params' ? 'path parameter' : where === 'headers' ? 'header' : 'body member';
  // Unknown parameters are refused rather than ignored, so a misspelt filter never silently widens a query.
  const keys = first?.params?.keys;
  if (first?.keyword === 'unrecognized_keys' && keys?.length) {
    return `unknown ${kind}${keys.length > 1 ? 's' : ''} ${keys.map((k) => `'${k.slice(0, 40)}'`).join(', ')}`;
  }
  const path = (first?.instancePath?.split('/').filter(Boolean) ?? []).join('.');
  return path ? `invalid ${kind} '${path}': ${first?.message ?? 'invalid value'}` : `invalid ${where}: ${first?.message ?? 'invalid value'}`;
}

/** Installs the error and not-found handlers on `app`. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (hasZodFastifySchemaValidationErrors(err)) {
      return reply.code(400).send({ error: describeValidation(err) });
    }
    if (err instanceof HttpError) {
      if (err.retryAfter !== undefined) reply.header('retry-after', String(err.retryAfter));
      return reply.code(err.status).send({ error: err.message });
    }
    if (isStoreUnavailable(err)) {
      req.log.warn({ err: err.message }, 'store unavailable');
      return reply.code(503).header('retry-after', '5').send({ error: 'service unavailable: the store cannot answer now; retry with exponential backoff' });
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
  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send({ error: `no route ${req.method} ${req.url.split('?')[0]}` });
  });
}
