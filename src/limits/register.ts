/**
 * The one way the listeners and the intake set up @fastify/rate-limit for their per-client limits (./index.ts):
 * the listener-wide request limit (`registerRequestLimit`, both listeners) and route limits (`rateLimitOf`: free-key
 * issuance, intake deliveries per sender). Window, refusal message and Retry-After come from LIMITS; the counts go to
 * ./shared.ts (Redis when configured, this process's memory otherwise).
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LimitExceeded } from '../domain/errors.js';
import { clientKey } from './client-key.js';
import { LIMITS, type RateLimitName } from './index.js';
import { SharedLimits } from './shared.js';

/** The client a request counts for: its address, IPv6 by /64 (./client-key.ts). */
const byClient = (req: FastifyRequest) => clientKey(req.ip);

/**
 * @fastify/rate-limit options for limit `name` counting `max` per its window (a route's `config.rateLimit`, or the
 * plugin's own): the group a request counts in, and the 429 naming the limit, with Retry-After until its window ends.
 * @param key the group a request counts in (default: its client)
 * @example app.post('/v1/keys', { config: { rateLimit: rateLimitOf('keyIssuance', config.verifyKeysPerHour) } }, handler)
 */
export function rateLimitOf(name: RateLimitName, max: number, key: (req: FastifyRequest) => string = byClient) {
  const limit = LIMITS[name];
  return {
    max,
    timeWindow: limit.windowMs,
    keyGenerator: key,
    // The plugin sets Retry-After and x-ratelimit-* headers, then throws what this returns.
    errorResponseBuilder: (_req: FastifyRequest, c: { max: number; ttl: number }) =>
      new LimitExceeded(`rate limited: at most ${c.max} ${limit.unit}; retry after ${Math.ceil(c.ttl / 1000)} s`, {
        retryAfterSeconds: Math.ceil(c.ttl / 1000),
      }),
  };
}

/** Each listener's counters in their own namespace of the shared store. */
const NAMESPACE = { publicRequests: 'api', verifyRequests: 'verify' } as const;

/**
 * Registers a listener's per-client request limit on `app`: every route counts (routes opt out with
 * `config: { rateLimit: false }`, as the health probes do), `max` requests per client per window.
 * @param shared where counts go (`--redis`); default this process's memory
 */
export async function registerRequestLimit(
  app: FastifyInstance,
  name: keyof typeof NAMESPACE,
  max: number,
  shared: SharedLimits = SharedLimits.inMemory(),
): Promise<void> {
  await app.register(rateLimit, { ...rateLimitOf(name, max), global: true, store: shared.rateLimitStore(NAMESPACE[name]) });
}
