/**
 * Errors across a thread boundary. Structured clone keeps only an Error's message and stack, so a task thread's
 * failure would reach its host as a bare Error: the HTTP layer could no longer tell a store outage (503) from a bug
 * (500). The body sends `errorToWire(e)` instead; the host rebuilds it with `errorFromWire`, keeping its class
 * (when the host names it), name, message, code, `retryable`, `retryAfterSeconds`, stack and one level of cause.
 */
import { isErrorCode } from '../domain/error-codes.js';
import {
  Conflict,
  Forbidden,
  InvalidInput,
  LimitExceeded,
  NotFound,
  PaywatchError,
  Unauthenticated,
  Unavailable,
} from '../domain/errors.js';

/** An error as plain data (structured-clone safe). */
export interface WireError {
  name: string;
  message: string;
  stack?: string;
  /** A PaywatchError's catalogue code, or a driver's own code (`SQLITE_BUSY`, `ECONNRESET`) on other errors. */
  code?: string;
  /** True for a PaywatchError (rebuilt as one even when the host does not know its class). */
  paywatch: boolean;
  retryable?: boolean;
  retryAfterSeconds?: number;
  cause?: WireError;
}

/** A PaywatchError class the host can rebuild (matched by its `name`). */
export type ErrorClass = abstract new (...args: never[]) => PaywatchError;

/** Classes every host rebuilds: the domain's general kinds. */
const GENERAL_KINDS: readonly ErrorClass[] = [InvalidInput, Unauthenticated, Forbidden, NotFound, Conflict, LimitExceeded, Unavailable];

/** Built-in error classes rebuilt as themselves (a TypeError stays a TypeError). */
const BUILT_IN: Readonly<Record<string, ErrorConstructor>> = { TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError };

/**
 * `e` as plain data for postMessage (the body's side of a task thread).
 * @param depth causes kept below this error (default 1)
 */
export function errorToWire(e: unknown, depth = 1): WireError {
  if (!(e instanceof Error)) return { name: 'Error', message: String(e), paywatch: false };
  const w: WireError = { name: e.name, message: e.message, stack: e.stack, paywatch: e instanceof PaywatchError };
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string') w.code = code;
  if (e instanceof PaywatchError) {
    w.retryable = e.retryable;
    if (typeof e.retryAfterSeconds === 'number') w.retryAfterSeconds = e.retryAfterSeconds;
  }
  if (depth > 0 && e.cause !== undefined) w.cause = errorToWire(e.cause, depth - 1);
  return w;
}

/**
 * The error `w` describes, rebuilt on this side: an instance of the class in `classes` (or the general kinds) of
 * the same name, else a PaywatchError (name and code kept) for a paywatch error, else the built-in class or Error.
 * The class's constructor is not run (its arguments are not on the wire): members are set as the original had them.
 * @example errorFromWire(errorToWire(new StoreUnavailable(cause)), [StoreUnavailable]) instanceof StoreUnavailable // true
 */
export function errorFromWire(w: WireError, classes: readonly ErrorClass[] = []): Error {
  let e: Error;
  if (w.paywatch && isErrorCode(w.code)) {
    const cls = [...classes, ...GENERAL_KINDS].find((c) => c.name === w.name);
    e = Object.create((cls ?? PaywatchError).prototype) as PaywatchError;
    Object.assign(e, { code: w.code, retryable: w.retryable ?? false });
    if (w.retryAfterSeconds !== undefined) Object.assign(e, { retryAfterSeconds: w.retryAfterSeconds });
  } else {
    e = new (BUILT_IN[w.name] ?? Error)();
    if (w.code !== undefined) Object.assign(e, { code: w.code });
  }
  Object.defineProperty(e, 'message', { value: w.message, writable: true, configurable: true, enumerable: false });
  Object.defineProperty(e, 'name', { value: w.name, writable: true, configurable: true, enumerable: false });
  if (w.stack !== undefined) Object.defineProperty(e, 'stack', { value: w.stack, writable: true, configurable: true, enumerable: false });
  if (w.cause !== undefined)
    Object.defineProperty(e, 'cause', { value: errorFromWire(w.cause, classes), writable: true, configurable: true, enumerable: false });
  return e;
}
