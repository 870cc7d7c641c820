/**
 * Request bodies on every listener (./fastify.ts): application/json only, read by the intake's strict reader
 * (src/intake/json-shape.ts parseJsonText: UTF-8, duplicate member names, depth, `__proto__` refused with a clear
 * sentence), uncompressed only. Any other media type, and any Content-Encoding but identity, is 415; an empty JSON
 * body is no body. The intake keeps its own raw-bytes parser (src/api/routes/intake.ts) but the same two refusals.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from './errors.js';
import { parseJsonText } from '../intake/json-shape.js';

/** The 415 of a body that is not JSON. */
export const UNSUPPORTED_TYPE = 'unsupported content type: send the body as application/json';

/**
 * Refuses a compressed request body: no route inflates one, and reading gzip bytes as JSON would only say "not
 * valid JSON".
 * @throws HttpError unsupported_media_type (415) when Content-Encoding is present and not `identity`
 */
export function refuseEncodedBody(req: FastifyRequest): void {
  const enc = req.headers['content-encoding'];
  if (enc !== undefined && String(enc).trim().toLowerCase() !== 'identity')
    throw new HttpError('unsupported_media_type', 'unsupported content encoding: send the body uncompressed (no Content-Encoding)');
}

/** Replaces Fastify's body parsers on `app` (and the scopes it will register) with the strict JSON one and a 415 for the rest. */
export function installJsonBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    try {
      refuseEncodedBody(req);
      const bytes = body as Buffer;
      done(null, bytes.length === 0 ? undefined : parseJsonText(bytes, { refuseProto: true }).value);
    } catch (e) {
      done(e as Error, undefined);
    }
  });
  app.addContentTypeParser('*', (_req, _payload, done) => done(new HttpError('unsupported_media_type', UNSUPPORTED_TYPE), undefined));
}
