/**
 * Operator actions (issued from the CLI): connections, producers and operator tokens. Every secret is returned
 * once, at issuance. The operator reads (stored events, outcomes, cost summaries) are in ./queries.ts.
 */
import type { Store } from '../store/db.js';
import {
  insertSender,
  listSenders,
  revokeSender,
  rotateSenderKey,
  type Environment,
  type SenderInfo,
  type SenderKind,
} from '../store/intake/senders.js';
import {
  insertOperatorToken,
  liveOperatorTokenHash,
  listOperatorTokens,
  revokeOperatorToken,
  type OperatorTokenInfo,
} from '../store/intake/tokens.js';
import { constantTimeEqual, newId, newToken, sha256Hex } from '../secrets/index.js';
import type { KeyVault } from './keys.js';
import type { Protocol } from './protocols.js';

export type { SenderInfo, OperatorTokenInfo, Environment, SenderKind };

/** Current UTC Unix seconds. */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** A newly issued sender: its id and key (shown once, never stored in clear). */
export interface IssuedSender {
  id: string;
  name: string;
  protocol: string | null;
  /** The only environment whose records this sender may deliver. */
  environment: Environment;
  key: string;
}

/**
 * Creates a connection (with `protocol`) or a producer (protocol null) with a fresh key, bound to one
 * environment: its deliveries naming the other environment are refused (403).
 * @returns the id and the clear key, which no later call returns again
 */
export async function issueSender(
  store: Store,
  vault: KeyVault,
  kind: SenderKind,
  name: string,
  protocol: Protocol | null,
  environment: Environment,
): Promise<IssuedSender> {
  const id = newId(kind === 'connection' ? 'conn' : 'prod');
  const { key, sealed } = vault.issue();
  await insertSender(store, { id, kind, name, protocol, environment }, sealed, nowSeconds());
  return { id, name, protocol, environment, key };
}

/**
 * Rotates a sender's key; the previous key keeps verifying for `graceSeconds`.
 * @returns the new clear key (shown once) and when the old key stops verifying (UTC Unix seconds)
 * @throws NotFound when the sender is unknown or revoked
 */
export async function rotateSender(
  store: Store,
  vault: KeyVault,
  kind: SenderKind,
  id: string,
  graceSeconds: number,
): Promise<{ id: string; key: string; previous_key_expires_at: number }> {
  const { key, sealed } = vault.issue();
  const expires = await rotateSenderKey(store, { kind, id, key: sealed, now: nowSeconds(), graceSeconds });
  return { id, key, previous_key_expires_at: expires };
}

/** Revokes a sender at once (no grace). @throws NotFound when unknown or already revoked */
export async function revokeSenderNow(store: Store, kind: SenderKind, id: string): Promise<void> {
  await revokeSender(store, kind, id, nowSeconds());
}

/** Lists senders of a kind (no key material). */
export async function senders(store: Store, kind: SenderKind): Promise<SenderInfo[]> {
  return listSenders(store, kind, nowSeconds());
}

/** Operator token format: `<id>.<secret>`; the id finds the row, the secret's hash is compared in constant time. */
const TOKEN = /^(op_[0-9a-f]{16})\.(pwop_[A-Za-z0-9_-]{43})$/;

/** Issues an operator token. @returns its id and the token (shown once) */
export async function issueOperatorToken(store: Store, name: string): Promise<{ id: string; name: string; token: string }> {
  const id = newId('op');
  const token = `${id}.${newToken('pwop')}`;
  await insertOperatorToken(store, { id, name, tokenSha256: sha256Hex(token) }, nowSeconds());
  return { id, name, token };
}

/** Lists operator tokens (never the tokens). */
export async function operatorTokens(store: Store): Promise<OperatorTokenInfo[]> {
  return listOperatorTokens(store);
}

/** Revokes an operator token. @throws NotFound when unknown or already revoked */
export async function revokeOperatorTokenNow(store: Store, id: string): Promise<void> {
  await revokeOperatorToken(store, id, nowSeconds());
}

/**
 * True when `token` is a live operator token. Constant-time on the hash; a malformed token costs the same
 * single lookup, so timing tells nothing about which tokens exist.
 */
export async function isOperatorToken(store: Store, token: string): Promise<boolean> {
  const m = TOKEN.exec(token);
  const stored = await liveOperatorTokenHash(store, m ? m[1] : 'op_0000000000000000');
  return constantTimeEqual(sha256Hex(token), stored ?? '0'.repeat(64)) && m !== null && stored !== null;
}
