/**
 * What every paywatch OpenAPI document gets on top of the route schemas, in one place (applied through
 * @fastify/swagger's `transformObject` by the public app and the trust-check app): a stable operationId for every
 * operation, the tags declared with descriptions, the security each operation takes (none for public reads),
 * the response headers the listeners really send (ETag, Cache-Control, Retry-After, @fastify/rate-limit's
 * x-ratelimit-* headers, X-Request-Id), and the 304, 400, 429 and 503 answers every rate-limited route can give.
 * Shared parts (the `{error}` schema, the headers, the standard answers) are components referred to by `$ref`, so
 * the document states each once. Client generators and linters (Redocly's recommended rules,
 * `npm run lint:openapi`) then find a complete description.
 */
import { PaywatchError } from '../domain/errors.js';
import { ErrorBody } from '../domain/error-body.js';

/** A node of the OpenAPI document as @fastify/swagger builds it (members of any JSON type, read and set freely). */
// biome-ignore lint/suspicious/noExplicitAny: the document is untyped JSON walked and rewritten member by member
type Json = Record<string, any>;

/** operationId of every visible operation, by "METHOD path". A route missing here fails at start (see finish). */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  'GET /api/providers': 'searchProviders',
  'GET /api/providers/{domain}': 'getProvider',
  'GET /api/intelligence/status': 'getIntelligenceStatus',
  'GET /api/intelligence/offers': 'listOffers',
  'GET /api/intelligence/changes': 'listChanges',
  'GET /api/intelligence/history': 'getServiceHistory',
  'POST /api/mcp': 'callMcp',
  'GET /api/status': 'getStatus',
  'GET /api/coverage': 'getCoverage',
  'GET /api/transactions': 'listTransactions',
  'GET /api/transactions/{hash}': 'getTransaction',
  'GET /api/metrics': 'getMetrics',
  'GET /api/metrics/series': 'getMetricsSeries',
  'GET /api/rankings/services': 'rankServices',
  'GET /api/rankings/recipients': 'rankRecipients',
  'GET /api/rankings/payers': 'rankPayers',
  'GET /api/payments': 'getPayments',
  'GET /api/export': 'exportTransactions',
  'GET /.well-known/paywatch.json': 'getManifest',
  'GET /healthz': 'getHealth',
  'GET /readyz': 'getReadiness',
  'GET /readyz/collector': 'getCollectorReadiness',
  'POST /v1/keys': 'issueApiKey',
  'POST /v1/check': 'checkUrl',
  'POST /v1/check/pay-to': 'checkPayTo',
  'POST /v1/mcp': 'callTrustMcp',
  'GET /llms.txt': 'getLlmsTxt',
};

/** Tag descriptions; every tag an operation uses must be here. */
export const TAGS: Readonly<Record<string, string>> = {
  chain: 'Observations of finalized Tempo transactions: status, coverage, lists, details, metrics, CSV export.',
  providers: 'Paid HTTP services (x402, MPP) seen in public directories, with dated endpoint checks.',
  intelligence: 'Advertised payment offers, their changes and history.',
  mcp: 'The same reads as MCP tools (Streamable HTTP, stateless).',
  meta: 'What this service is: the manifest.',
  operations: 'Liveness and readiness for load balancers and orchestrators.',
  'trust-check': 'Should an agent pay this URL? Checks and keys.',
};

/**
 * Paths that @fastify/rate-limit leaves alone (their routes say `rateLimit: false`): liveness and readiness probes
 * answer no x-ratelimit-* headers, no 429 and no 400.
 */
const PROBES = new Set(['/healthz', '/readyz', '/readyz/collector']);
/** Reads sent without an ETag (a streamed body): no ETag, no 304. */
const NO_ETAG = new Set(['/api/export']);
/** Operations whose answers carry no Cache-Control (the MCP transport writes its own JSON-RPC answers). */
const NO_CACHE_CONTROL = new Set(['POST /api/mcp']);

const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });
/** Response headers, by name; @fastify/rate-limit sends the x-ratelimit-* draft names unless told otherwise. */
const HEADERS: Readonly<Record<string, Json>> = {
  'X-Request-Id': header('The request id: the one the client sent when sane, else generated. Quote it when reporting a problem.'),
  ETag: header('Weak validator of the answer; send it back in If-None-Match for a 304.'),
  'Cache-Control': header('How long the answer may be reused (public reads: the five-second polling interval or longer).'),
  'Retry-After': header('Seconds to wait before retrying.', { type: 'integer', minimum: 0 }),
  'X-RateLimit-Limit': header('Requests allowed per client in the current window.', { type: 'integer', minimum: 0 }),
  'X-RateLimit-Remaining': header('Requests left in the current window.', { type: 'integer', minimum: 0 }),
  'X-RateLimit-Reset': header('Seconds until the window resets.', { type: 'integer', minimum: 0 }),
};
const RATE_LIMIT = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

/** The `{error}` body (src/domain/error-body.ts) as the `Error` component. */
const ERROR_SCHEMA = {
  type: 'object',
  description: ErrorBody.description,
  properties: { error: { type: 'string', description: ErrorBody.shape.error.description } },
  required: ['error'],
  additionalProperties: false,
};
const ERROR_REF = { $ref: '#/components/schemas/Error' };
const headerRefs = (names: string[]) => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));
const errorAnswer = (description: string, headers: string[]) => ({
  description,
  headers: headerRefs(headers),
  content: { 'application/json': { schema: ERROR_REF } },
});

/** The answers every rate-limited route can give, as components (headers: those the listener sends with them). */
const RESPONSES: Readonly<Record<string, Json>> = {
  NotModified: {
    description: 'Not modified: the If-None-Match validator still matches.',
    headers: headerRefs(['X-Request-Id', 'ETag', 'Cache-Control', ...RATE_LIMIT]),
  },
  BadRequest: errorAnswer('The request is malformed (the message names the parameter and the rule).', ['X-Request-Id', ...RATE_LIMIT]),
  TooManyRequests: errorAnswer('Rate limited per client; honour Retry-After.', ['X-Request-Id', 'Retry-After', ...RATE_LIMIT]),
  Unavailable: errorAnswer(
    'Temporarily unavailable (the store or a dependency cannot answer, too busy, or shutting down); honour Retry-After and back off.',
    ['X-Request-Id', 'Retry-After', ...RATE_LIMIT],
  ),
};
const STANDARD: Readonly<Record<string, string>> = {
  '304': 'NotModified',
  '400': 'BadRequest',
  '429': 'TooManyRequests',
  '503': 'Unavailable',
};

/** True for a generated `{error}` schema (the zod ErrorBody of any area): an object whose only member is `error`. */
function isErrorSchema(s: Json | undefined): boolean {
  return (
    s?.type === 'object' &&
    Object.keys(s.properties ?? {}).join() === 'error' &&
    s.properties.error.type === 'string' &&
    s.required?.join() === 'error'
  );
}

/** The headers a response of `status` to `method path` carries (see the module comment). */
function headersOf(method: string, path: string, status: string): string[] {
  const probe = PROBES.has(path);
  const names = ['X-Request-Id'];
  if (!probe) names.push(...RATE_LIMIT);
  if (status.startsWith('2') && !NO_CACHE_CONTROL.has(`${method.toUpperCase()} ${path}`)) names.push('Cache-Control');
  if (status.startsWith('2') && method === 'get' && !probe && !NO_ETAG.has(path)) names.push('ETag');
  if (status === '429' || status === '503') names.push('Retry-After');
  return names;
}

/** Names of the `kind` components (#/components/KIND/NAME) `value` refers to. */
function refsIn(value: unknown, kind: string): Set<string> {
  return new Set([...JSON.stringify(value).matchAll(new RegExp(`"#/components/${kind}/([^"]+)"`, 'g'))].map((m) => m[1]!));
}

/** The members of `from` named in `names`. */
const pick = (from: Readonly<Record<string, Json>>, names: Set<string>): Record<string, Json> =>
  Object.fromEntries(Object.entries(from).filter(([name]) => names.has(name)));

/** Options of `finishDocument`. */
export interface FinishOptions {
  /** The server the document describes: its configured base URL, or null for "/" (where the document is served). */
  server: string | null;
}

/**
 * Completes a generated OpenAPI 3.1 document (see the module comment). Mutates and returns `doc`.
 * @throws Error naming the operation when a visible operation has no entry in OPERATION_IDS or uses an
 *   undeclared tag (a programming error, caught by the tests and at start-up)
 */
export function finishDocument(doc: Json, opts: FinishOptions): Json {
  doc.servers = [
    { url: opts.server ?? '/', description: opts.server ? 'The configured public address.' : 'The origin this document was fetched from.' },
  ];
  doc.info.license ??= { name: 'MIT', identifier: 'MIT' };
  const used = new Set<string>();
  for (const [path, ops] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(ops)) {
      const key = `${method.toUpperCase()} ${path}`;
      const id = OPERATION_IDS[key];
      if (!id)
        throw new PaywatchError(`OpenAPI: no operationId for ${key} (add it to OPERATION_IDS in src/http/openapi.ts)`, {
          code: 'openapi_incomplete',
        });
      op.operationId = id;
      for (const t of op.tags ?? []) {
        if (!TAGS[t])
          throw new PaywatchError(`OpenAPI: ${key} uses the undeclared tag ${t} (add it to TAGS in src/http/openapi.ts)`, {
            code: 'openapi_incomplete',
          });
        used.add(t);
      }
      // An operation that declares no security is public: say so (security: []), as Redocly's security-defined asks.
      op.security ??= [];
      op.responses ??= {};
      const responses: Json = op.responses;
      for (const [status, r] of Object.entries<Json>(responses)) {
        r.headers = { ...r.headers, ...headerRefs(headersOf(method, path, status)) };
        const json = r.content?.['application/json'];
        if (isErrorSchema(json?.schema)) json.schema = ERROR_REF;
      }
      if (!PROBES.has(path)) {
        const standard = method === 'get' && !NO_ETAG.has(path) ? ['304', '400', '429', '503'] : ['400', '429', '503'];
        for (const status of standard) responses[status] ??= { $ref: `#/components/responses/${STANDARD[status]}` };
      }
    }
  }
  doc.tags = [...used].sort().map((name) => ({ name, description: TAGS[name] }));
  // Only the components this document refers to (Redocly's no-unused-components).
  const responses = pick(RESPONSES, refsIn(doc.paths, 'responses'));
  const headers = pick(HEADERS, refsIn([doc.paths, responses], 'headers'));
  const schemas = { ...doc.components?.schemas, ...pick({ Error: ERROR_SCHEMA }, refsIn([doc.paths, responses], 'schemas')) };
  doc.components = { ...doc.components, schemas, headers, responses };
  return doc;
}

/** finishDocument as @fastify/swagger's `transformObject` option, for the server at `server` (null: relative). */
export function documentFinisher(server: string | null) {
  return (d: object): Json => finishDocument((d as { openapiObject: Json }).openapiObject, { server });
}
