/**
 * Response schemas shared by every area's routes: the Error body and the standard error responses
 * (docs/api-chain.md), so each route documents 400/404/429/503 the same way in the OpenAPI document.
 */
import { z } from 'zod';

/** `{error}`: every error answer (docs/api-chain.md). */
export const ErrorBody = z
  .object({ error: z.string().describe('What went wrong, naming the parameter and rule when the request is at fault.') })
  .describe('Error');

/** Error responses of a read-only public route: 400, 429 (honour Retry-After) and 503 (retry with backoff). */
export const publicErrorResponses = {
  400: ErrorBody.describe('Invalid query: the message names the parameter and the rule.'),
  429: ErrorBody.describe('Rate limited per client IP, or (metrics, export, filtered lists) too many expensive requests in flight from this client at once; honour the Retry-After header (seconds) and the x-ratelimit-* headers.'),
  503: ErrorBody.describe('The store cannot answer now; retry after Retry-After seconds with exponential backoff.'),
} as const;
