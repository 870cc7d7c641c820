/**
 * The master secret (PAYWATCH_SECRET or a key file) and the sub-keys derived from it.
 * One 32-byte secret, written as 64 hex characters (`openssl rand -hex 32`); sub-keys are derived with
 * HKDF-SHA256 (RFC 5869) under a purpose label, so a key for one use never serves another.
 */
import { PaywatchError, shortMessage } from '../domain/errors.js';
import { hkdfSync } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The master secret is missing, unreadable or not 64 hex characters. */
export class MasterSecretError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'master_secret' });
  }
}

const HEX32 = /^[0-9a-fA-F]{64}$/;

/** A loaded master secret. Its bytes never leave this module except through `deriveKey`. */
export class MasterSecret {
  readonly #bytes: Buffer;
  private constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }

  /**
   * Parses the text form: 64 hex characters (32 bytes), surrounding whitespace ignored.
   * @throws Error naming the rule (never echoing the value)
   */
  static parse(text: string, source = 'PAYWATCH_SECRET'): MasterSecret {
    const t = text.trim();
    if (!HEX32.test(t))
      throw new MasterSecretError(`${source} must be 64 hex characters (32 random bytes; create one with: openssl rand -hex 32)`);
    return new MasterSecret(Buffer.from(t, 'hex'));
  }

  /**
   * Reads the secret from a file holding the 64-hex-character text form.
   * @throws Error when the file cannot be read or does not hold a valid secret
   */
  static fromFile(path: string): MasterSecret {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new MasterSecretError(`cannot read the secret file ${path}: ${(e as NodeJS.ErrnoException).code ?? shortMessage(e)}`);
    }
    return MasterSecret.parse(text, `the secret file ${path}`);
  }

  /** Derives a 32-byte sub-key for `purpose` (HKDF-SHA256, empty salt, info = purpose). */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.#bytes, Buffer.alloc(0), `paywatch:${purpose}`, 32));
  }

  /** Never print the secret by accident. */
  toJSON(): string {
    return '[secret]';
  }
}

/**
 * The master secret from configuration: `secret` (PAYWATCH_SECRET) wins over `secretFile` (PAYWATCH_SECRET_FILE).
 * @returns null when neither is set
 * @throws Error when the configured value is invalid or the file unreadable
 */
export function loadMasterSecret(cfg: { secret?: string | null; secretFile?: string | null }): MasterSecret | null {
  if (cfg.secret) return MasterSecret.parse(cfg.secret);
  if (cfg.secretFile) return MasterSecret.fromFile(cfg.secretFile);
  return null;
}
