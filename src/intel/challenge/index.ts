/**
 * parseChallenge: every payment challenge form in one HTTP answer → offers.
 *
 * Order and precedence (docs/intelligence.md, "Parsing challenges"):
 * 1. `PAYMENT-REQUIRED` header (x402 v2; a v1 payload inside it is accepted): base64 or base64url JSON.
 * 2. The JSON body, when it is an x402 payload (`accepts` array): read only when the header is absent or
 *    unreadable, so a v2 server that also echoes its requirements in the body does not count them twice.
 * 3. Every `WWW-Authenticate: Payment` challenge (MPP); these add to the x402 offers (mppx can serve both).
 * Nothing is thrown: problems are returned as `errors`. A 402 with no readable offer yields at least one error.
 */
import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { Offer } from '../../domain/intel.js';
import { parseMppChallenges } from './mpp.js';
import { parseX402Payload } from './x402.js';

export { parseX402Payload, atomicAmount } from './x402.js';
export { parseMppChallenges } from './mpp.js';
export { toCaip2, knownDecimals, EXTRA_NETWORK_NAMES } from './networks.js';
export { parseOpenApiPaymentInfo, parseWellKnownX402 } from './discovery-docs.js';

/** An HTTP answer as the parser needs it: lower- or mixed-case header names, body as bytes or text. */
export interface ChallengeInput {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array | string;
}

/** Decodes the PAYMENT-REQUIRED header: the x402 library's decoder, then a base64url fallback. @throws Error */
function decodeHeader(value: string): unknown {
  try {
    return decodePaymentRequiredHeader(value.trim());
  } catch {
    const text = Buffer.from(value.trim(), 'base64url').toString('utf8');
    return JSON.parse(text);
  }
}

function header(headers: Record<string, string>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

function bodyJson(body: Uint8Array | string): unknown {
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  const t = text.trim();
  if (!t.startsWith('{')) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

/**
 * Parses all payment challenges of one answer.
 * @param r status, headers, body (bytes or text)
 * @param ctx resourceUrl: the URL that was requested; an offer naming no resource gets it
 * @returns offers in reading order (header, body, WWW-Authenticate) and errors (strings naming the field)
 */
export function parseChallenge(r: ChallengeInput, ctx: { resourceUrl?: string } = {}): { offers: Offer[]; errors: string[] } {
  const offers: Offer[] = [];
  const errors: string[] = [];
  const pr = header(r.headers, 'payment-required');
  let headerRead = false;
  if (pr !== undefined) {
    let payload: unknown;
    try {
      payload = decodeHeader(pr);
    } catch {
      errors.push('x402 header: PAYMENT-REQUIRED is not base64 JSON');
    }
    if (payload !== undefined) {
      const res = parseX402Payload(payload, 'header', ctx, 2);
      offers.push(...res.offers);
      errors.push(...res.errors);
      headerRead = res.offers.length > 0;
    }
  }
  if (!headerRead) {
    const json = bodyJson(r.body);
    const looksX402 = typeof json === 'object' && json !== null && ('accepts' in json || 'x402Version' in json);
    if (looksX402) {
      const res = parseX402Payload(json, 'body', ctx, 1);
      offers.push(...res.offers);
      errors.push(...res.errors);
    }
  }
  const wa = header(r.headers, 'www-authenticate');
  if (wa !== undefined && /(^|[\s,])Payment\s/i.test(wa)) {
    const res = parseMppChallenges(wa, ctx);
    offers.push(...res.offers);
    errors.push(...res.errors);
  }
  if (r.status === 402 && offers.length === 0 && errors.length === 0) {
    errors.push('402 without a payment challenge (no PAYMENT-REQUIRED header, no x402 body, no WWW-Authenticate: Payment)');
  }
  return { offers, errors };
}
