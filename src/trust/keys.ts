/**
 * API keys of the trust-check service. A key is "pw_" + 43 base64url characters (32 random bytes, made by
 * src/secrets): with that much entropy a single sha256 is the right storage form. The key is shown once when
 * issued and never stored or logged; lookups go by hash and the final comparison is constant-time.
 */
import { constantTimeEqual, newId, newToken, sha256Hex } from '../secrets/index.js';
import type { Store } from '../store/db.js';
import {
  findApiKeyByHash,
  insertApiKey,
  insertCountedApiKey,
  listApiKeys,
  revokeApiKey,
  touchApiKey,
  type TrustApiKeyRow,
} from '../store/trust/index.js';
import { LimitExceeded, Unauthenticated } from '../domain/errors.js';
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
  const issued = newKey(plan, via, label, now);
  await insertApiKey(store, issued.row);
  return issued;
}

/** A new key row (not stored yet) and its secret. */
function newKey(plan: Plan, via: 'api' | 'operator', label: string | null, now: Date): IssuedKey {
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
  return { key, row };
}

/**
 * Issues a free key to `client` through `POST /v1/keys`, at most `perMonth` per client and UTC calendar month,
 * counted in the store with the key (src/store/trust/index.ts insertCountedApiKey), so restarts and replicas
 * count once (LIMITS.freeKeysPerMonth). The store holds the client's sha256, not its address.
 * @param client the client's group (src/limits/client-key.ts: an IPv4 address or an IPv6 /64)
 * @throws LimitExceeded (429, Retry-After until the month ends) when the client has had `perMonth` keys this month
 */
export async function issueFreeKey(store: Store, client: string, perMonth: number, now = new Date()): Promise<IssuedKey> {
  const month = now.toISOString().slice(0, 7);
  const issued = newKey('free', 'api', null, now);
  if (await insertCountedApiKey(store, issued.row, sha256Hex(`client:${client}`), month, perMonth)) return issued;
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  const retryAfter = Math.max(1, Math.ceil((next.getTime() - now.getTime()) / 1000));
  throw new LimitExceeded(
    `free key limit: at most ${perMonth} free keys per client address (IPv6 /64) per UTC calendar month (${month}); resets ${next.toISOString()}`,
    { retryAfterSeconds: retryAfter },
  );
}

/** Why a presented key is not accepted. */
export type KeyRefusal = 'unknown' | 'expired';

/**
 * Finds the active key row for a presented key. A free key whose last use (or issue, when never used) is more than
 * `idleDays` days before `now` has expired (docs/trust-check.md#access-keys-and-metering).
 * @returns the row, or why not: 'unknown' when the key is malformed, unknown or revoked; 'expired' (caller answers 401 either way)
 */
export async function authenticateApiKey(
  store: Store,
  presented: string,
  idleDays: number | null = null,
  now = new Date(),
): Promise<TrustApiKeyRow | KeyRefusal> {
  if (!KEY_SHAPE.test(presented)) return 'unknown';
  const h = hashApiKey(presented);
  const row = await findApiKeyByHash(store, h);
  if (!row) return 'unknown';
  // The index lookup already matched; compare again in constant time so no code path compares secrets byte-wise.
  if (!constantTimeEqual(row.key_hash, h)) return 'unknown';
  if (row.revoked_at !== null) return 'unknown';
  if (idleDays !== null && row.plan === 'free' && isIdle(row, idleDays, now)) return 'expired';
  return row;
}

/** True when a key's last use (or issue) is more than `idleDays` days before `now`. */
export function isIdle(row: Pick<TrustApiKeyRow, 'created_at' | 'last_used_at'>, idleDays: number, now = new Date()): boolean {
  const last = Date.parse(row.last_used_at ?? row.created_at);
  return now.getTime() - last > idleDays * 86_400_000;
}

/** Records a use of key `id` now (at most one store write per key and day). */
export async function noteKeyUse(store: Store, id: string, now = new Date()): Promise<void> {
  await touchApiKey(store, id, now.toISOString());
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
 * @param idleDays free keys unused this many days are refused as expired (null: never)
 * @returns the key row, or null when the request has no Authorization header (the caller may offer per-call payment)
 * @throws LimitExceeded when `client` has too many failures; Unauthenticated for a malformed header or an
 *   unknown, revoked or expired key (counted as a failure)
 */
export async function apiKeyFromHeader(
  store: Store,
  header: string | undefined,
  failures: FailedAuthLimiter,
  client: string,
  idleDays: number | null = null,
): Promise<TrustApiKeyRow | null> {
  const token = bearerToken(header);
  if (token === null) return null;
  await failures.check(client);
  const key = token === 'malformed' ? 'unknown' : await authenticateApiKey(store, token, idleDays);
  if (typeof key === 'object') return key;
  await failures.fail(client);
  if (token === 'malformed') throw new Unauthenticated('Authorization must be "Bearer <API_KEY>"');
  throw new Unauthenticated(
    key === 'expired'
      ? `API key expired: a free key unused for more than ${idleDays} days expires; get a new one with POST /v1/keys`
      : 'invalid or revoked API key',
  );
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
