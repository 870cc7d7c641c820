/**
 * The standard error responses of a public read route (docs/api-chain.md), so each route documents 400/429/503 the
 * same way in the OpenAPI document.
 */
import { ErrorBody } from '../../domain/error-body.js';

/** Error responses of a read-only public route: 400, 429 (honour Retry-After) and 503 (retry with backoff). */
export const publicErrorResponses = {
  400: ErrorBody.describe('Invalid query: the message names the parameter and the rule.'),
  429: ErrorBody.describe(
    'Rate limited per client IP, or (metrics, export, filtered lists) too many expensive requests in flight from this client at once; honour the Retry-After header (seconds) and the x-ratelimit-* headers.',
  ),
  503: ErrorBody.describe('The store cannot answer now; retry after Retry-After seconds with exponential backoff.'),
} as const;

/**
 * Error responses of the provider and intelligence reads that need a finished collection (provider search and
 * profile, offers, changes, history): the public ones, with the 503 they answer until the first collection run has
 * finished (src/intel/queries.ts assertCollectionAvailable).
 */
export const collectionErrorResponses = {
  ...publicErrorResponses,
  503: ErrorBody.describe(
    'Collection temporarily unavailable: no provider collection run has finished yet (an empty answer would read as "none", and a missing record is not zero activity), or the store cannot answer now; retry after Retry-After seconds with exponential backoff.',
  ),
} as const;
