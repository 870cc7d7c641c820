/**
 * CORS on the public listener (@fastify/cors), by fastify's encapsulation rather than a list of paths: any origin
 * may read the free public API and call the MCP endpoint (no credentials are involved: the public API has no
 * cookies or keys), so CORS is registered in the plugin scope that holds the public routes, and its hooks never
 * run for a route outside it. The private intake and operator routes live in a scope of their own that answers
 * OPTIONS on each of its paths as a wrong method, so CORS's catch-all preflight route never speaks for them.
 */
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

/** The CORS answer for public routes: any origin, no credentials, the headers a client reads exposed. */
const PUBLIC: FastifyCorsOptions = {
  origin: '*',
  methods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
  allowedHeaders: ['Accept', 'Content-Type', 'If-None-Match', 'X-Request-Id', 'Mcp-Session-Id', 'Mcp-Protocol-Version', 'Last-Event-ID'],
  exposedHeaders: [
    'ETag',
    'Retry-After',
    'X-Request-Id',
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
    'Mcp-Session-Id',
    'Mcp-Protocol-Version',
    'Content-Disposition',
  ],
  maxAge: 86_400,
};

/**
 * Registers CORS for any origin in `scope`, the plugin scope of the public routes (register them after this). A
 * preflight is granted only when the path exists under the method it asks for; any other gets the 404/405 of
 * src/http/errors.ts.
 */
export async function registerPublicCors(scope: FastifyInstance): Promise<void> {
  // Runs before CORS's own hook, which answers a preflight at once. Static options rather than a per-request
  // delegator: the plugin rebuilds a delegator's options on every request, a few percent of a remembered answer.
  // Callback style (an async hook costs a promise per request); a refused preflight is answered without done().
  scope.addHook('onRequest', (req, reply, done) => {
    if (req.method !== 'OPTIONS') return done();
    const asked = req.headers['access-control-request-method'];
    if (typeof asked === 'string' && !scope.findRoute({ method: asked, url: req.url.split('?')[0]! })) return void reply.callNotFound();
    done();
  });
  await scope.register(cors, PUBLIC);
}

/**
 * Makes `scope` (the private routes' plugin scope) refuse CORS preflight: every path its routes take answers
 * OPTIONS through the not-found handler (405 with Allow), a more specific route than the catch-all `OPTIONS *`
 * that @fastify/cors registers in the public scope. Call before registering the private routes, then call the
 * returned function after them.
 */
export function refusePreflight(scope: FastifyInstance): () => void {
  const paths = new Set<string>();
  scope.addHook('onRoute', (route) => {
    if (![route.method].flat().includes('OPTIONS')) paths.add(route.url);
  });
  return () => {
    for (const path of [...paths])
      scope.options(path, { schema: { hide: true }, config: { refusesPreflight: true } }, (_req, reply) => reply.callNotFound());
  };
}

/** The trust-check routes the explorer page calls from the public listener's origin. */
const EXPLORER_ROUTES = new Set(['/v1/keys', '/v1/check']);

/**
 * The explorer's origin as seen by a request to the trust-check listener: the configured public URL's origin; else
 * the scheme and host the request was sent to, with the public listener's port (the page is served there).
 */
export function explorerOrigin(config: Pick<Config, 'publicUrl' | 'port'>, req: { protocol: string; host: string }): string | null {
  try {
    if (config.publicUrl) return new URL(config.publicUrl).origin;
    const u = new URL(`${req.protocol}://${req.host}`);
    u.port = String(config.port);
    return u.origin;
  } catch {
    return null;
  }
}

/**
 * CORS on the trust-check listener for the explorer page alone: POST /v1/keys and /v1/check answer CORS (and their
 * preflight) only to the explorer's origin (explorerOrigin); every other origin and route gets none, and its
 * preflight the listener's 404/405.
 */
export async function registerExplorerCors(app: FastifyInstance, config: Pick<Config, 'publicUrl' | 'port'>): Promise<void> {
  await app.register(cors, {
    delegator: (req: FastifyRequest, done: (err: Error | null, options: FastifyCorsOptions) => void) => {
      const path = req.url.split('?')[0]!;
      const asked = req.headers['access-control-request-method'];
      const method = req.method === 'OPTIONS' ? asked : req.method;
      const allowed =
        EXPLORER_ROUTES.has(path) &&
        method === 'POST' &&
        req.headers.origin !== undefined &&
        req.headers.origin === explorerOrigin(config, req);
      done(
        null,
        allowed
          ? {
              origin: req.headers.origin,
              methods: ['POST'],
              allowedHeaders: ['Authorization', 'Content-Type'],
              exposedHeaders: ['Retry-After', 'X-Request-Id'],
              maxAge: 600,
            }
          : { origin: false },
      );
    },
  });
}
