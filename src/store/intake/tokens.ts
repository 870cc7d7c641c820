/**
 * Operator tokens: stored as SHA-256 only (src/secrets/tokens.ts says why that suffices for 256-bit tokens).
 */
import type { Store } from '../store.js';
import { NotFound } from '../../domain/errors.js';

/** An operator token as listed (never the token or its hash). Times are UTC Unix seconds. */
export interface OperatorTokenInfo {
  id: string;
  name: string;
  created_at: number;
  revoked_at: number | null;
}

/** Stores a new operator token by its hash. */
export async function insertOperatorToken(store: Store, t: { id: string; name: string; tokenSha256: string }, now: number): Promise<void> {
  await store.db
    .insertInto('intake_operator_tokens')
    .values({ id: t.id, name: t.name, token_sha256: t.tokenSha256, created_at: now, revoked_at: null })
    .execute();
}

/** Lists operator tokens, oldest first. */
export async function listOperatorTokens(store: Store): Promise<OperatorTokenInfo[]> {
  const rows = await store.db
    .selectFrom('intake_operator_tokens')
    .select(['id', 'name', 'created_at', 'revoked_at'])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    created_at: Number(r.created_at),
    revoked_at: r.revoked_at == null ? null : Number(r.revoked_at),
  }));
}

/** Revokes an operator token. @throws NotFound when unknown or already revoked */
export async function revokeOperatorToken(store: Store, id: string, now: number): Promise<void> {
  const r = await store.db
    .updateTable('intake_operator_tokens')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) throw new NotFound(`no live operator token ${id}`);
}

/** The stored SHA-256 of live operator token `id`, or null when unknown or revoked. */
export async function liveOperatorTokenHash(store: Store, id: string): Promise<string | null> {
  const r = await store.db
    .selectFrom('intake_operator_tokens')
    .select('token_sha256')
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return r?.token_sha256 ?? null;
}
