/**
 * Errors that carry an HTTP meaning. Routes and tools throw these; the API's error handler turns them into
 * `{error}` bodies with the right status (docs/api-chain.md). Messages are written for the caller: they name
 * the parameter and the rule, never internals.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Seconds for a Retry-After header, when the caller should retry later. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'HttpError';
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
    super(400, message);
    this.name = 'BadRequest';
  }
}

/** 404: the resource is not recorded here. */
export class NotFound extends HttpError {
  constructor(message: string) {
    super(404, message);
    this.name = 'NotFound';
  }
}

/** 503: a dependency (the store, a collection) cannot answer now; retry after `retryAfter` seconds. */
export class Unavailable extends HttpError {
  constructor(message: string, retryAfter = 5) {
    super(503, message, retryAfter);
    this.name = 'Unavailable';
  }
}
