/** JSON over the safe fetcher, for collectors: one GET, 2xx required, JSON required. */
import { safeFetch } from '../../net/safe-fetch.js';
import type { CollectOptions } from './types.js';
import { PaywatchError } from '../../domain/errors.js';
import type { RawResponse } from '../../domain/intel.js';

/** A directory answered, but not with what a directory answers: a status outside 2xx, not JSON, or not its shape. */
export class SourceAnswerError extends PaywatchError {
  constructor(message: string, retryable = false) {
    super(message, { code: 'source_answer', retryable });
  }
}

export const DEFAULT_SOURCE_TIMEOUT_MS = 15_000;
export const DEFAULT_SOURCE_MAX_BYTES = 8 * 1024 * 1024;

/** A JSON answer: the parsed document and the raw answer it was parsed from (archived as evidence). */
export interface JsonAnswer {
  doc: unknown;
  raw: RawResponse;
  /** ISO 8601 time the answer was received. */
  fetched_at: string;
}

/**
 * GETs `url` and parses JSON.
 * @returns the document and the raw answer (body at most `opts.maxBytes`, default DEFAULT_SOURCE_MAX_BYTES)
 * @throws FetchError subclasses (refused, timeout, too large, unreachable), or SourceAnswerError naming the
 *   status or the JSON problem
 */
export async function fetchJson(url: string, opts: CollectOptions): Promise<JsonAnswer> {
  const r = await safeFetch(url, {
    headers: { accept: 'application/json' },
    timeoutMs: opts.timeoutMs ?? DEFAULT_SOURCE_TIMEOUT_MS,
    maxBytes: opts.maxBytes ?? DEFAULT_SOURCE_MAX_BYTES,
    allowLoopback: opts.allowLoopback,
  });
  const fetched_at = (opts.now ?? (() => new Date()))().toISOString();
  if (r.status < 200 || r.status > 299)
    throw new SourceAnswerError(`HTTP ${r.status} from ${new URL(r.url).host}`, r.status >= 500 || r.status === 429);
  try {
    return { doc: JSON.parse(Buffer.from(r.body).toString('utf8')), raw: r, fetched_at };
  } catch {
    throw new SourceAnswerError(`answer from ${new URL(r.url).host} is not JSON`);
  }
}
