/**
 * Each face maps error codes once: HTTP statuses (HTTP_STATUS_OF_CODE, answered by the real error handler),
 * CLI exit codes (EXIT_CODE_OF_CODE). An error whose status is null is internal: 500 with a short message over
 * HTTP; exit code 1 unless the table says otherwise.
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  Conflict,
  Forbidden,
  InvalidInput,
  LimitExceeded,
  NotFound,
  PaywatchError,
  Unauthenticated,
  Unavailable,
} from '../../src/domain/errors.js';
import { HttpError, HTTP_STATUS_OF_CODE, installErrorHandling } from '../../src/http/errors.js';
import { CliError, exitCodeOf } from '../../src/cli/run.js';
import { ConfigError } from '../../src/config.js';

const CASES: Array<[PaywatchError, number, string | undefined]> = [
  [new InvalidInput("invalid query parameter 'x'"), 400, undefined],
  [new Unauthenticated('invalid or revoked API key'), 401, undefined],
  [new Forbidden('environment mismatch'), 403, undefined],
  [new NotFound('provider x is not listed'), 404, undefined],
  [new Conflict('event_id reused'), 409, undefined],
  [new LimitExceeded('rate limited', { retryAfterSeconds: 7 }), 429, '7'],
  [new Unavailable('not yet collected'), 503, '5'],
  [new Unavailable('busy', { retryAfterSeconds: 1 }), 503, '1'],
  [new HttpError('unsupported_media_type', 'unsupported media type'), 415, undefined],
];

describe('one HTTP status table', () => {
  it.each(CASES)('%s answers its status, Retry-After and {error}', async (err, status, retryAfter) => {
    const app = Fastify();
    installErrorHandling(app);
    app.get('/x', async () => {
      throw err;
    });
    const res = await app.inject('/x');
    expect(res.statusCode).toBe(status);
    expect(res.headers['retry-after']).toBe(retryAfter);
    expect(res.json()).toEqual({ error: err.message });
    await app.close();
  });

  it('answers an error with a code outside the table as an internal 500 without its message', async () => {
    const app = Fastify({ logger: false });
    installErrorHandling(app);
    app.get('/x', async () => {
      throw new PaywatchError('secret internals', { code: 'writer_thread_failed' });
    });
    const res = await app.inject('/x');
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: 'internal error' });
    await app.close();
  });

  it('answers the caller-facing kinds of src/domain/errors.ts, and every other code as internal', () => {
    const answered = Object.entries(HTTP_STATUS_OF_CODE)
      .filter(([, status]) => status !== null)
      .map(([code]) => code)
      .sort();
    expect(answered).toEqual([
      'body_too_large',
      'conflict',
      'forbidden',
      'invalid_input',
      'limit_exceeded',
      'not_found',
      'store_unavailable',
      'unauthenticated',
      'unavailable',
      'unsupported_media_type',
      'url_too_long',
    ]);
  });
});

describe('one CLI exit-code table', () => {
  it.each([
    [new ConfigError('bad --db'), 2],
    [new InvalidInput('bad value'), 2],
    [new CliError('stopped', 3), 3],
    [new NotFound('no such key'), 1],
    [new Error('boom'), 1],
  ])('%s exits %i', (err, code) => {
    expect(exitCodeOf(err)).toBe(code);
  });
});
