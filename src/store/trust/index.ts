/**
 * Store functions of the trust-check service: API keys (hashed), per-key monthly metering with
 * reserve-then-commit, the log of completed checks, and the on-chain activity of a payTo address.
 * Works on SQLite and PostgreSQL alike; no SQL elsewhere in src/trust.
 */
import { sql, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Store } from '../store.js';
import type { Database } from '../schema.js';
import type { TrustApiKeyRow, TrustCheckRow, TrustUsageRow } from '../tables/trust.js';
import type { Offer } from '../../domain/intel.js';
import { rowToOffer } from '../intel/rows.js';

export type { TrustApiKeyRow, TrustCheckRow, TrustUsageRow };

/** Inserts a new API key row. @throws on a duplicate id or key hash (constraint error from the driver) */
export async function insertApiKey(store: Store, row: TrustApiKeyRow): Promise<void> {
  await store.db.insertInto('trust_api_keys').values(row).execute();
}

/**
 * Inserts a free key issued to `clientHash` when that client has had fewer than `max` keys in `month`, counting it,
 * in one transaction: a conditional UPDATE (`issued < max`), so parallel requests on every replica sharing the
 * store count once and never overrun `max` (PostgreSQL re-checks the condition on the locked row; SQLite has one
 * writer).
 * @param month "YYYY-MM" (UTC)
 * @returns true when issued; false when the client has had `max` keys this month (nothing inserted)
 */
export async function insertCountedApiKey(
  store: Store,
  row: TrustApiKeyRow,
  clientHash: string,
  month: string,
  max: number,
): Promise<boolean> {
  return store.db.transaction().execute(async (tx) => {
    await tx
      .insertInto('trust_key_issuance')
      .values({ client_hash: clientHash, month, issued: 0 })
      .onConflict((oc) => oc.columns(['client_hash', 'month']).doNothing())
      .execute();
    const r = await tx
      .updateTable('trust_key_issuance')
      .set({ issued: sql`issued + 1` })
      .where('client_hash', '=', clientHash)
      .where('month', '=', month)
      .where('issued', '<', max)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) return false;
    await tx.insertInto('trust_api_keys').values(row).execute();
    return true;
  });
}

/** Free keys counted for `clientHash` in `month` ("YYYY-MM"), 0 when none. */
export async function keysIssuedTo(store: Store, clientHash: string, month: string): Promise<number> {
  const r = await store.db
    .selectFrom('trust_key_issuance')
    .select('issued')
    .where('client_hash', '=', clientHash)
    .where('month', '=', month)
    .executeTakeFirst();
  return Number(r?.issued ?? 0);
}

/**
 * Records that key `id` was used at `at` (ISO 8601), writing only when the stored day is older (one write per key
 * and day at most).
 */
export async function touchApiKey(store: Store, id: string, at: string): Promise<void> {
  await store.db
    .updateTable('trust_api_keys')
    .set({ last_used_at: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at.slice(0, 10))]))
    .execute();
}

/**
 * The key row whose stored hash equals `keyHash`, or null. The caller still compares the hashes in
 * constant time (src/trust/keys.ts); this lookup only finds the candidate by its unique index.
 */
export async function findApiKeyByHash(store: Store, keyHash: string): Promise<TrustApiKeyRow | null> {
  const row = await store.db.selectFrom('trust_api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
  return row ?? null;
}

/** Every key (never the key itself), newest first. */
export async function listApiKeys(store: Store): Promise<TrustApiKeyRow[]> {
  return store.db.selectFrom('trust_api_keys').selectAll().orderBy('created_at', 'desc').orderBy('id').execute();
}

/**
 * Marks a key revoked at `at` (ISO 8601).
 * @returns true when an active key with that id existed; false when unknown or already revoked
 */
export async function revokeApiKey(store: Store, id: string, at: string): Promise<boolean> {
  const r = await store.db
    .updateTable('trust_api_keys')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Reserves one check for `keyId` in `month` ("YYYY-MM", UTC) when `used + reserved < quota` (no limit when
 * `quota` is null). The reservation is a single conditional UPDATE, so parallel requests can never overrun the
 * quota: PostgreSQL re-checks the condition on the locked row, SQLite has one writer.
 * @returns true when reserved; false when the quota is used up
 */
export async function reserveCheck(store: Store, keyId: string, month: string, quota: number | null): Promise<boolean> {
  await store.db
    .insertInto('trust_usage')
    .values({ key_id: keyId, month, used: 0, reserved: 0 })
    .onConflict((oc) => oc.columns(['key_id', 'month']).doNothing())
    .execute();
  let q = store.db.updateTable('trust_usage').set({ reserved: sql`reserved + 1` }).where('key_id', '=', keyId).where('month', '=', month);
  if (quota !== null) q = q.where(sql<boolean>`used + reserved < ${quota}`);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Turns a reservation into one successful, metered check (used + 1, reserved − 1). */
export async function commitCheck(store: Store, keyId: string, month: string): Promise<void> {
  await store.db
    .updateTable('trust_usage')
    .set({ used: sql`used + 1`, reserved: sql`reserved - 1` })
    .where('key_id', '=', keyId)
    .where('month', '=', month)
    .where('reserved', '>', 0)
    .execute();
}

/** Gives a reservation back without metering (the check failed on our side or the input was bad). */
export async function releaseCheck(store: Store, keyId: string, month: string): Promise<void> {
  await store.db
    .updateTable('trust_usage')
    .set({ reserved: sql`reserved - 1` })
    .where('key_id', '=', keyId)
    .where('month', '=', month)
    .where('reserved', '>', 0)
    .execute();
}

/** One line of usage: a key, its plan and its successful checks in a month. */
export interface UsageLine {
  key_id: string;
  prefix: string;
  plan: 'free' | 'paid';
  label: string | null;
  month: string;
  /** Successful (metered) checks. */
  checks: number;
}

/**
 * Usage per key for `month` ("YYYY-MM"), optionally for one key and/or one plan; keys with no usage row in
 * that month are left out (a missing row means no metered check was recorded, which here is exact).
 */
export async function usageForMonth(
  store: Store,
  month: string,
  filter: { keyId?: string; plan?: 'free' | 'paid' } = {},
): Promise<UsageLine[]> {
  let q = store.db
    .selectFrom('trust_usage')
    .innerJoin('trust_api_keys', 'trust_api_keys.id', 'trust_usage.key_id')
    .select([
      'trust_usage.key_id',
      'trust_api_keys.prefix',
      'trust_api_keys.plan',
      'trust_api_keys.label',
      'trust_usage.month',
      'trust_usage.used',
    ])
    .where('trust_usage.month', '=', month);
  if (filter.keyId) q = q.where('trust_usage.key_id', '=', filter.keyId);
  if (filter.plan) q = q.where('trust_api_keys.plan', '=', filter.plan);
  const rows = await q.orderBy('trust_usage.key_id').execute();
  return rows.map((r) => ({ key_id: r.key_id, prefix: r.prefix, plan: r.plan, label: r.label, month: r.month, checks: Number(r.used) }));
}

/** The raw usage counter of one key and month (used and in-flight reservations), or null when none exists. */
export async function usageCounter(store: Store, keyId: string, month: string): Promise<TrustUsageRow | null> {
  const r = await store.db.selectFrom('trust_usage').selectAll().where('key_id', '=', keyId).where('month', '=', month).executeTakeFirst();
  return r ? { ...r, used: Number(r.used), reserved: Number(r.reserved) } : null;
}

/**
 * Sets the counter of a key and month directly (operator corrections and test set-up, e.g. "a key at 990").
 */
export async function setUsage(store: Store, keyId: string, month: string, used: number): Promise<void> {
  await store.db
    .insertInto('trust_usage')
    .values({ key_id: keyId, month, used, reserved: 0 })
    .onConflict((oc) => oc.columns(['key_id', 'month']).doUpdateSet({ used, reserved: 0 }))
    .execute();
}

/** Appends one completed check to the log. */
export async function recordCheck(store: Store, row: TrustCheckRow): Promise<void> {
  await store.db.insertInto('trust_checks').values(row).execute();
}

/** A completed check by its snapshot id, or null. */
export async function getCheck(store: Store, snapshotId: string): Promise<TrustCheckRow | null> {
  return (await store.db.selectFrom('trust_checks').selectAll().where('snapshot_id', '=', snapshotId).executeTakeFirst()) ?? null;
}

/** A service as the intelligence store lists it, with its check counts (read by the trust check). */
export interface ServiceListing {
  service_id: string;
  domain: string;
  url: string;
  first_seen: string;
  last_checked_at: string | null;
  /** Source names that listed it (directories, or the prober's own name). */
  sources: string[];
  checks_total: number;
  /** Checks that found a parseable 402 (outcome payment_required). */
  checks_healthy: number;
}

/** The listing of `serviceId` with its dated check counts, or null when the service is not listed. */
export async function findServiceListing(store: Store, serviceId: string): Promise<ServiceListing | null> {
  const s = await store.db.selectFrom('intel_services').selectAll().where('service_id', '=', serviceId).executeTakeFirst();
  if (!s) return null;
  const counts = await store.db
    .selectFrom('intel_snapshots')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('total'),
      eb.fn.sum<number | string | null>(sql`case when outcome = 'payment_required' then 1 else 0 end`).as('healthy'),
    ])
    .where('service_id', '=', serviceId)
    .executeTakeFirstOrThrow();
  let sources: string[] = [];
  try {
    sources = JSON.parse(s.sources) as string[];
  } catch {
    sources = [];
  }
  return {
    service_id: s.service_id,
    domain: s.domain,
    url: s.url,
    first_seen: s.first_seen,
    last_checked_at: s.last_checked_at,
    sources,
    checks_total: Number(counts.total),
    checks_healthy: Number(counts.healthy ?? 0),
  };
}

/**
 * The offers of the service's latest snapshot that found a parseable 402 strictly before `before` (ISO 8601),
 * falling back to its latest directory-advertised offers; null when neither exists.
 */
export async function lastKnownOffers(
  store: Store,
  serviceId: string,
  before: string,
): Promise<{ snapshot_id: string | null; checked_at: string; offers: Offer[] } | null> {
  const snap = await store.db
    .selectFrom('intel_snapshots')
    .select(['snapshot_id', 'checked_at'])
    .where('service_id', '=', serviceId)
    .where('outcome', '=', 'payment_required')
    .where('checked_at', '<', before)
    .orderBy('checked_at', 'desc')
    .orderBy('snapshot_id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (snap) {
    const rows = await store.db.selectFrom('intel_offers').selectAll().where('snapshot_id', '=', snap.snapshot_id).orderBy('id').execute();
    if (rows.length) return { snapshot_id: snap.snapshot_id, checked_at: snap.checked_at, offers: rows.map(rowToOffer) };
  }
  const last = await store.db
    .selectFrom('intel_offers')
    .select('observed_at')
    .where('service_id', '=', serviceId)
    .where('source_name', 'is not', null)
    .where('observed_at', '<', before)
    .orderBy('observed_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!last) return null;
  const rows = await store.db
    .selectFrom('intel_offers')
    .selectAll()
    .where('service_id', '=', serviceId)
    .where('source_name', 'is not', null)
    .where('observed_at', '=', last.observed_at)
    .orderBy('id')
    .execute();
  return { snapshot_id: null, checked_at: last.observed_at, offers: rows.map(rowToOffer) };
}

/** Observed payments received by an address: count and first/last block time (UTC Unix seconds). */
export interface ReceivedPayments {
  count: number;
  first_time_unix: number | null;
  last_time_unix: number | null;
}

/**
 * Observed inbound payments of `address`: successful observed transactions whose `recipient` is the address, or
 * one of whose TIP-20 legs pays it (table `leg_recipients`). Counts observations, not amounts: the chain store
 * holds observations, not a complete feed, so zero here means "none observed". Two index ranges: observations by
 * `recipient`, and `leg_recipients` (legs paying an address other than the primary recipient, so the two sets are
 * disjoint and their counts add up).
 * @param address 0x address (40 hex digits, any case); anything else yields zero without querying
 * @param listedContracts token contracts a payment must be made in (`observations.asset_contract`, compared
 *   lower-case; a leg's payment is judged by its observation's contract): only payments in listed tokens count,
 *   so a worthless token sent to the address proves nothing. null (the default) = any token; [] = none (zero, no
 *   query).
 * @returns count and first/last block time (UTC Unix seconds, null when the count is zero)
 */
export async function receivedPayments(
  store: Store,
  address: string,
  listedContracts: readonly string[] | null = null,
): Promise<ReceivedPayments> {
  const a = address.toLowerCase();
  const none = { count: 0, first_time_unix: null, last_time_unix: null };
  if (!/^0x[0-9a-f]{40}$/.test(a) || listedContracts?.length === 0) return none;
  const contracts = listedContracts?.map((c) => c.toLowerCase()) ?? null;
  const stats = (eb: ExpressionBuilder<Database, 'observations' | 'leg_recipients'>, table: 'observations' | 'leg_recipients') =>
    [eb.fn.countAll<number | string>().as('n'), eb.fn.min(`${table}.time`).as('first'), eb.fn.max(`${table}.time`).as('last')] as const;
  let direct = store.db
    .selectFrom('observations')
    .select((eb) => stats(eb, 'observations'))
    .where('recipient', '=', a)
    // Spelled out, not bound: the planners then see the partial index observations_recipient_paid applies (chain_0020).
    .where(sql<SqlBool>`execution = 'success'`);
  if (contracts) direct = direct.where('asset_contract', 'in', contracts);
  const legs = contracts
    ? store.db
        .selectFrom('leg_recipients')
        .innerJoin('observations', 'observations.hash', 'leg_recipients.hash')
        .select((eb) => stats(eb, 'leg_recipients'))
        .where('leg_recipients.recipient', '=', a)
        .where('leg_recipients.execution', '=', 'success')
        .where('observations.asset_contract', 'in', contracts)
    : store.db
        .selectFrom('leg_recipients')
        .select((eb) => stats(eb, 'leg_recipients'))
        .where('recipient', '=', a)
        .where('execution', '=', 'success');
  const rows = await Promise.all([direct.executeTakeFirstOrThrow(), legs.executeTakeFirstOrThrow()]);
  const n = rows.reduce((sum, r) => sum + Number(r.n), 0);
  if (!n) return none;
  const times = rows.filter((r) => Number(r.n) > 0);
  return {
    count: n,
    first_time_unix: Math.min(...times.map((r) => Number(r.first))),
    last_time_unix: Math.max(...times.map((r) => Number(r.last))),
  };
}

/** Records the x402 settlement of a per-call check: payer (lower-case) and settlement transaction hash. */
export async function setCheckPayment(store: Store, snapshotId: string, payer: string | null, tx: string): Promise<void> {
  await store.db.updateTable('trust_checks').set({ payer, payment_tx: tx }).where('snapshot_id', '=', snapshotId).execute();
}
