/** The id a request is known by in logs and answers, the same on the normal path (./fastify.ts) and on replay (./replay.ts). */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** A client's X-Request-Id is kept when it is 1–128 characters of this set (nothing a log or header could misread). */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * The request's id: the client's `X-Request-Id` when sane (so a caller can follow its request through our logs),
 * else a new UUID. Echoed in the answer's X-Request-Id and logged as `request_id`.
 * @example requestId(req) // 'e9d9c17b-801d-41fb-a2e3-9eb66c566967'
 */
export function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
}
