/**
 * paywatch's errors: one base class (after viem's `BaseError` and ponder's retryable errors) with a short message
 * for the caller, a stable machine `code`, whether retrying may help (`retryable`) and the `cause`; each area
 * subclasses it once per failure it names. The general kinds below (invalid input, not found, unavailable…) say
 * what went wrong, never how a face shows it: each face maps codes once (HTTP statuses in src/http/errors.ts, CLI
 * exit codes in src/cli/run.ts, MCP `isError` in src/mcp/tools.ts). Messages are written for the caller: they
 * name the parameter and the rule, never internals.
 */

/** What every PaywatchError carries besides its message. */
export interface PaywatchErrorOptions {
  /** Stable, machine-readable, snake_case: what failed (e.g. `rpc_unavailable`). */
  code: string;
  /** True when the same call may succeed later (a node or store that is down, a timeout); default false. */
  retryable?: boolean;
  /** The error this one wraps. */
  cause?: unknown;
}

/**
 * The base of every paywatch error. `name` is the subclass's own name.
 * @example throw new PaywatchError('the node did not answer', { code: 'rpc_unavailable', retryable: true })
 */
export class PaywatchError extends Error {
  readonly code: string;
  readonly retryable: boolean;

  constructor(message: string, opts: PaywatchErrorOptions) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = opts.code;
    this.retryable = opts.retryable ?? false;
  }
}

/**
 * The message refusing unknown parameters, one form for every face: `unknown query parameter 'x'` (HTTP, src/http/errors.ts),
 * `unknown arguments 'x', 'y'` (MCP tools, src/intel/schemas.ts). Each name is cut to 40 characters.
 */
export function unknownParameters(kind: string, keys: readonly string[]): string {
  return `unknown ${kind}${keys.length > 1 ? 's' : ''} ${keys.map((k) => `'${k.slice(0, 40)}'`).join(', ')}`;
}

/** Options of errors a caller may retry after a pause. */
interface RetryAfter {
  /** Seconds the caller should wait before retrying (HTTP's Retry-After). */
  retryAfterSeconds?: number;
}

/** The input breaks a rule (`message` names the parameter and the rule). */
export class InvalidInput extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'invalid_input' });
  }
}

/** The caller did not prove who it is (a missing, malformed, unknown or revoked key, or a bad signature). */
export class Unauthenticated extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'unauthenticated' });
  }
}

/** The caller is known but may not do this (say, a test key writing live records). */
export class Forbidden extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'forbidden' });
  }
}

/** What was asked for is not recorded here. */
export class NotFound extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'not_found' });
  }
}

/** The request contradicts what is already recorded (say, a reused id with another body). */
export class Conflict extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'conflict' });
  }
}

/** The caller used up an allowance (a rate limit, a monthly quota); retry after `retryAfterSeconds`. */
export class LimitExceeded extends PaywatchError {
  readonly retryAfterSeconds: number;
  constructor(message: string, opts: Required<RetryAfter>) {
    super(message, { code: 'limit_exceeded', retryable: true });
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

/** A dependency (a collection not yet run, a busy resource) cannot answer now; retry after `retryAfterSeconds`. */
export class Unavailable extends PaywatchError {
  readonly retryAfterSeconds: number;
  constructor(message: string, opts: RetryAfter = {}) {
    super(message, { code: 'unavailable', retryable: true });
    this.retryAfterSeconds = opts.retryAfterSeconds ?? 5;
  }
}
