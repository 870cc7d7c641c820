/**
 * paywatch's errors: one base class (after viem's `BaseError` and ponder's retryable errors) with a short message
 * for the caller, a stable machine `code` from the one catalogue (./error-codes.ts), whether retrying may help
 * (`retryable`, the catalogue's unless the code says it varies) and the `cause`; each area subclasses it once per
 * failure it names. The general kinds below (invalid input, not found, unavailable…) say what went wrong, never how
 * a face shows it: each face maps codes once (HTTP statuses in src/http/errors.ts, CLI exit codes in
 * src/cli/run.ts, MCP tool errors in src/mcp/tools.ts). Messages are written for the caller: they name the
 * parameter and the rule, never internals. `shortMessage` reads any thrown value's message in one line.
 */
import { ERROR_CODES, type ErrorCode, type RetryableOf } from './error-codes.js';

export type { ErrorCode } from './error-codes.js';

/**
 * What every PaywatchError carries besides its message: one member per code, so `retryable` is checked against the
 * catalogue (a code the catalogue calls retryable cannot be thrown as not retryable).
 */
export type PaywatchErrorOptions = {
  [C in ErrorCode]: {
    /** Stable, machine-readable, snake_case: what failed (e.g. `rpc_unavailable`); a key of ERROR_CODES. */
    code: C;
    /** True when the same call may succeed later; default: the catalogue's (false where it varies). */
    retryable?: RetryableOf<C>;
    /** The error this one wraps. */
    cause?: unknown;
  };
}[ErrorCode];

/**
 * The base of every paywatch error. `name` is the subclass's own name.
 * @example throw new PaywatchError('the node did not answer', { code: 'rpc_unavailable' })
 */
export class PaywatchError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  /** Seconds the caller should wait before retrying (HTTP's Retry-After), on the errors that say it. */
  declare readonly retryAfterSeconds?: number;

  constructor(message: string, opts: PaywatchErrorOptions) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = opts.code;
    const listed = ERROR_CODES[opts.code].retryable;
    this.retryable = opts.retryable ?? listed === true;
  }
}

/**
 * The message of anything thrown, in one line: viem's `shortMessage` when it has one (its `message` adds details
 * and a docs link), else `message`, else the value as text. Never throws.
 * @example shortMessage(new Error('socket hang up\n  at …')) // 'socket hang up'
 * @example shortMessage('boom') // 'boom'
 */
export function shortMessage(e: unknown): string {
  let text: string;
  if (e instanceof Error) {
    const short = (e as { shortMessage?: unknown }).shortMessage;
    text = typeof short === 'string' && short ? short : e.message;
  } else if (typeof e === 'object' && e !== null && typeof (e as { message?: unknown }).message === 'string') {
    text = (e as { message: string }).message;
  } else {
    try {
      text = String(e);
    } catch {
      text = Object.prototype.toString.call(e);
    }
  }
  return text.split('\n')[0]!;
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
  declare readonly retryAfterSeconds: number;
  constructor(message: string, opts: Required<RetryAfter>) {
    super(message, { code: 'limit_exceeded' });
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

/** A dependency (a collection not yet run, a busy resource) cannot answer now; retry after `retryAfterSeconds`. */
export class Unavailable extends PaywatchError {
  declare readonly retryAfterSeconds: number;
  constructor(message: string, opts: RetryAfter = {}) {
    super(message, { code: 'unavailable' });
    this.retryAfterSeconds = opts.retryAfterSeconds ?? 5;
  }
}
