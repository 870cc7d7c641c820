/**
 * Where per-client limits keep their counters: this process's memory, or one Redis shared by every replica
 * (`--redis URL` / PAYWATCH_REDIS_URL), so N replicas behind a load balancer enforce one limit, not N.
 *
 * Counted here: @fastify/rate-limit's request limits on both listeners (its own Redis store, one namespace per
 * listener and route), the trust check's free-key issuance limit (a route limit), and the failed-authentication
 * limits (./failed-auth.ts). Not counted here: budgets of work in flight (./heavy-budget.ts), which protect one
 * process's own readers and so stay per process (docs/decisions.md).
 *
 * A Redis outage never takes a listener down: while Redis does not answer (not connected, or no answer within
 * COMMAND_TIMEOUT_MS), every count falls back to this process's memory, a warning is logged once, and /readyz
 * shows it; when Redis is back, counting returns to it (ioredis reconnects on the one backoff rule,
 * src/net/backoff.ts). Fallback counts are per process, so during an outage N replicas allow up to N times a limit.
 */
import type { Redis } from 'ioredis';
import LocalStore, {
  type RateLimitCount,
  type RateLimitRouteOptions,
  type RateLimitStoreChild,
} from '@fastify/rate-limit/store/LocalStore.js';
import type { FastifyBaseLogger } from 'fastify';
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { backoffDelayMs } from '../net/backoff.js';
import { redactUrl } from '../net/redact-url.js';
import { shortMessage } from '../domain/errors.js';

/** Milliseconds a Redis command may take before the count falls back to memory (a stalled Redis must not stall requests). */
export const COMMAND_TIMEOUT_MS = 250;
/** Reconnection delays: full-jitter backoff from 100 ms up to 2 s (src/net/backoff.ts). */
const RECONNECT_BASE_MS = 100;
const RECONNECT_MAX_MS = 2000;
/** After a command failed on a connection that still looks alive, counts stay in memory this long (ms). */
const RETRY_AFTER_FAILURE_MS = 1000;
/** The state before the first connection. */
const CONNECTING = 'connecting';
/** Every key paywatch writes starts with this, so a shared Redis can hold other applications' keys too. */
const KEY_PREFIX = 'paywatch:';

/** What /readyz shows of the limits (src/http/health.ts); never the Redis address, which is internal. */
export interface LimitsStatus {
  /** `memory`: counters in this process; `redis`: counters shared through Redis. */
  store: 'memory' | 'redis';
  /** True while counts go to a Redis every replica shares; false without Redis, or while it does not answer or refuses authentication. */
  shared: boolean;
  /** Why a configured Redis is not counting (null when it is, or without Redis). */
  error: string | null;
}

/** Redis's answers to a wrong or missing password (AUTH, or a command before AUTH). */
const AUTH_REFUSED = /WRONGPASS|NOAUTH|invalid password|invalid username-password/i;

/** Increments a failure counter: INCR, and PEXPIRE when the window starts; answers [count, ms left]. */
const FAILURE_HIT = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}`;

type RedisWithHit = Redis & { paywatchFailureHit(key: string, windowMs: number): Promise<[number, number]> };

/**
 * The counters of one process: in memory, or in Redis with memory as the fallback. One per process, shared by its
 * listeners; create it with `SharedLimits.inMemory()` or `SharedLimits.connect(url)`.
 * @example
 * const limits = await SharedLimits.connect('redis://127.0.0.1:6379', log);
 * await app.register(rateLimit, { max: 600, timeWindow: 60_000, store: limits.rateLimitStore('api') });
 */
export class SharedLimits {
  #error: string | null = null;
  /** The last failure was Redis refusing the password (kept as the reason until it answers). */
  #authRefused = false;
  /** After a failed command on a live connection, when to try Redis again (ms since the epoch). */
  #retryAt = 0;

  private constructor(
    private readonly redis: RedisWithHit | null,
    private readonly source: string | null,
    private readonly log?: FastifyBaseLogger,
    /** @fastify/rate-limit's RedisStore, loaded with ioredis only when Redis is configured. */
    private readonly RedisStore?: typeof import('@fastify/rate-limit/store/RedisStore.js').default,
  ) {
    if (!redis) return;
    // ioredis emits 'error' on every failed connection attempt: note the first, stay quiet until it recovers.
    redis.on('error', (e: Error) => this.fellBack(e));
    redis.on('close', () => this.fellBack(new Error('connection closed')));
    redis.on('ready', () => this.answered());
  }

  /** Counters in this process only (no `--redis`). */
  static inMemory(): SharedLimits {
    return new SharedLimits(null, null);
  }

  /**
   * Counters in the Redis at `url` (redis:// or rediss://, password and database number allowed), falling back to
   * memory while it does not answer. Never throws for an unreachable server: it connects in the background.
   * @param log where the fallback and the recovery are reported (the URL only ever appears redacted)
   */
  static async connect(url: string, log?: FastifyBaseLogger): Promise<SharedLimits> {
    // Through module.exports: a split bundle (scripts/bundle.mjs) gives a CommonJS package's import() no named exports.
    const [
      {
        default: { Redis },
      },
      { default: RedisStore },
    ] = await Promise.all([import('ioredis'), import('@fastify/rate-limit/store/RedisStore.js')]);
    const redis = new Redis(url, {
      // Fail fast instead of queueing while disconnected: the caller counts in memory meanwhile.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: 2000,
      retryStrategy: (attempt) => Math.max(RECONNECT_BASE_MS / 2, backoffDelayMs(attempt, RECONNECT_BASE_MS, RECONNECT_MAX_MS)),
      keyPrefix: KEY_PREFIX,
      // Commands of one event-loop turn go out in one write: under load, one syscall for many requests' counts.
      enableAutoPipelining: true,
    }) as RedisWithHit;
    redis.defineCommand('paywatchFailureHit', { numberOfKeys: 1, lua: FAILURE_HIT });
    const limits = new SharedLimits(redis, redactUrl(url), log, RedisStore);
    limits.#error = CONNECTING;
    return limits;
  }

  /** Whether counts currently go to Redis: connected, and no command failed in the last RETRY_AFTER_FAILURE_MS. */
  get usingRedis(): boolean {
    return this.redis !== null && this.redis.status === 'ready' && (this.#error === null || Date.now() >= this.#retryAt);
  }

  /** The state /readyz shows. */
  status(): LimitsStatus {
    if (!this.redis) return { store: 'memory', shared: false, error: null };
    const shared = this.redis.status === 'ready' && this.#error === null;
    const why = this.#authRefused ? 'Redis refused authentication' : 'Redis unavailable';
    return {
      store: 'redis',
      shared,
      error: shared ? null : `${why} (${this.#error ?? this.redis.status}): limits are counted per process until it answers`,
    };
  }

  /**
   * A store class for @fastify/rate-limit's `store` option: Redis through the plugin's own RedisStore, this
   * process's memory through its LocalStore when Redis does not answer.
   * @param namespace keeps listeners' counters apart (`api`, `verify`)
   */
  rateLimitStore(namespace: string): FastifyRateLimitStoreCtor {
    const limits = this;
    const prefix = `rl:${namespace}:`;
    // The plugin's declared store types are narrower than what it passes and calls (its store/*.js); cast once here.
    return class FallbackStore implements RateLimitStoreChild {
      private readonly local: RateLimitStoreChild;
      private readonly shared: RateLimitStoreChild | null;
      constructor(params: RateLimitRouteOptions, parts?: { local: RateLimitStoreChild; shared: RateLimitStoreChild | null }) {
        this.local = parts?.local ?? new LocalStore(params.continueExceeding, params.exponentialBackoff, params.cache);
        this.shared = parts
          ? parts.shared
          : limits.redis && limits.RedisStore
            ? new limits.RedisStore(params.continueExceeding, params.exponentialBackoff, limits.redis, prefix)
            : null;
      }
      incr(key: string, done: (err: Error | null, result: RateLimitCount | null) => void, timeWindow: number, max: number): void {
        if (!this.shared || !limits.usingRedis) {
          this.local.incr(key, done, timeWindow, max);
          return;
        }
        this.shared.incr(
          key,
          (err, result) => {
            if (!err) {
              limits.answered();
              return done(null, result);
            }
            limits.fellBack(err);
            this.local.incr(key, done, timeWindow, max);
          },
          timeWindow,
          max,
        );
      }
      child(routeOptions: RateLimitRouteOptions): RateLimitStoreChild {
        return new FallbackStore(routeOptions, { local: this.local.child(routeOptions), shared: this.shared?.child(routeOptions) ?? null });
      }
    } as unknown as FastifyRateLimitStoreCtor;
  }

  /**
   * Counts one hit of `key` in a fixed window that starts at its first hit, in Redis (shared by every replica).
   * @param windowMs window length, milliseconds
   * @returns the hits in the current window and the milliseconds until it ends; null when Redis is not in use or
   *   did not answer (the caller then counts in memory)
   */
  async hit(namespace: string, key: string, windowMs: number): Promise<{ count: number; ttlMs: number } | null> {
    if (!this.redis || !this.usingRedis) return null;
    try {
      const [count, ttlMs] = await this.redis.paywatchFailureHit(`${namespace}:${key}`, windowMs);
      this.answered();
      return { count, ttlMs };
    } catch (e) {
      this.fellBack(e as Error);
      return null;
    }
  }

  /**
   * Reads `key`'s hits without counting one.
   * @returns the hits and milliseconds left (0 hits when the window is over or never started); null when Redis
   *   is not in use or did not answer
   */
  async peek(namespace: string, key: string): Promise<{ count: number; ttlMs: number } | null> {
    if (!this.redis || !this.usingRedis) return null;
    try {
      const results = await this.redis.multi().get(`${namespace}:${key}`).pttl(`${namespace}:${key}`).exec();
      const count = Number(results?.[0]?.[1] ?? 0);
      const ttlMs = Number(results?.[1]?.[1] ?? -2);
      this.answered();
      return ttlMs > 0 ? { count, ttlMs } : { count: 0, ttlMs: 0 };
    } catch (e) {
      this.fellBack(e as Error);
      return null;
    }
  }

  /** Closes the Redis connection (no-op in memory). */
  async close(): Promise<void> {
    if (!this.redis) return;
    this.redis.removeAllListeners();
    this.redis.on('error', () => undefined);
    await this.redis.quit().catch(() => this.redis!.disconnect());
  }

  private fellBack(e: Error): void {
    const reason = shortMessage(e).slice(0, 200);
    // The server closes the connection after refusing the password: the refusal stays the reason shown.
    if (this.#authRefused && !AUTH_REFUSED.test(reason)) {
      this.#retryAt = Date.now() + RETRY_AFTER_FAILURE_MS;
      return;
    }
    this.#authRefused = AUTH_REFUSED.test(reason);
    if (this.#error === null || this.#error === CONNECTING)
      this.log?.warn(
        { redis: this.source, err: reason },
        'Redis unavailable: per-client limits are counted in this process until it answers',
      );
    this.#error = reason;
    this.#retryAt = Date.now() + RETRY_AFTER_FAILURE_MS;
  }

  private answered(): void {
    this.#authRefused = false;
    if (this.#error === null) return;
    if (this.#error !== CONNECTING) this.log?.info({ redis: this.source }, 'Redis answers again: per-client limits are shared again');
    else this.log?.info({ redis: this.source }, 'per-client limits are shared through Redis');
    this.#error = null;
  }
}
