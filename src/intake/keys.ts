/**
 * HMAC signing keys of connections and producers: made here, sealed under the master secret before storage,
 * opened only to verify a signature. The key a sender uses is the exact ASCII string printed at issuance
 * (`pwk_` + 43 base64url characters = 256 random bits); HMAC is keyed with those bytes, so
 * `openssl dgst -sha256 -hmac "$KEY"` signs correctly.
 */
import { type MasterSecret, newId, newToken, open, seal } from '../secrets/index.js';
import type { SealedKey } from '../store/intake/senders.js';

/** HKDF purpose label of the key that seals intake HMAC keys. Changing it orphans every stored key. */
const PURPOSE = 'intake-hmac-keys-v1';

/** Seals and opens intake keys with one sub-key of the master secret. */
export class KeyVault {
  readonly #aesKey: Buffer;
  constructor(master: MasterSecret) {
    this.#aesKey = master.deriveKey(PURPOSE);
  }

  /** Makes a new key and its sealed form (associated data: the key id). @returns the clear key, shown once */
  issue(): { key: string; sealed: SealedKey } {
    const key = newToken('pwk');
    const id = newId('key');
    return { key, sealed: { id, sealed: seal(this.#aesKey, Buffer.from(key, 'ascii'), id) } };
  }

  /** Opens a stored key into the HMAC key bytes. @throws Error when the master secret is not the one that sealed it */
  open(k: SealedKey): Buffer {
    return open(this.#aesKey, k.sealed, k.id);
  }
}
