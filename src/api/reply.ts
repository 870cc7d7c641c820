/**
 * Sending JSON text a route rendered (or remembered) itself, bypassing the serializer: the text must match the
 * route's response schema, which the API tests check against the OpenAPI document.
 */
import type { FastifyReply } from 'fastify';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends `text` (a JSON document) as the reply body with the JSON content type. */
export function sendJsonText(reply: FastifyReply, text: string): FastifyReply {
  // `as never`: the typed reply expects the schema's object type; the text is that object, already rendered.
  return reply.type(JSON_TYPE).send(text as never);
}
