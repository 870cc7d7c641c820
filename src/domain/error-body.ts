/**
 * The `{error}` body of every error answer, declared once for every face: the HTTP routes of both listeners (each
 * area's response schemas), MCP tool errors, and the OpenAPI documents' `Error` component (src/http/openapi.ts).
 */
import { z } from 'zod';

/** `{error}`: every error answer; routes `.describe()` it per status. */
export const ErrorBody = z
  .object({ error: z.string().describe('What went wrong, naming the parameter and rule when the request is at fault.') })
  .describe('Every error answer.');
