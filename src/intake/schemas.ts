/**
 * The intake's wire schemas: the operator read filters, defined once for the CLI and the HTTP operator reads (docs/intake.md):
 * `env` is required (test and live never mix in one answer); since (inclusive) and until (exclusive) are
 * UTC Unix seconds on the record's own time (event_time, occurred_at); limit 1..100 (default 30); offset 0..1,000,000.
 */
import { z } from 'zod';
import { LIMIT_DEFAULT, LIMIT_MAX, MAX_UNIX_SECONDS, OFFSET_MAX } from '../domain/filters.js';
import { GIVEN_ONCE, enumParam, integerParam, sinceBeforeUntil } from '../domain/query-params.js';

const window = {
  env: z.enum(['test', 'live'], {
    error: (iss) => (Array.isArray(iss.input) ? GIVEN_ONCE : 'is required: test or live (the two are never mixed in one answer)'),
  }),
  since: integerParam(0, MAX_UNIX_SECONDS, 'of UTC Unix seconds').optional(),
  until: integerParam(0, MAX_UNIX_SECONDS, 'of UTC Unix seconds').optional(),
};

/** Query of the event and outcome reads. */
export const OperatorListQuery = z
  .strictObject({
    ...window,
    limit: integerParam(1, LIMIT_MAX, '').default(LIMIT_DEFAULT),
    offset: integerParam(0, OFFSET_MAX, '').default(0),
  })
  .superRefine(sinceBeforeUntil)
  .transform(({ env, ...f }) => ({ environment: env, ...f }));

/** Query of the cost summaries: period groups by UTC day (default) or month. */
export const OperatorCostsQuery = z
  .strictObject({ ...window, period: enumParam(['day', 'month']).default('day') })
  .superRefine(sinceBeforeUntil)
  .transform(({ env, ...f }) => ({ environment: env, ...f }));
