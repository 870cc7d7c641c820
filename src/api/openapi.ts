/**
 * What every paywatch OpenAPI document gets on top of the route schemas, in one place (applied through
 * @fastify/swagger's `transformObject` by the public app and the trust-check app): a stable operationId for every
 * operation, the tags declared with descriptions, the security each operation takes (none for public reads),
 * the response headers clients rely on (ETag, Cache-Control, Retry-After, the rate-limit headers, X-Request-Id),
 * and the 429, 503 (and, for cacheable reads, 304) answers every route can give, so that client generators and
 * linters (Redocly's recommended rules, run by `npm run lint:openapi`) find a complete description.
 */

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
  'GET /api/export': 'exportTransactions',
  'GET /.well-known/paywatch.json': 'getManifest',
  'GET /healthz': 'getHealth',
  'GET /readyz': 'getReadiness',
  'POST /v1/keys': 'issueApiKey',
  'POST /v1/check': 'checkUrl',
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

const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': header('Requests allowed per client in the current window.', { type: 'integer' }),
  'X-RateLimit-Remaining': header('Requests left in the current window.', { type: 'integer' }),
  'X-RateLimit-Reset': header('Seconds until the window resets.', { type: 'integer' }),
};
const REQUEST_ID = { 'X-Request-Id': header('The request id: the one the client sent when sane, else generated. Quote it when reporting a problem.') };
const RETRY_AFTER = { 'Retry-After': header('Seconds to wait before retrying.', { type: 'integer' }) };
const ERROR_BODY = { type: 'object', properties: { error: { type: 'string', description: 'What went wrong.' } }, required: ['error'], additionalProperties: false };
const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ERROR_BODY } } });

/** Options of `finishDocument`. */
export interface FinishOptions {
  /** The server the document describes (its base URL). */
  server: string;
}

/**
 * Completes a generated OpenAPI 3.1 document (see the module comment). Mutates and returns `doc`.
 * @throws Error naming the operation when a visible operation has no entry in OPERATION_IDS or uses an
 *   undeclared tag (a programming error, caught by the tests and at start-up)
 */
export function finishDocument(doc: Json, opts: FinishOptions): Json {
  doc.servers = [{ url: opts.server }];
  doc.info.license ??= { name: 'MIT', identifier: 'MIT' };
  const used = new Set<string>();
  for (const [path, ops] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(ops)) {
      const key = `${method.toUpperCase()} ${path}`;
      const id = OPERATION_IDS[key];
      if (!id) throw new Error(`OpenAPI: no operationId for ${key} (add it to OPERATION_IDS in src/api/openapi.ts)`);
      op.operationId = id;
      for (const t of op.tags ?? []) {
        if (!TAGS[t]) throw new Error(`OpenAPI: ${key} uses the undeclared tag ${t} (add it to TAGS in src/api/openapi.ts)`);
        used.add(t);
      }
      // An operation that declares no security is public: say so (security: []), as Redocly's security-defined asks.
      op.security ??= [];
      const responses: Json = (op.responses ??= {});
      const probe = path === '/healthz' || path === '/readyz';
      for (const [status, r] of Object.entries<Json>(responses)) {
        r.headers = { ...r.headers, ...REQUEST_ID };
        if (status.startsWith('2') && method === 'get') {
          r.headers['Cache-Control'] = header('How long the answer may be cached.');
          if (!probe && path !== '/api/export') r.headers.ETag = header('Weak validator of the answer; send it back in If-None-Match for a 304.');
        }
        if (!probe) Object.assign(r.headers, RATE_LIMIT_HEADERS);
        if (status === '429' || status === '503') Object.assign(r.headers, RETRY_AFTER);
      }
      if (!probe) {
        responses['429'] ??= { ...errorResponse('Rate limited per client; honour Retry-After.'), headers: { ...REQUEST_ID, ...RATE_LIMIT_HEADERS, ...RETRY_AFTER } };
        responses['503'] ??= { ...errorResponse('Temporarily unavailable (store or a dependency down, or too busy); honour Retry-After.'), headers: { ...REQUEST_ID, ...RETRY_AFTER } };
        responses['400'] ??= { ...errorResponse('The request is malformed.'), headers: { ...REQUEST_ID } };
        if (method === 'get' && path !== '/api/export') responses['304'] ??= { description: 'Not modified: the If-None-Match validator still matches.', headers: { ...REQUEST_ID } };
      }
    }
  }
  doc.tags = [...used].sort().map((name) => ({ name, description: TAGS[name] }));
  return doc;
}

/** finishDocument as @fastify/swagger's `transformObject` option, for the server at `server`. */
export function documentFinisher(server: string) {
  return (d: object): Json => finishDocument((d as { openapiObject: Json }).openapiObject, { server });
}
