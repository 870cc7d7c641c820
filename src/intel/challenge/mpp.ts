/**
 * MPP challenges → offers. A 402 carries one or more `WWW-Authenticate: Payment id=…, realm=…, method=…,
 * intent=…, request=<base64url canonical JSON>[, expires, description, digest, opaque]` challenges, possibly
 * merged into one header value with other schemes. Parsing is mppx's own (`Challenge.deserializeList`); when
 * one challenge in a merged value is broken, the others are still read one by one.
 */
import { Challenge } from 'mppx';
import type { Offer } from '../../domain/intel.js';
import { normaliseAddress } from './networks.js';
import { atomicAmount, withDecimal, type ParseResult } from './x402.js';
import { isObject, str } from './guards.js';
import { shortMessage } from '../../domain/errors.js';

/** Start of each `Payment` auth-scheme in a (possibly merged) WWW-Authenticate value. */
const PAYMENT_START = /(?:^|,)\s*Payment\s+(?=[A-Za-z][\w-]*\s*=)/gi;

/**
 * Parses every `Payment` challenge in a WWW-Authenticate value.
 * @param value the header value (several headers joined by ", ")
 * @param ctx resourceUrl: the probed URL, recorded as each offer's resource
 * @returns offers (source 'www-authenticate') and one error per unreadable challenge
 */
export function parseMppChallenges(value: string, ctx: { resourceUrl?: string } = {}): ParseResult {
  let challenges: Challenge.Challenge[];
  const errors: string[] = [];
  try {
    challenges = Challenge.deserializeList(value);
  } catch {
    challenges = [];
    const starts = [...value.matchAll(PAYMENT_START)].map((m) => m.index! + m[0].search(/Payment/i));
    starts.forEach((start, i) => {
      const chunk = value.slice(start, starts[i + 1] ?? value.length).replace(/,\s*$/, '');
      try {
        challenges.push(Challenge.deserialize(chunk));
      } catch (e) {
        errors.push(`mpp www-authenticate challenge ${i}: ${shortMessage(e)}`);
      }
    });
    if (starts.length === 0) errors.push('mpp www-authenticate: no Payment challenge found');
  }
  const offers: Offer[] = [];
  challenges.forEach((c, i) => {
    const offer = toOffer(c, ctx.resourceUrl ?? null);
    if (typeof offer === 'string') errors.push(`mpp challenge ${i}: ${offer}`);
    else offers.push(offer);
  });
  return { offers, errors };
}

/**
 * One challenge → one offer. Network: `eip155:<request.methodDetails.chainId>` when stated, else null.
 * `extra` keeps the realm and methodDetails; the challenge id (an HMAC that changes with every answer) is left out.
 * @returns the offer, or an error string when amount or recipient is missing or not well-formed
 */
function toOffer(c: Challenge.Challenge, resource: string | null): Offer | string {
  const req = isObject(c.request) ? c.request : {};
  const details = isObject(req.methodDetails) ? req.methodDetails : null;
  const amountAtomic = atomicAmount(req.amount);
  if (req.amount === undefined) return 'request.amount missing';
  if (amountAtomic === null) return `request.amount ${JSON.stringify(req.amount)} is not an atomic integer`;
  const chainId = details?.chainId;
  const network = typeof chainId === 'number' && Number.isSafeInteger(chainId) ? `eip155:${chainId}` : null;
  const asset = normaliseAddress(req.currency);
  const expires = str(c.expires);
  return {
    protocol: 'mpp',
    x402_version: null,
    scheme: c.intent,
    method: c.method,
    network,
    asset,
    amount_atomic: amountAtomic,
    ...withDecimal(network, asset, amountAtomic),
    pay_to: normaliseAddress(req.recipient),
    max_timeout_seconds: null,
    expires: expires && !Number.isNaN(Date.parse(expires)) ? new Date(expires).toISOString() : null,
    description: str(c.description) ?? str(req.description),
    resource,
    extra: { realm: c.realm, ...(details ? { methodDetails: details } : {}) },
    source: 'www-authenticate',
  };
}
