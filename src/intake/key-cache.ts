/**
 * A short-lived cache of senders' opened HMAC keys, so a busy sender costs one key lookup per second instead of
 * one per delivery (bench/results/intake.md). A signature that fails against cached keys is retried once against
 * the store, so a key issued by a rotation verifies at once; keys already opened are reused by key id, so that
 * retry never decrypts a key twice. Revocation and the end of a grace period take effect within TTL_MS.
 * Unknown senders are remembered too (a bounded negative cache), so repeating an unknown id costs no store read.
 */
import type { Store } from '../store/db.js';
import { verificationKeys, type SenderKind, type VerificationKeys } from '../store/intake/senders.js';
import type { KeyVault } from './keys.js';

/** How long a lookup is reused, in milliseconds (documented in docs/intake.md). */
export const TTL_MS = 1000;
/**
 * How long an unknown sender id is remembered, in milliseconds. Ids are random and exist only from issuance
 * (src/secrets/tokens.ts newId) and revocation is final, so an id that was unknown stays so; the limit only
 * bounds staleness in unusual cases (a store restored from a backup).
 */
export const UNKNOWN_TTL_MS = 60_000;
/** Entries kept at most in each map; when full the oldest goes (senders are few, this only bounds memory). */
const MAX_ENTRIES = 10_000;

/** A sender with its opened keys. */
export interface OpenedKeys {
  sender: VerificationKeys['sender'];
  keys: Buffer[];
  /** The stored id of each key in `keys`, same order. */
  ids: string[];
}

/** Sets `k` in a map bounded to MAX_ENTRIES, dropping the oldest entry when full (Map keeps insertion order). */
function boundedSet<V>(m: Map<string, V>, k: string, v: V): void {
  m.delete(k);
  if (m.size >= MAX_ENTRIES) m.delete(m.keys().next().value!);
  m.set(k, v);
}

/** Per-process cache of opened keys by sender kind and id. */
export class KeyCache {
  readonly #entries = new Map<string, { at: number; value: OpenedKeys }>();
  /** Unknown, revoked or wrong-kind senders: when they were looked up, in ms. */
  readonly #unknown = new Map<string, number>();
  constructor(
    private readonly store: Store,
    private readonly vault: KeyVault,
  ) {}

  /**
   * The sender's keys that verify at `now` (UTC Unix seconds).
   * @param fresh bypass the cache of keys (after a failed signature check against cached keys)
   * @returns null when the sender is unknown, of another kind, or revoked (remembered for UNKNOWN_TTL_MS)
   */
  async get(kind: SenderKind, id: string, now: number, fresh = false): Promise<OpenedKeys | null> {
    const k = `${kind}:${id}`;
    const t = Date.now();
    const miss = this.#unknown.get(k);
    if (miss !== undefined && t - miss < UNKNOWN_TTL_MS) return null;
    const hit = this.#entries.get(k);
    if (!fresh && hit && t - hit.at < TTL_MS) return hit.value;
    const found = await verificationKeys(this.store, kind, id, now);
    if (!found) {
      this.#entries.delete(k);
      boundedSet(this.#unknown, k, t);
      return null;
    }
    const opened = new Map(hit ? hit.value.ids.map((keyId, i) => [keyId, hit.value.keys[i]]) : []);
    const value = {
      sender: found.sender,
      ids: found.keys.map((key) => key.id),
      keys: found.keys.map((key) => opened.get(key.id) ?? this.vault.open(key)),
    };
    boundedSet(this.#entries, k, { at: Date.now(), value });
    return value;
  }
}
