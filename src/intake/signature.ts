/**
 * The intake signature scheme (docs/intake.md): X-SVC-Signature is the lower-case hex
 * HMAC-SHA256, keyed with the sender's key, of `${X-SVC-Timestamp}.${exact body bytes}`. The timestamp is
 * Unix seconds and must lie within 300 s of the receiver's clock, in either direction.
 */
import { Unauthenticated } from '../domain/errors.js';
import { constantTimeEqual, hmacSha256Hex } from '../secrets/index.js';

/** Maximum distance, in seconds, between X-SVC-Timestamp and now (docs/intake.md: five minutes). */
export const MAX_SKEW_SECONDS = 300;

const TIMESTAMP = /^\d{1,12}$/;
const SIGNATURE = /^[0-9a-f]{64}$/;

/** Every authentication failure of the intake is one of these (401 over HTTP). */
export class Unauthorized extends Unauthenticated {}

/**
 * Computes the signature of a delivery (for senders, tests and the benchmark).
 * @param key the sender's key string as issued
 * @param timestamp Unix seconds
 * @param body the exact body bytes
 * @returns lower-case hex HMAC-SHA256
 */
export function signDelivery(key: string | Buffer, timestamp: number | string, body: string | Buffer): string {
  return hmacSha256Hex(typeof key === 'string' ? Buffer.from(key, 'ascii') : key, `${timestamp}.`, body);
}

/**
 * Checks X-SVC-Timestamp against now.
 * @param header the header value (decimal Unix seconds)
 * @param now UTC Unix seconds
 * @returns the timestamp as a number
 * @throws Unauthorized when missing, not decimal seconds, or more than MAX_SKEW_SECONDS from now
 */
export function checkTimestamp(header: string | undefined, now: number): number {
  if (header === undefined) throw new Unauthorized('missing X-SVC-Timestamp header (Unix seconds)');
  if (!TIMESTAMP.test(header)) throw new Unauthorized('X-SVC-Timestamp must be Unix seconds (decimal digits)');
  const ts = Number(header);
  if (Math.abs(now - ts) > MAX_SKEW_SECONDS) {
    throw new Unauthorized(
      `stale timestamp: X-SVC-Timestamp is ${now - ts} s from the server clock; the limit is ${MAX_SKEW_SECONDS} s either way`,
    );
  }
  return ts;
}

/**
 * True when `signature` is the HMAC of `${timestamp}.${body}` under any of `keys` (several keys verify during
 * a rotation's grace period). Every key is tried, and each comparison is constant-time.
 * @throws Unauthorized when the signature header is missing or not 64 lower-case hex characters
 */
export function signatureMatches(keys: Buffer[], timestamp: string, body: Buffer, signature: string | undefined): boolean {
  if (signature === undefined) throw new Unauthorized('missing X-SVC-Signature header');
  if (!SIGNATURE.test(signature)) throw new Unauthorized('X-SVC-Signature must be 64 lower-case hex characters (HMAC-SHA256)');
  let ok = false;
  for (const k of keys) ok = constantTimeEqual(signDelivery(k, timestamp, body), signature) || ok;
  return ok;
}
