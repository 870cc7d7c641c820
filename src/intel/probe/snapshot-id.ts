/**
 * Snapshot ids: UUID version 7 (RFC 9562 §5.7): 48 bits of Unix milliseconds, then random bits, so ids sort
 * by time as text. Node 20's crypto has only v4 and the installed `uuid` (8.x) predates v7, hence these lines.
 */
import { randomBytes } from 'node:crypto';

/**
 * A new UUID v7 string ("018f…-…"), lower-case.
 * @param nowMs Unix time in milliseconds (default Date.now())
 */
export function uuidv7(nowMs: number = Date.now()): string {
  const b = randomBytes(16);
  const ms = BigInt(nowMs);
  for (let i = 0; i < 6; i++) b[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  b[6] = (b[6] & 0x0f) | 0x70; // version 7
  b[8] = (b[8] & 0x3f) | 0x80; // RFC 9562 variant
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
