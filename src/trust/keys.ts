/**
 * API keys of the trust-check service. A key is "pw_" + 43 base64url characters (32 random bytes, made by
 * src/secrets): with that much entropy a single sha256 is the right storage form. The key is shown once when
 * issued and never stored or logged; lookups go by hash and the final comparison is constant-time.
 */
import { constantTimeEqual, newId, newToken, sha256Hex } from '../secrets/index.js';
import type { Store } from '../store/db.js';
import { findApiKeyByHash, insertApiKey, listApiKeys, revokeApiKey, type TrustApiKeyRow } from '../store/trust/index.js';
import { Unauthenticated } from '../domain/errors.js';
import type { FailedAuthLimiter } from '../limits/failed-auth.js';

export type Plan = 'free' | 'paid';

const KEY_SHAPE = /^pw_[A-Za-z0-9_-]{43}$/;

/** sha256 hex of a key string (the stored form). */
export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

/** A newly issued key: the secret (shown once) and the stored row. */
export interface IssuedKey {
  /** The full key; give it to the caller once and forget it. */
  key: string;
  row: TrustApiKeyRow;
}

/**
 * Issues and stores a new key.
 * @param plan 'free' (1,000 checks per UTC month) or 'paid' (metered at 0.01 dollars per successful check)
 * @param via 'api' for POST /v1/keys, 'operator' for the CLI
 * @param now issue time (default: now)
 */
export async function issueApiKey(
  store: Store,
  plan: Plan,
  via: 'api' | 'operator',
  label: string | null = null,
  now = new Date(),
): Promise<IssuedKey> {
  const key = newToken('pw');
  const row: TrustApiKeyRow = {
    id: newId('key'),
    key_hash: hashApiKey(key),
    prefix: key.slice(0, 9),
    plan,
    label,
    issued_via: via,
    created_at: now.toISOString(),
    revoked_at: null,
  };
  await insertApiKey(store, row);
  return { key, row };
}

/**
 * Finds the active key row for a presented key.
 * @returns the row, or null when the key is malformed, unknown or revoked (the caller answers 401 either way)
 */
export async function authenticateApiKey(store: Store, presented: string): Promise<TrustApiKeyRow | null> {
  if (!KEY_SHAPE.test(presented)) return null;
  const h = hashApiKey(presented);
  const row = await findApiKeyByHash(store, h);
  if (!row) return null;
  // The index lookup already matched; compare again in constant time so no code path compares secrets byte-wise.
  if (!constantTimeEqual(row.key_hash, h)) return null;
  return row.revoked_at === null ? row : null;
}

/**
 * Reads `Authorization: Bearer <key>`.
 * @returns the key string, null when the header is absent, or 'malformed' when present but not a Bearer token
 */
export function bearerToken(header: string | undefined): string | null | 'malformed' {
  if (header === undefined || header === '') return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : 'malformed';
}

/**
 * The active key a request presents in `Authorization`, with failed attempts counted per client: a client over
 * its limit of failures is refused before the key is looked up (docs/intake.md, failed authentication).
 * @param header the Authorization header
 * @param client the client key (src/limits/client-key.ts) under which failures count
 * @returns the key row, or null when the request has no Authorization header (the caller may offer per-call payment)
 * @throws LimitExceeded when `client` has too many failures; Unauthenticated for a malformed header or an
 *   unknown or revoked key (counted as a failure)
 */
export async function apiKeyFromHeader(
  store: Store,
  header: string | undefined,
  failures: FailedAuthLimiter,
  client: string,
): Promise<TrustApiKeyRow | null> {
  const token = bearerToken(header);
  if (token === null) return null;
  await failures.check(client);
  const key = token === 'malformed' ? null : await authenticateApiKey(store, token);
  if (key) return key;
  await failures.fail(client);
  throw new Unauthenticated(token === 'malformed' ? 'Authorization must be "Bearer <API_KEY>"' : 'invalid or revoked API key');
}

/** A key as operators list it: everything but its hash (the key itself is never stored). */
export type ApiKeyInfo = Omit<TrustApiKeyRow, 'key_hash'>;

/** Every key, newest first, without hashes (`paywatch operator key list`). */
export async function apiKeys(store: Store): Promise<ApiKeyInfo[]> {
  return (await listApiKeys(store)).map(({ key_hash: _hash, ...info }) => info);
}

/**
 * Revokes the active key `keyId` at once; verify processes stop accepting it within their key cache's lifetime.
 * @returns false when no active key has that id
 */
export async function revokeApiKeyNow(store: Store, keyId: string, now = new Date()): Promise<boolean> {
  return revokeApiKey(store, keyId, now.toISOString());
}
