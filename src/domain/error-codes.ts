/**
 * Every code a paywatch error carries (`PaywatchError.code`, ./errors.ts), declared once with whether the caller is
 * at fault, whether the same call may succeed later and what the code means. The faces map codes from here and
 * nowhere else: HTTP statuses (`HTTP_STATUS_OF_CODE`, src/http/errors.ts), CLI exit codes (`EXIT_CODE_OF_CODE`,
 * src/cli/run.ts) and MCP tool errors (src/mcp/tools.ts) are typed `Record<ErrorCode, …>`, so a code added here
 * without a status or an exit code fails the typecheck. docs/architecture.md#error-codes shows this table (held
 * equal to it by test/domain/error-codes.test.ts; `npm run docs:tables` rewrites it).
 * Model: fastify's one error list (fastify/fastify lib/errors.js, documented at https://fastify.dev/docs/latest/Reference/Errors/).
 */

/** What the catalogue says of one code. */
export interface ErrorCodeInfo {
  /** True when the request, or the setup the caller gave (a flag, a file, a URL), is at fault: fixing it is the caller's part. */
  readonly callerFault: boolean;
  /**
   * Whether the same call may succeed later: true, false, or `varies` when each error says (its `retryable`, e.g. a
   * JSON-RPC error is retried unless the node does not support the method).
   */
  readonly retryable: boolean | 'varies';
  /** What the code means, one line. */
  readonly meaning: string;
}

/** The catalogue: code → caller's fault, retryable, meaning. Codes are stable, snake_case, never reused. */
export const ERROR_CODES = {
  // The general kinds (./errors.ts): what went wrong, never how a face shows it.
  invalid_input: { callerFault: true, retryable: false, meaning: 'the input breaks a rule; the message names the parameter and the rule' },
  unauthenticated: {
    callerFault: true,
    retryable: false,
    meaning: 'the caller did not prove who it is: a missing, malformed, unknown or revoked key, or a bad signature',
  },
  forbidden: { callerFault: true, retryable: false, meaning: 'the caller is known but may not do this' },
  not_found: { callerFault: true, retryable: false, meaning: 'what was asked for is not recorded here (not proof that it does not exist)' },
  conflict: { callerFault: true, retryable: false, meaning: 'the request contradicts what is recorded (a reused id with another body)' },
  limit_exceeded: {
    callerFault: true,
    retryable: true,
    meaning: 'the caller used up an allowance (a rate, a budget, a monthly quota); retry after Retry-After',
  },
  unavailable: {
    callerFault: false,
    retryable: true,
    meaning:
      'a dependency or a busy resource cannot answer now (work in flight at its cap, a collection not yet run); retry after Retry-After',
  },
  store_unavailable: {
    callerFault: false,
    retryable: true,
    meaning: 'the database cannot be reached or is busy (src/store/outage.ts); retry with backoff',
  },
  // Refusals only HTTP has words for (src/http/errors.ts HttpError).
  body_too_large: { callerFault: true, retryable: false, meaning: "the request body is over the listener's cap" },
  url_too_long: { callerFault: true, retryable: false, meaning: 'the URL is over the longest one answered' },
  unsupported_media_type: { callerFault: true, retryable: false, meaning: 'the body is not of a content type the route reads' },
  // Settings and files the person starting paywatch gives.
  config: { callerFault: true, retryable: false, meaning: 'a setting (flag or environment variable) cannot be used; the message names it' },
  sources_config: { callerFault: true, retryable: false, meaning: 'a `--sources` value or file is not a list of directories' },
  token_list: { callerFault: true, retryable: false, meaning: 'a token list cannot be read or is not a valid token list' },
  master_secret: { callerFault: true, retryable: false, meaning: 'the master secret is missing, unreadable or not 64 hex characters' },
  read_replica: { callerFault: true, retryable: false, meaning: '`--db-read` cannot be used with this `--db`' },
  wrong_chain: { callerFault: true, retryable: false, meaning: 'the node answers for another chain than Tempo mainnet (4217)' },
  cli: {
    callerFault: false,
    retryable: false,
    meaning: 'a command cannot go on; the message is one line for the terminal and the error carries its exit code',
  },
  // The chain node and the collector.
  consensus_decode: {
    callerFault: false,
    retryable: false,
    meaning:
      'a consensus certificate, DKG outcome or group key from the node does not decode exactly (finality is then unknown or failed, never verified)',
  },
  token_metadata_timeout: {
    callerFault: false,
    retryable: true,
    meaning: 'the node did not answer a token metadata call within its time budget; the run is retried',
  },
  rpc_unavailable: { callerFault: false, retryable: true, meaning: 'the node could not be reached, or kept failing after every retry' },
  rpc_http: { callerFault: false, retryable: true, meaning: 'the node answered a JSON-RPC request with an HTTP error status' },
  rpc_call: {
    callerFault: false,
    retryable: 'varies',
    meaning: 'the node answered a JSON-RPC error; retried unless the node does not support the method',
  },
  inconsistent_answer: { callerFault: false, retryable: true, meaning: "the node's answers for one block stayed inconsistent" },
  collector_failed: {
    callerFault: false,
    retryable: false,
    meaning: 'the collector cannot go on (a one-off run, or a store that does not fit the source)',
  },
  collector_locked: { callerFault: false, retryable: false, meaning: "another process's collector holds this store" },
  block_over_budget: {
    callerFault: false,
    retryable: false,
    meaning: "a block's serialized observations exceed their byte budget; after repeated failures the block is quarantined",
  },
  integrity_mismatch: {
    callerFault: false,
    retryable: false,
    meaning:
      'stored blocks do not re-verify (`paywatch integrity verify`): a broken parent-hash chain, or a stored certificate that no longer verifies',
  },
  collector_lock_lost: { callerFault: false, retryable: false, meaning: 'the collector lost its lock and another collector holds it now' },
  header_field: { callerFault: false, retryable: false, meaning: 'a block header member the node served is present but malformed' },
  malformed_hex: { callerFault: false, retryable: false, meaning: 'a value the node served is not the hex it must be' },
  unsupported_encoding: {
    callerFault: false,
    retryable: false,
    meaning: 'a transaction or receipt cannot be re-encoded for the integrity check',
  },
  event_mismatch: { callerFault: false, retryable: false, meaning: 'a log does not fit the event it was decoded as' },
  anvil: { callerFault: false, retryable: false, meaning: 'the local anvil node cannot be found or started' },
  // Threads (src/threads): the thread died; the work it held may be retried.
  decode_worker_failed: { callerFault: false, retryable: true, meaning: 'a decode worker thread died or failed to start' },
  reader_thread_failed: { callerFault: false, retryable: true, meaning: 'a store reader thread died while holding a read' },
  writer_thread_failed: {
    callerFault: false,
    retryable: true,
    meaning: 'the store writer thread died; nothing of its write was committed',
  },
  // The store.
  migration: {
    callerFault: false,
    retryable: false,
    meaning: 'migrating the store failed, or another process held its migration lock too long',
  },
  sealed_value: {
    callerFault: false,
    retryable: false,
    meaning: 'a sealed value cannot be opened (unknown format, too short, or the wrong master secret)',
  },
  invalid_decimal: { callerFault: false, retryable: false, meaning: 'a stored amount is not an exact decimal string' },
  internal: { callerFault: false, retryable: false, meaning: 'a broken invariant inside paywatch (a bug)' },
  // Provider intelligence and the safe fetcher (src/net/errors.ts: fetch_<reason>).
  source_answer: {
    callerFault: false,
    retryable: 'varies',
    meaning: 'a directory answered, but not with what a directory answers (retried when its status says it may pass)',
  },
  evidence_format: { callerFault: false, retryable: false, meaning: 'an archived evidence document has an unknown version' },
  fetch_scheme: { callerFault: true, retryable: false, meaning: 'the fetcher refused a URL that is not http or https' },
  fetch_address: {
    callerFault: true,
    retryable: false,
    meaning: 'the fetcher refused a private, loopback or link-local address (literal or resolved)',
  },
  fetch_credentials: { callerFault: true, retryable: false, meaning: 'the fetcher refused a URL with user:password in it' },
  fetch_bad_url: { callerFault: true, retryable: false, meaning: 'the URL cannot be parsed' },
  fetch_dns: { callerFault: false, retryable: true, meaning: 'the host name did not resolve' },
  fetch_connect: { callerFault: false, retryable: true, meaning: 'the connection was refused, reset or failed TLS' },
  fetch_timeout: { callerFault: false, retryable: true, meaning: "the fetch's time budget (all redirects and the body) ran out" },
  fetch_too_large: { callerFault: false, retryable: false, meaning: "the body is over the fetcher's size cap" },
  fetch_too_many_redirects: { callerFault: false, retryable: false, meaning: 'the fetch followed the most redirects allowed' },
  fetch_bad_redirect: { callerFault: false, retryable: false, meaning: 'a redirect without a usable Location' },
  // The trust check, the documents, the demo.
  payment_route_missing: { callerFault: false, retryable: false, meaning: 'the x402 payment route is not configured (a bug)' },
  openapi_incomplete: {
    callerFault: false,
    retryable: false,
    meaning: 'a route has no operationId or uses an undeclared tag (a bug, found at start)',
  },
  demo: { callerFault: false, retryable: false, meaning: 'a demo step failed or was asked something impossible' },
} as const satisfies Record<string, ErrorCodeInfo>;

/** A code of the catalogue. */
export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * What `retryable` may be for code `C`: the catalogue's value, or any boolean when it `varies` (distributes over a
 * union of codes).
 */
export type RetryableOf<C extends ErrorCode> = C extends ErrorCode
  ? (typeof ERROR_CODES)[C]['retryable'] extends 'varies'
    ? boolean
    : (typeof ERROR_CODES)[C]['retryable']
  : never;

/** Every code, in catalogue order. */
export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as ErrorCode[];

/** True when `code` is a code of the catalogue (for values from outside: a thread's message, a log). */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);
}
