/**
 * High-entropy bearer secrets (operator tokens, API keys, HMAC keys), their storage hash and
 * constant-time comparison. A token carries 256 random bits, so a plain SHA-256 is enough to store it:
 * slow password hashes exist to resist guessing low-entropy passwords, which 2^256 already rules out,
 * and a fast hash keeps every authenticated request cheap.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Makes a new secret token: `prefix` + "_" + 43 base64url characters (32 random bytes).
 * The prefix names what it is (e.g. "pwop" for operator tokens), which helps secret scanners and people.
 */
export function newToken(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/** Random identifier: `prefix` + "_" + 16 hex characters (64 bits; ids are not secrets). */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(8).toString('hex')}`;
}

/** Lower-case hex SHA-256 of a string (UTF-8) or bytes. */
export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Lower-case hex HMAC-SHA256 of `data` under `key`. */
export function hmacSha256Hex(key: Buffer, ...data: (string | Buffer)[]): string {
  const h = createHmac('sha256', key);
  for (const d of data) h.update(d);
  return h.digest('hex');
}

/**
 * Compares two strings in constant time for equal lengths (crypto.timingSafeEqual); a length mismatch
 * returns false at once, which leaks only the length of a fixed-format value.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
