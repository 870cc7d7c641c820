/** Types of @fastify/rate-limit's two built-in stores, which its package ships without declarations. */
declare module '@fastify/rate-limit/store/RedisStore.js' {
  import type { Redis } from 'ioredis';
  import type { RateLimitStoreChild } from '@fastify/rate-limit/store/LocalStore.js';
  /** Fixed windows in Redis: INCR, and PEXPIRE on a window's first hit (one Lua script). */
  export default class RedisStore implements RateLimitStoreChild {
    constructor(continueExceeding: boolean, exponentialBackoff: boolean, redis: Redis, key?: string);
    incr: RateLimitStoreChild['incr'];
    child: RateLimitStoreChild['child'];
  }
}
declare module '@fastify/rate-limit/store/LocalStore.js' {
  /** What a store's `incr` reports: hits in the current window, and milliseconds until it ends. */
  export interface RateLimitCount {
    current: number;
    ttl: number;
  }
  /** The route options `child` receives (the plugin's merged options, with the route's method and URL). */
  export interface RateLimitRouteOptions {
    continueExceeding: boolean;
    exponentialBackoff: boolean;
    cache?: number;
    routeInfo: { method: string; url: string };
  }
  /** @fastify/rate-limit's store contract. */
  export interface RateLimitStoreChild {
    incr(key: string, callback: (err: Error | null, result: RateLimitCount | null) => void, timeWindow: number, max: number): void;
    child(routeOptions: RateLimitRouteOptions): RateLimitStoreChild;
  }
  /** Fixed windows in this process's memory (an LRU of `cache` keys). */
  export default class LocalStore implements RateLimitStoreChild {
    constructor(continueExceeding: boolean, exponentialBackoff: boolean, cache?: number);
    incr: RateLimitStoreChild['incr'];
    child: RateLimitStoreChild['child'];
  }
}
