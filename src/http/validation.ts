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

/** Query strings longer than this (as JSON) are parsed every time: the memo is for the short ones clients repeat. */
const MEMO_KEY_MAX = 512;
/** Characters of keys the memo holds across every route at most (~1 MB with the parsed values), oldest dropped first. */
const MEMO_CHARS_MAX = 256 * 1024;

/**
 * Parsed query strings by route validator and query, for repeated requests (a poller, a remembered answer asked
 * again): a zod parse of a query was ~13 µs of a remembered ranking's ~55 µs per request (bench/README.md,
 * http-overhead). The query schemas are pure (defaults that depend on the time are applied by the handlers), so
 * the same query always parses to the same value; refusals are not remembered.
 */
const memo = new Map<string, Record<string, unknown>>();
let memoChars = 0;
let validators = 0;

function remember(key: string, value: Record<string, unknown>): void {
  memo.set(key, value);
  memoChars += key.length;
  for (const oldest of memo.keys()) {
    if (memoChars <= MEMO_CHARS_MAX) break;
    memo.delete(oldest);
    memoChars -= oldest.length;
  }
}

/**
 * Fastify's validatorCompiler for zod schemas: parses with the plain error map (a schema's own messages win) and
 * turns a failure into InvalidInput (400) carrying refusal's sentence. A query string parsed before is answered
 * from the memo above, as a fresh shallow copy (a handler may add to its query object).
 */
export const plainValidatorCompiler: FastifySchemaCompiler<ZodType> = ({ schema, httpPart }) => {
  const inQuery = httpPart === 'querystring';
  const parse = (data: unknown) => {
    const r = schema.safeParse(data, { error: (iss) => plainIssueMessage(iss as Parameters<typeof plainIssueMessage>[0], inQuery) });
    if (r.success) return { value: r.data };
    return { error: new InvalidInput(refusal(httpPart ?? 'request', r.error.issues[0])) };
  };
  if (!inQuery) return parse;
  const id = `${(validators++).toString(36)} `;
  return (data: unknown) => {
    const key = id + JSON.stringify(data);
    const known = memo.get(key);
    if (known !== undefined) return { value: { ...known } };
    const r = parse(data);
    if (key.length <= MEMO_KEY_MAX && typeof r.value === 'object' && r.value !== null && !Array.isArray(r.value))
      remember(key, { ...(r.value as Record<string, unknown>) });
    return r;
  };
};
