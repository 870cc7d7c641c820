/**
 * Encryption at rest with AES-256-GCM (NIST SP 800-38D): a random 96-bit nonce per message, a 128-bit tag,
 * and associated data that binds a ciphertext to its row, so a sealed value copied onto another row fails to open.
 * Sealed form: "v1." + base64url(nonce ‖ tag ‖ ciphertext).
 */
import { PaywatchError } from '../domain/errors.js';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** A sealed value that cannot be opened: an unknown format, too short, or the wrong master secret. */
export class SealError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'sealed_value' });
  }
}

const PREFIX = 'v1.';

/**
 * Encrypts `plaintext` under a 32-byte key.
 * @param aad associated data (e.g. the row id); must be given again to open
 * @returns the sealed text form
 */
export function seal(key: Buffer, plaintext: Buffer, aad: string): string {
  const nonce = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, nonce);
  c.setAAD(Buffer.from(aad, 'utf8'));
  const ct = Buffer.concat([c.update(plaintext), c.final()]);
  return PREFIX + Buffer.concat([nonce, c.getAuthTag(), ct]).toString('base64url');
}

/**
 * Decrypts a value made by `seal`.
 * @throws Error "cannot decrypt …" when the key, the associated data or the bytes are wrong
 */
export function open(key: Buffer, sealed: string, aad: string): Buffer {
  if (!sealed.startsWith(PREFIX)) throw new SealError('cannot decrypt: unknown sealed format');
  const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
  if (raw.length < 28) throw new SealError('cannot decrypt: sealed value too short');
  try {
    const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    d.setAAD(Buffer.from(aad, 'utf8'));
    d.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([d.update(raw.subarray(28)), d.final()]);
  } catch {
    throw new SealError('cannot decrypt: wrong master secret or altered value');
  }
}
