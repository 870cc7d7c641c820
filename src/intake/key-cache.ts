/**
 * A short-lived cache of senders' opened HMAC keys, so a busy sender costs one key lookup and one decryption
 * per second instead of one per delivery (bench/results/intake.md). Only successful lookups are cached; a
 * signature that fails against cached keys is retried once against the store, so a key issued by a rotation
 * verifies at once. Revocation and the end of a grace period take effect within TTL_MS.
 */
import type { Store } from '../store/db.js';
import { verificationKeys, type SenderKind, type VerificationKeys } from '../store/intake/senders.js';
import type { KeyVault } from './keys.js';

/** How long a lookup is reused, in milliseconds (documented in docs/intake.md). */
export const TTL_MS = 1000;
/** Entries kept at most; the cache is simply emptied when full (senders are few, this only bounds memory). */
const MAX_ENTRIES = 10_000;

/** A sender with its opened keys. */
export interface OpenedKeys {
  sender: VerificationKeys['sender'];
  keys: Buffer[];
}

/** Per-process cache of opened keys by sender kind and id. */
export class KeyCache {
  readonly #entries = new Map<string, { at: number; value: OpenedKeys }>();
  constructor(private readonly store: Store, private readonly vault: KeyVault) {}

  /**
   * The sender's keys that verify at `now` (UTC Unix seconds).
   * @param fresh bypass the cache (after a failed signature check against cached keys)
   * @returns null when the sender is unknown, of another kind, or revoked (never cached)
   */
  async get(kind: SenderKind, id: string, now: number, fresh = false): Promise<OpenedKeys | null> {
    const k = `${kind}:${id}`;
    const hit = this.#entries.get(k);
    if (!fresh && hit && Date.now() - hit.at < TTL_MS) return hit.value;
    const found = await verificationKeys(this.store, kind, id, now);
    if (!found) {
      this.#entries.delete(k);
      return null;
    }
    const value = { sender: found.sender, keys: found.keys.map((key) => this.vault.open(key)) };
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(k, { at: Date.now(), value });
    return value;
  }
}
