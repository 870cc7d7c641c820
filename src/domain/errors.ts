/**
 * paywatch's errors: one base class (after viem's `BaseError` and ponder's retryable errors) with a short message
 * for the caller, a stable machine `code`, whether retrying may help (`retryable`) and the `cause`; each area
 * subclasses it once per failure it names. Errors that carry an HTTP meaning extend HttpError; the API's error
 * handler turns them into `{error}` bodies with the right status (docs/api-chain.md). Messages are written for
 * the caller: they name the parameter and the rule, never internals.
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

/** An error with an HTTP status for the API's faces. `code` defaults to `http_<status>`; 503 is retryable. */
export class HttpError extends PaywatchError {
  constructor(
    readonly status: number,
    message: string,
    /** Seconds for a Retry-After header, when the caller should retry later. */
    readonly retryAfter?: number,
    code = `http_${status}`,
  ) {
    super(message, { code, retryable: status === 429 || status === 503 });
  }
}

/**
 * The message refusing unknown parameters, one form for every face: `unknown query parameter 'x'` (HTTP, src/api/errors.ts),
 * `unknown arguments 'x', 'y'` (MCP tools, src/store/intel/params.ts). Each name is cut to 40 characters.
 */
export function unknownParameters(kind: string, keys: readonly string[]): string {
  return `unknown ${kind}${keys.length > 1 ? 's' : ''} ${keys.map((k) => `'${k.slice(0, 40)}'`).join(', ')}`;
}

/** 400: the request is invalid; `message` names the parameter and rule. */
export class BadRequest extends HttpError {
  constructor(message: string) {
    super(400, message, undefined, 'bad_request');
  }
}

/** 404: the resource is not recorded here. */
export class NotFound extends HttpError {
  constructor(message: string) {
    super(404, message, undefined, 'not_found');
  }
}

/** 503: a dependency (the store, a collection) cannot answer now; retry after `retryAfter` seconds. */
export class Unavailable extends HttpError {
  constructor(message: string, retryAfter = 5) {
    super(503, message, retryAfter, 'unavailable');
  }
}
