/**
 * Typed failures of the safe fetcher. Callers (the prober, the trust check) map them to outcomes:
 * FetchRefused → "refused", FetchTimeout → "timeout", FetchTooLarge → "too_large", FetchFailed → "unreachable".
 * Messages name the URL's host and the rule, never internals such as stack traces, nor what a host name resolved to.
 */
import { PaywatchError } from '../domain/errors.js';
import type { RawResponse } from '../domain/intel.js';

/** Every reason a safe fetch fails for; the error code is `fetch_<reason>` (src/domain/error-codes.ts says which are retryable). */
export type FetchReason =
  | 'scheme'
  | 'address'
  | 'credentials'
  | 'timeout'
  | 'too_large'
  | 'bad_url'
  | 'dns'
  | 'connect'
  | 'too_many_redirects'
  | 'bad_redirect';

/** Base class: every safe-fetch failure has a machine-readable `reason`. */
export class FetchError extends PaywatchError {
  constructor(
    message: string,
    /** Short machine-readable cause, documented on each subclass (the code is `fetch_<reason>`). */
    readonly reason: FetchReason,
  ) {
    super(message, { code: `fetch_${reason}` });
  }
}

/**
 * The fetcher refused to connect. Reasons: "scheme" (not http/https), "address" (a resolved or literal
 * address is private, loopback, link-local…; the message names a literal but never a resolved address),
 * "credentials" (user:pass in the URL). Nothing was sent.
 */
export class FetchRefused extends FetchError {
  constructor(message: string, reason: 'scheme' | 'address' | 'credentials') {
    super(message, reason);
  }
}

/** The total time budget (all redirects and the body included) ran out. Reason: "timeout". */
export class FetchTimeout extends FetchError {
  constructor(message: string) {
    super(message, 'timeout');
  }
}

/**
 * The body exceeded the size cap. Reason: "too_large". `response` holds what was received, the body cut at
 * the cap (`truncated: true`), so it can still be archived as evidence.
 */
export class FetchTooLarge extends FetchError {
  constructor(
    message: string,
    readonly response: RawResponse,
  ) {
    super(message, 'too_large');
  }
}

/**
 * Any other failure. Reasons: "bad_url", "dns" (name did not resolve), "connect" (refused, reset, TLS…),
 * "too_many_redirects", "bad_redirect" (3xx without a usable Location).
 */
export class FetchFailed extends FetchError {
  constructor(message: string, reason: 'bad_url' | 'dns' | 'connect' | 'too_many_redirects' | 'bad_redirect') {
    super(message, reason);
  }
}
