/**
 * Connections and producers (the senders of signed intake) and their HMAC keys. Keys are stored only sealed
 * (AES-256-GCM, src/secrets/aead.ts); this module never sees a key in clear except the one it seals.
 */
import type { Selectable } from 'kysely';
import type { Store } from '../store.js';
import type { IntakeSenderRow } from '../tables/intake.js';
import { NotFound } from '../../domain/errors.js';

export type SenderKind = IntakeSenderRow['kind'];
/** The environment a sender's credentials were issued for. */
export type Environment = 'test' | 'live';

/** A sender as listed to operators (never with key material). Times are UTC Unix seconds. */
export interface SenderInfo {
  id: string;
  kind: SenderKind;
  name: string;
  protocol: string | null;
  environment: Environment;
  created_at: number;
  revoked_at: number | null;
  /** Keys that verify right now (2 during a rotation's grace period, else 1; 0 once revoked). */
  active_keys: number;
}

/** A sealed key ready to be stored: id and sealed text made by the caller (src/intake/keys.ts). */
export interface SealedKey {
  id: string;
  sealed: string;
}

/**
 * Creates a sender with its first key, in one transaction.
 * @param now UTC Unix seconds
 */
export async function insertSender(
  store: Store,
  s: { id: string; kind: SenderKind; name: string; protocol: string | null; environment: Environment },
  key: SealedKey,
  now: number,
): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    await tx
      .insertInto('intake_senders')
      .values({ ...s, created_at: now, revoked_at: null })
      .execute();
    await tx
      .insertInto('intake_keys')
      .values({ id: key.id, sender_id: s.id, sealed: key.sealed, created_at: now, expires_at: null })
      .execute();
  });
}

/** Lists senders of one kind, oldest first. @param now UTC Unix seconds, to count active keys */
export async function listSenders(store: Store, kind: SenderKind, now: number): Promise<SenderInfo[]> {
  const senders = await store.db
    .selectFrom('intake_senders')
    .selectAll()
    .where('kind', '=', kind)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const keys = await store.db
    .selectFrom('intake_keys')
    .innerJoin('intake_senders', 'intake_senders.id', 'intake_keys.sender_id')
    .select(['intake_keys.sender_id', 'intake_keys.expires_at'])
    .where('intake_senders.kind', '=', kind)
    .execute();
  return senders.map((s) => ({
    id: s.id,
    kind: s.kind,
    name: s.name,
    protocol: s.protocol,
    environment: s.environment,
    created_at: Number(s.created_at),
    revoked_at: s.revoked_at == null ? null : Number(s.revoked_at),
    active_keys:
      s.revoked_at != null ? 0 : keys.filter((k) => k.sender_id === s.id && (k.expires_at == null || Number(k.expires_at) > now)).length,
  }));
}

/** Loads a live (not revoked) sender of `kind`. @throws NotFound when unknown, of another kind, or revoked */
async function liveSender(store: Store, kind: SenderKind, id: string): Promise<Selectable<IntakeSenderRow>> {
  const s = await store.db.selectFrom('intake_senders').selectAll().where('id', '=', id).where('kind', '=', kind).executeTakeFirst();
  if (!s) throw new NotFound(`no ${kind} ${id}`);
  if (s.revoked_at != null) throw new NotFound(`${kind} ${id} is revoked`);
  return s;
}

/**
 * Rotates a sender's key: every current key gets `expires_at = now + graceSeconds` (it keeps verifying until
 * then), and `key` becomes current. One transaction.
 * @param r.now UTC Unix seconds
 * @returns the old keys' expiry, UTC Unix seconds
 * @throws NotFound when the sender is unknown or revoked
 */
export async function rotateSenderKey(
  store: Store,
  r: { kind: SenderKind; id: string; key: SealedKey; now: number; graceSeconds: number },
): Promise<number> {
  const { kind, id, key, now } = r;
  const expires = now + r.graceSeconds;
  await store.db.transaction().execute(async (tx) => {
    await liveSender({ ...store, db: tx }, kind, id);
    // A key already inside an earlier grace period keeps its earlier (sooner) expiry.
    await tx.updateTable('intake_keys').set({ expires_at: expires }).where('sender_id', '=', id).where('expires_at', 'is', null).execute();
    await tx
      .insertInto('intake_keys')
      .values({ id: key.id, sender_id: id, sealed: key.sealed, created_at: now, expires_at: null })
      .execute();
  });
  return expires;
}

/** Revokes a sender: all its keys stop verifying at once. @throws NotFound when unknown or already revoked */
export async function revokeSender(store: Store, kind: SenderKind, id: string, now: number): Promise<void> {
  await liveSender(store, kind, id);
  await store.db.updateTable('intake_senders').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

/** What signature verification needs: the sender and its keys that verify at `now`. */
export interface VerificationKeys {
  sender: { id: string; kind: SenderKind; protocol: string | null; environment: Environment };
  keys: SealedKey[];
}

/**
 * The sealed keys that verify for sender `id` of `kind` at `now` (UTC Unix seconds).
 * @returns null when the sender is unknown, of another kind, or revoked
 */
export async function verificationKeys(store: Store, kind: SenderKind, id: string, now: number): Promise<VerificationKeys | null> {
  const rows = await store.db
    .selectFrom('intake_senders')
    .innerJoin('intake_keys', 'intake_keys.sender_id', 'intake_senders.id')
    .select(['intake_senders.protocol', 'intake_senders.environment', 'intake_keys.id as key_id', 'intake_keys.sealed'])
    .where('intake_senders.id', '=', id)
    .where('intake_senders.kind', '=', kind)
    .where('intake_senders.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('intake_keys.expires_at', 'is', null), eb('intake_keys.expires_at', '>', now)]))
    .execute();
  if (rows.length === 0) return null;
  return {
    sender: { id, kind, protocol: rows[0].protocol, environment: rows[0].environment },
    keys: rows.map((r) => ({ id: r.key_id, sealed: r.sealed })),
  };
}
