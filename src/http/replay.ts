/**
 * Remembered answers replayed before routing. The public listener answers a repeated GET of a remembered chain
 * answer (a rankings or list page, a transaction detail, a service's payments) from the bytes and headers Fastify
 * sent for it last time, without the router, validation, hooks or the route: sent through every hook, a
 * remembered answer cost two to three times the bare route (bench/README.md, "Per-request cost of remembered
 * answers"), and polling clients ask for the same URLs over and over between two writes.
 *
 * A request is replayed only when all of these hold, else it goes to Fastify unchanged:
 * - it is a GET of a URL recorded at the store version the store holds now (StoreCache.freshChainVersion, the
 *   same rule that serves remembered answers, src/store/cache.ts), at most REPLAY_TTL_MS ago (so an answer whose
 *   window defaults to "now" is at most that old, well inside the Cache-Control max-age it is sent with);
 * - it has no If-None-Match and no Origin (304s and CORS are decided on the normal path), and its Accept-Encoding
 *   picks an encoding recorded for the URL;
 * - the per-client rate limit allows it: counted by @fastify/rate-limit's own checker (`createRateLimit`), so in
 *   the same store under the same key. A count over the limit goes to Fastify, which counts it again and answers
 *   429: past the limit a second count changes nothing but the count.
 * What a replay keeps of the normal path: X-Request-Id (a sane client id echoed, else a new one), the rate-limit
 * headers, the access log line and the request metrics. Every other header is the one recorded.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { httpReplays } from '../ops/metrics.js';
import { type AccessLog, noteAnswered } from './access-log.js';
import type { StoreCache } from '../store/cache.js';
import { type Encoding, negotiateEncoding } from './compression.js';
import { clientAddressOf, type TrustProxy } from './trust-proxy.js';
import { requestId } from './request-id.js';

/** Milliseconds a recorded answer is replayed at most after the route last sent it. */
export const REPLAY_TTL_MS = 1000;
/** Bytes of recorded bodies kept at most (least recently replayed URLs go first). */
export const REPLAY_BYTES = 16 * 1024 * 1024;
/** URLs longer than this many characters are never recorded (a key per distinct long query would only churn). */
export const REPLAY_URL_MAX = 2048;

/** Headers made per request, never recorded. */
const PER_REQUEST = new Set(['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']);

type Variant = 'identity' | Encoding;

/** What a route's reply carries from its start to its end when its answer may be recorded. */
interface Mark {
  cache: StoreCache;
  /** The store version read before the answer was computed. */
  version: string;
  /** Set by sendRenderedJson (./reply.ts): the encoding sent and its bytes. */
  variant: Variant | null;
  body: Buffer | null;
  /** Whether the answer is large enough to be compressed at all (./compression.ts COMPRESS_THRESHOLD). */
  compressible: boolean;
}

interface Recorded {
  /** Flat [name, value, …] of the recorded headers, per-request ones left out. */
  head: string[];
  body: Buffer;
}

interface Entry {
  cache: StoreCache;
  version: string;
  at: number;
  route: string;
  compressible: boolean;
  variants: Partial<Record<Variant, Recorded>>;
}

const kMark = Symbol('paywatch.replayMark');
type Marked = FastifyReply & { [kMark]?: Mark | null };

/**
 * Marks `reply`'s answer as recordable for replay, at the store version `cache` holds now: call it before computing
 * a remembered chain answer, then send it with sendRenderedJson. Does nothing when the version is not known
 * without a read (the next request will record it).
 */
export function markReplayable(reply: FastifyReply, cache: StoreCache): void {
  const version = cache.freshChainVersion();
  if (version !== null) (reply as Marked)[kMark] = { cache, version, variant: null, body: null, compressible: false };
}

/** Called by sendRenderedJson with what it sends: the encoding and its bytes (nothing happens on an unmarked reply). */
export function noteSent(reply: FastifyReply, variant: Variant, body: Buffer, compressible: boolean): void {
  const mark = (reply as Marked)[kMark];
  if (mark) {
    mark.variant = variant;
    mark.body = body;
    mark.compressible = compressible;
  }
}

/** The rate-limit checker @fastify/rate-limit decorates its instance with (createRateLimit(), the listener's limit). */
type LimitCheck = (req: FastifyRequest) => Promise<{
  isAllowed: boolean;
  isExceeded?: boolean;
  max?: number;
  remaining?: number;
  ttlInSeconds?: number;
}>;

/** The request shape the limit's key generator reads (src/limits/register.ts: the client address). */
interface LimitRequest {
  ip: string;
  routeOptions: { config: Record<string, never> };
}

/**
 * One listener's recorded answers and the handler that replays them. Made before the listener (baseFastify takes it
 * to front its server), attached to the app once its rate limit is registered; until then every request goes to
 * Fastify.
 * @example
 * const replay = new AnswerReplay();
 * const app = baseFastify(config, bodyLimit, logger, 'api', replay);
 * await registerRequestLimit(app, …);
 * replay.attach(app, config.trustProxy);
 */
export class AnswerReplay {
  readonly #entries = new LRUCache<string, Entry>({ maxSize: REPLAY_BYTES, sizeCalculation: (e) => entryBytes(e) });
  /** What attach() took from the app: its limit checker, how it reads a client's address, its logger. */
  #app: { check: LimitCheck; clientIp: (req: IncomingMessage) => string; log: AccessLog } | null = null;
  #closing = false;
  /** Accept-Encoding header → variant, for the few distinct headers clients send (bounded). */
  readonly #negotiated = new Map<string, Variant>();

  /**
   * Starts replaying on `app`: records marked answers as they are sent, and counts replays in `app`'s request
   * limit. Call after the rate limit is registered.
   * @param trustProxy the listener's `trustProxy` option as given to Fastify (the client address is read the same way)
   * @throws Error when `app` has no request limit registered
   */
  attach(app: FastifyInstance, trustProxy: TrustProxy | undefined): void {
    const create = (app as unknown as { createRateLimit?: () => LimitCheck }).createRateLimit;
    if (typeof create !== 'function') throw new Error('AnswerReplay.attach: register the request limit first');
    this.#app = { check: create.call(app), clientIp: clientAddressOf(trustProxy), log: app.log as AccessLog };
    app.decorateReply(kMark, null);
    app.addHook('onResponse', (req, reply, done) => {
      const mark = (reply as Marked)[kMark];
      if (mark && reply.statusCode === 200) this.#record(req, reply, mark);
      done();
    });
    app.addHook('preClose', (done) => {
      this.#closing = true;
      done();
    });
  }

  /**
   * The listener's request handler in front of Fastify's: replays `req` when it can (see the module comment),
   * else hands it to `next` (Fastify's handler).
   */
  handle(req: IncomingMessage, res: ServerResponse, next: (req: IncomingMessage, res: ServerResponse) => void): void {
    const found = this.#find(req);
    const on = this.#app;
    if (found === null || on === null) {
      next(req, res);
      return;
    }
    const { entry, recorded } = found;
    const started = performance.now();
    const limitRequest: LimitRequest = { ip: on.clientIp(req), routeOptions: { config: {} } };
    on.check(limitRequest as unknown as FastifyRequest).then(
      (limit) => {
        if (limit.isExceeded) {
          next(req, res);
          return;
        }
        const id = requestId(req);
        const head = limit.isAllowed
          ? ['x-request-id', id, ...recorded.head]
          : [
              'x-request-id',
              id,
              'x-ratelimit-limit',
              String(limit.max),
              'x-ratelimit-remaining',
              String(limit.remaining),
              'x-ratelimit-reset',
              String(limit.ttlInSeconds),
              ...recorded.head,
            ];
        res.writeHead(200, head);
        res.end(recorded.body);
        httpReplays.inc();
        noteAnswered(on.log, 'api', 'GET', entry.route, 200, performance.now() - started, { request_id: id });
      },
      // A failing count (the rate limit's store) is the normal path's to answer.
      () => next(req, res),
    );
  }

  /** The recording to replay for `req` and its entry, or null when the request must go to Fastify. */
  #find(req: IncomingMessage): { entry: Entry; recorded: Recorded } | null {
    if (req.method !== 'GET' || this.#closing) return null;
    const entry = this.#entries.get(req.url ?? '');
    if (entry === undefined) return null;
    const now = Date.now();
    if (now - entry.at >= REPLAY_TTL_MS || routeDecides(req.headers) || entry.cache.freshChainVersion(now) !== entry.version) return null;
    const recorded = entry.variants[entry.compressible ? this.#variantOf(req.headers['accept-encoding']) : 'identity'];
    return recorded === undefined ? null : { entry, recorded };
  }

  #variantOf(acceptEncoding: string | undefined): Variant {
    if (acceptEncoding === undefined) return 'identity';
    let v = this.#negotiated.get(acceptEncoding);
    if (v === undefined) {
      v = negotiateEncoding(acceptEncoding) ?? 'identity';
      if (this.#negotiated.size >= 64) this.#negotiated.clear();
      this.#negotiated.set(acceptEncoding, v);
    }
    return v;
  }

  #record(req: FastifyRequest, reply: FastifyReply, mark: Mark): void {
    const url = req.url;
    if (req.method !== 'GET' || url.length > REPLAY_URL_MAX || routeDecides(req.headers)) return;
    // The version must not have moved while the answer was computed (else it may belong to the older one).
    if (mark.cache.freshChainVersion() !== mark.version || mark.variant === null || mark.body === null) return;
    const head: string[] = [];
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value === undefined || PER_REQUEST.has(name)) continue;
      for (const v of Array.isArray(value) ? value : [value]) head.push(name, String(v));
    }
    let entry = this.#entries.peek(url);
    if (entry === undefined || entry.cache !== mark.cache || entry.version !== mark.version)
      entry = {
        cache: mark.cache,
        version: mark.version,
        at: 0,
        route: req.routeOptions.url ?? 'unmatched',
        compressible: mark.compressible,
        variants: {},
      };
    // Replayed for REPLAY_TTL_MS from the route's latest answer, which is what the route would answer now.
    entry.at = Date.now();
    entry.variants[mark.variant] = { head, body: mark.body };
    // Set again so its size counts the new variant.
    this.#entries.set(url, entry);
  }
}

/** Requests whose answer the route must decide: conditional (304) and cross-origin (CORS) ones. */
function routeDecides(headers: IncomingMessage['headers']): boolean {
  return headers['if-none-match'] !== undefined || headers.origin !== undefined;
}

/** Estimated bytes of an entry: its bodies and headers. */
function entryBytes(e: Entry): number {
  let n = 256;
  for (const v of Object.values(e.variants)) if (v) n += v.body.length + 64 * v.head.length;
  return n;
}
