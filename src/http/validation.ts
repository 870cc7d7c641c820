/**
 * The request validator of every listener (./fastify.ts): zod schemas parsed with src/domain/query-params.ts's plain
 * error map, and a refusal answered as one sentence naming the part and the member, `invalid query parameter 'X':
 * <rule>` (docs/api-chain.md), never a validator's own words. Unknown members are refused by name, so a misspelt
 * filter never silently widens a query.
 */
import type { FastifySchemaCompiler } from 'fastify';
import type { ZodType, z } from 'zod';
import { InvalidInput, unknownParameters } from '../domain/errors.js';
import { plainIssueMessage } from '../domain/query-params.js';

/** How a request part's members are called in a refusal. */
const KIND_OF_PART: Record<string, string> = {
  querystring: 'query parameter',
  params: 'path parameter',
  headers: 'header',
  body: 'body member',
};

/**
 * The sentence for the first issue of a failed parse of request part `part` (querystring, params, headers, body).
 * @example refusal('querystring', issue) // "invalid query parameter 'limit': must be at most 100"
 */
export function refusal(part: string, issue: z.core.$ZodIssue | undefined): string {
  const kind = KIND_OF_PART[part] ?? 'request member';
  if (!issue) return `invalid ${part}: is not an accepted value`;
  if (issue.code === 'unrecognized_keys') return unknownParameters(kind, issue.keys);
  const path = issue.path.map(String).join('.');
  return path ? `invalid ${kind} '${path}': ${issue.message}` : `invalid ${part}: ${issue.message}`;
}

/**
 * Fastify's validatorCompiler for zod schemas: parses with the plain error map (a schema's own messages win) and
 * turns a failure into InvalidInput (400) carrying refusal's sentence.
 */
export const plainValidatorCompiler: FastifySchemaCompiler<ZodType> =
  ({ schema, httpPart }) =>
  (data) => {
    const inQuery = httpPart === 'querystring';
    const r = schema.safeParse(data, { error: (iss) => plainIssueMessage(iss as Parameters<typeof plainIssueMessage>[0], inQuery) });
    if (r.success) return { value: r.data };
    return { error: new InvalidInput(refusal(httpPart ?? 'request', r.error.issues[0])) };
  };
