/**
 * CORS on the public listener (@fastify/cors): any origin may read the free public API and call the MCP endpoint
 * (no credentials are involved: the public API has no cookies or keys), while the private intake and operator
 * routes answer no CORS headers at all, preflight included, so no page on another origin can drive them.
 */
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Paths (exact, or prefixes ending in "/") of the private routes: signed intake and operator reads. */
export const PRIVATE_PATHS: readonly string[] = ['/api/protocol-events', '/api/intelligence/outcomes', '/api/operator/'];

/** True when `url` (path and query) names a private route. */
export function isPrivatePath(url: string): boolean {
  const path = url.split('?')[0]!.replace(/\/+$/, '') || '/';
  return PRIVATE_PATHS.some((p) => (p.endsWith('/') ? `${path}/`.startsWith(p) : path === p));
}

/** The CORS answer for public routes: any origin, no credentials, the headers a client reads exposed. */
const PUBLIC: FastifyCorsOptions = {
  origin: '*',
  methods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
  allowedHeaders: ['Accept', 'Content-Type', 'If-None-Match', 'X-Request-Id', 'Mcp-Session-Id', 'Mcp-Protocol-Version', 'Last-Event-ID'],
  exposedHeaders: ['ETag', 'Retry-After', 'X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Mcp-Session-Id', 'Mcp-Protocol-Version', 'Content-Disposition'],
  maxAge: 86_400,
};

/** Registers CORS on the public listener's app: PUBLIC everywhere except PRIVATE_PATHS, which get none. */
export async function registerPublicCors(app: FastifyInstance): Promise<void> {
  await app.register(cors, {
    delegator: (req: FastifyRequest, done: (err: Error | null, options: FastifyCorsOptions) => void) => done(null, isPrivatePath(req.url) ? { origin: false } : PUBLIC),
  });
}
