/**
 * When is a request refused? Every limit paywatch enforces on requests and connections, in one table: what it
 * bounds, per what (scope), in which unit and window, the setting that sets it (else its fixed value), what is
 * answered beyond it and why it exists. The code that enforces each reads its numbers from here (or from the
 * setting named here), so the table cannot drift from what is enforced: the per-client request limits through
 * ./register.ts, failed authentications through ./failed-auth.ts, work in flight through ./heavy-budget.ts and
 * the reader pool, sizes through the listeners (src/http/fastify.ts, src/http/errors.ts). Input rules (a bad
 * parameter is 400) live in each area's schemas instead. docs/architecture.md#limits shows this table (held equal by
 * test/limits/table.test.ts; `npm run docs:tables` rewrites it).
 *
 * Scopes: `client` is an address (IPv4, or an IPv6 /64: ./client-key.ts) and, with `--redis`, counts once across
 * every replica (./shared.ts); `sender` an intake connection or producer; `key` a trust-check API key; `request` one
 * request; `connection` one TCP connection; `process` this process (budgets of work in flight stay per process:
 * docs/decisions.md).
 */
import type { SettingKey } from '../settings/index.js';

/** Per what a limit counts. */
export type LimitScope = 'client' | 'sender' | 'key' | 'request' | 'connection' | 'process';

/** What is answered beyond a limit. */
export interface LimitAnswer {
  /** The HTTP status, or null when the connection is closed instead. */
  readonly status: 400 | 408 | 413 | 414 | 429 | 503 | null;
  /**
   * Retry-After: `window` (seconds until the client's window ends), a fixed number of seconds, or null (none sent).
   */
  readonly retryAfter: 'window' | number | null;
}

/** One limit. */
export interface Limit {
  /** What is bounded, and where. */
  readonly what: string;
  readonly scope: LimitScope;
  /** The bound's unit and window, as the refusal names it (`requests per minute per client`). */
  readonly unit: string;
  /** The window of a counted limit, milliseconds (null: a bound on what is in flight or on a size). */
  readonly windowMs: number | null;
  /** The setting that sets the bound (src/settings/index.ts), or null when it is `value`. */
  readonly setting: SettingKey | null;
  /** The bound when no setting sets it. */
  readonly value: number | null;
  readonly answer: LimitAnswer;
  /** Why it exists, one line. */
  readonly why: string;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** Every limit, by name. */
export const LIMITS = {
  publicRequests: {
    what: 'requests to the public listener (every route but `/healthz` and `/readyz`)',
    scope: 'client',
    unit: 'requests per minute per client',
    windowMs: MINUTE,
    setting: 'rateLimitPerMinute',
    value: null,
    answer: { status: 429, retryAfter: 'window' },
    why: 'polling within the contract (at most every five seconds) fits many times over; one client cannot crowd out the rest',
  },
  verifyRequests: {
    what: 'requests to the trust-check listener (every route but `/healthz` and `/readyz`)',
    scope: 'client',
    unit: 'requests per minute per client',
    windowMs: MINUTE,
    setting: 'rateLimitPerMinute',
    value: null,
    answer: { status: 429, retryAfter: 'window' },
    why: 'the same share per client as the public listener',
  },
  keyIssuance: {
    what: 'free API keys issued (`POST /v1/keys`)',
    scope: 'client',
    unit: 'keys per hour per client',
    windowMs: HOUR,
    setting: 'verifyKeysPerHour',
    value: null,
    answer: { status: 429, retryAfter: 'window' },
    why: 'each free key is a month of free checks: unbounded issuance would be unbounded free checks',
  },
  freeKeysPerMonth: {
    what: 'free API keys issued (`POST /v1/keys`), counted in the store (so across restarts and every replica)',
    scope: 'client',
    unit: 'keys per UTC calendar month per client',
    windowMs: null,
    setting: 'verifyFreeKeysPerMonth',
    value: null,
    answer: { status: 429, retryAfter: 'window' },
    why: 'bounds the free checks one address (IPv6 /64) can obtain in a month to this many times the free plan',
  },
  intakeDeliveries: {
    what: 'signed deliveries (`POST /api/protocol-events`, `POST /api/intelligence/outcomes`)',
    scope: 'sender',
    unit: 'deliveries per minute per sender',
    windowMs: MINUTE,
    setting: 'intakeRateLimitPerMinute',
    value: null,
    answer: { status: 429, retryAfter: 'window' },
    why: "counted after the signature verified, so nobody can spend another sender's allowance",
  },
  failedAuthentications: {
    what: 'failed authentications: intake signatures, operator tokens and trust-check API keys, each counted apart',
    scope: 'client',
    unit: 'failures per minute per client',
    windowMs: MINUTE,
    setting: 'authFailureLimitPerMinute',
    value: null,
    answer: { status: 429, retryAfter: 'window' },
    why: 'refused before the next guess costs a store read, a hash comparison or a decryption; a client that authenticates is never slowed',
  },
  freeChecks: {
    what: 'successful trust checks of a free key',
    scope: 'key',
    unit: 'checks per UTC calendar month per key',
    windowMs: null,
    setting: null,
    value: 1000,
    answer: { status: 429, retryAfter: 'window' },
    why: 'the free plan of the contract; failed checks are never counted',
  },
  heavyInFlight: {
    what: 'metrics, series, export and filtered-list requests in flight (public listener)',
    scope: 'client',
    unit: 'requests at once per client',
    windowMs: null,
    setting: 'heavyPerClient',
    value: null,
    answer: { status: 429, retryAfter: 1 },
    why: 'the request rate says nothing of work in flight: a client inside it could keep every reader busy (the manifest publishes it)',
  },
  exportsAtOnce: {
    what: 'CSV exports running (`GET /api/export`)',
    scope: 'process',
    unit: 'exports at once',
    windowMs: null,
    setting: null,
    value: 4,
    answer: { status: 503, retryAfter: 1 },
    why: 'each export holds a step of rows and a reader for as long as its client reads',
  },
  readerQueue: {
    what: 'heavy chain reads waiting or running on the reader threads (SQLite)',
    scope: 'process',
    unit: 'reads at once',
    windowMs: null,
    setting: null,
    value: 32,
    answer: { status: 503, retryAfter: 1 },
    why: 'a bounded queue: past it a read is refused at once rather than waiting without end',
  },
  checksInFlight: {
    what: 'trust checks running (`POST /v1/check`)',
    scope: 'process',
    unit: 'checks at once',
    windowMs: null,
    setting: 'verifyMaxInFlight',
    value: null,
    answer: { status: 503, retryAfter: 1 },
    why: 'each check holds a fetch of up to `PAYWATCH_VERIFY_MAX_BYTES` for up to `PAYWATCH_VERIFY_TIMEOUT_MS`; never metered',
  },
  mcpBatch: {
    what: "JSON-RPC messages in one POST to an MCP endpoint (`/api/mcp`, `/v1/mcp`); each counts as one request against the client's request limit",
    scope: 'request',
    unit: 'messages per batch',
    windowMs: null,
    setting: null,
    value: 100,
    answer: { status: 400, retryAfter: null },
    why: "the MCP SDK's own batch cap; a batch must not multiply a client's share of requests or tool calls",
  },
  checksPerClient: {
    what: 'trust checks running (`POST /v1/check`) per client address and, apart, per API key; at most the global count − 1',
    scope: 'client',
    unit: 'checks at once per client',
    windowMs: null,
    setting: 'verifyMaxInFlightPerClient',
    value: null,
    answer: { status: 429, retryAfter: 1 },
    why: 'one client (one key, or one address with many keys) holding slow checks could otherwise take every global slot',
  },
  connections: {
    what: 'open connections on each listener',
    scope: 'process',
    unit: 'connections at once',
    windowMs: null,
    setting: 'maxConnections',
    value: null,
    answer: { status: null, retryAfter: null },
    why: 'bounds sockets and file descriptors; Node closes further connections as soon as they are accepted',
  },
  requestTime: {
    what: 'time to send a whole request, head and body (not the answer)',
    scope: 'request',
    unit: 'seconds per request',
    windowMs: null,
    setting: 'requestTimeoutSeconds',
    value: null,
    answer: { status: 408, retryAfter: null },
    why: 'a client sending slowly holds a connection and its parser',
  },
  headersTime: {
    what: "time to send a request's head",
    scope: 'request',
    unit: 'seconds per request',
    windowMs: null,
    setting: 'headersTimeoutSeconds',
    value: null,
    answer: { status: 408, retryAfter: null },
    why: 'the same, for the head alone (slowloris)',
  },
  idleConnection: {
    what: 'a connection with no bytes moving either way',
    scope: 'connection',
    unit: 'seconds',
    windowMs: null,
    setting: 'connectionIdleSeconds',
    value: null,
    answer: { status: null, retryAfter: null },
    why: 'a silent connection is closed; longer than the slowest answer',
  },
  keepAlive: {
    what: 'an idle kept-alive connection waiting for its next request',
    scope: 'connection',
    unit: 'seconds',
    windowMs: null,
    setting: 'keepAliveSeconds',
    value: null,
    answer: { status: null, retryAfter: null },
    why: 'idle sockets count against the connection cap',
  },
  exportIdle: {
    what: 'a CSV export whose client takes no bytes',
    scope: 'connection',
    unit: 'seconds',
    windowMs: null,
    setting: 'exportIdleSeconds',
    value: null,
    answer: { status: null, retryAfter: null },
    why: 'a client that stops reading would hold its export slot; the connection is reset mid-CSV',
  },
  publicBody: {
    what: 'request body on the public listener (the signed intake)',
    scope: 'request',
    unit: 'bytes per request',
    windowMs: null,
    setting: null,
    value: 256 * 1024,
    answer: { status: 413, retryAfter: null },
    why: 'an intake envelope fits many times over; the body is read into memory to verify its signature',
  },
  verifyBody: {
    what: 'request body on the trust-check listener',
    scope: 'request',
    unit: 'bytes per request',
    windowMs: null,
    setting: null,
    value: 16 * 1024,
    answer: { status: 413, retryAfter: null },
    why: 'a URL of 2,048 characters fits many times over',
  },
  urlLength: {
    what: 'the URL of a request',
    scope: 'request',
    unit: 'characters',
    windowMs: null,
    setting: null,
    value: 8192,
    answer: { status: 414, retryAfter: null },
    why: 'RFC 9110 section 4.1 asks servers to take at least 8,000',
  },
  pathParameter: {
    what: 'one path parameter (the longest valid one is a provider domain, 260)',
    scope: 'request',
    unit: 'characters',
    windowMs: null,
    setting: null,
    value: 300,
    answer: { status: 414, retryAfter: null },
    why: 'the router never matches a longer one',
  },
} as const satisfies Record<string, Limit>;

/** A limit's name. */
export type LimitName = keyof typeof LIMITS;

/** The limits counted by @fastify/rate-limit (./register.ts). */
export type RateLimitName = 'publicRequests' | 'verifyRequests' | 'keyIssuance' | 'intakeDeliveries';
