/**
 * Stored intake records (protocol events, outcome records): idempotent insert and operator reads.
 * Idempotency rests on the primary key (sender, event_id): the insert is `ON CONFLICT DO NOTHING … RETURNING`,
 * so of any number of concurrent first deliveries exactly one row is written, and the others read it back.
 */
import type { Store } from '../db.js';
import type { Kysely } from 'kysely';
import type { NewOutcome, NewProtocolEvent, OutcomeRecordRow, ProtocolEventRecord } from '../tables/intake.js';

/** What a delivery's receipt is made of; identical for the first delivery and every retry. */
export interface StoredReceipt {
  /** ISO 8601 date-time of the first delivery. */
  received_at: string;
  /** Lower-case hex SHA-256 of the first delivery's exact body bytes. */
  body_sha256: string;
}

/** The outcome of an idempotent insert. */
export type InsertResult =
  | { status: 'created'; receipt: StoredReceipt }
  /** A byte-identical retry: nothing new stored. */
  | { status: 'duplicate'; receipt: StoredReceipt }
  /** Same event_id, different body: nothing changed; `receipt` is the stored one. */
  | { status: 'conflict'; receipt: StoredReceipt };

type RecordTable = 'intake_protocol_events' | 'intake_outcomes';
type RecordRow<T extends RecordTable> = T extends 'intake_protocol_events' ? NewProtocolEvent : NewOutcome;
const SENDER_COLUMN = { intake_protocol_events: 'connection_id', intake_outcomes: 'producer_id' } as const;

/**
 * Inserts `row` unless (sender, event_id) exists; otherwise compares body hashes.
 * Race-free: the unique key decides, and the read-back follows the winner's commit.
 */
export async function insertOrRead<T extends RecordTable>(store: Store, table: T, row: RecordRow<T>): Promise<InsertResult> {
  const senderCol: 'connection_id' | 'producer_id' = SENDER_COLUMN[table];
  const sender = (row as unknown as Record<string, string>)[senderCol];
  // Kysely cannot type a table chosen at run time; the row type above is what keeps this honest.
  const db = store.db as unknown as Kysely<Record<RecordTable, { connection_id: string; producer_id: string; event_id: string; received_at: string; body_sha256: string }>>;
  const inserted = await db
    .insertInto(table as RecordTable)
    .values(row as never)
    .onConflict((oc) => oc.columns([senderCol, 'event_id']).doNothing())
    .returning(['received_at', 'body_sha256'])
    .executeTakeFirst();
  if (inserted) return { status: 'created', receipt: { received_at: inserted.received_at, body_sha256: inserted.body_sha256 } };
  const existing = await db
    .selectFrom(table as RecordTable)
    .select(['received_at', 'body_sha256'])
    .where(senderCol, '=', sender)
    .where('event_id', '=', row.event_id)
    .executeTakeFirstOrThrow();
  const receipt = { received_at: existing.received_at, body_sha256: existing.body_sha256 };
  return { status: existing.body_sha256 === row.body_sha256 ? 'duplicate' : 'conflict', receipt };
}

/** Filters shared by every operator read. Times are UTC Unix seconds: since inclusive, until exclusive. */
export interface RecordFilter {
  environment: 'test' | 'live';
  since?: number;
  until?: number;
  limit: number;
  offset: number;
}

/** The rows of one environment whose own time (event_time / occurred_at) lies in [since, until). */
function inWindow<T extends RecordTable>(store: Store, table: T, f: Omit<RecordFilter, 'limit' | 'offset'>) {
  const time = table === 'intake_protocol_events' ? 'event_time' : 'occurred_at';
  // Both tables share environment and a bigint time column; Kysely cannot type the choice made at run time.
  let q = (store.db as unknown as Kysely<Record<RecordTable, { environment: string; t: number }>>).selectFrom(table as RecordTable).where('environment', '=', f.environment);
  if (f.since !== undefined) q = q.where(time as 't', '>=', f.since);
  if (f.until !== undefined) q = q.where(time as 't', '<', f.until);
  return { q, time: time as 't' };
}

/** One page of a record table, newest own time first (then sender, event_id), with the total count. */
async function page<T extends RecordTable>(store: Store, table: T, f: RecordFilter): Promise<{ total: number; rows: (T extends 'intake_protocol_events' ? ProtocolEventRecord : OutcomeRecordRow)[] }> {
  const { q, time } = inWindow(store, table, f);
  const [{ n }] = await q.select((eb) => eb.fn.countAll<string | number>().as('n')).execute();
  const rows = await q.selectAll().orderBy(time, 'desc').orderBy(SENDER_COLUMN[table] as 't').orderBy('event_id' as 't').limit(f.limit).offset(f.offset).execute();
  return { total: Number(n), rows: rows as never };
}

/** Reads protocol events of one environment by event_time, newest first (then connection, event_id). */
export function listProtocolEvents(store: Store, f: RecordFilter): Promise<{ total: number; rows: ProtocolEventRecord[] }> {
  return page(store, 'intake_protocol_events', f);
}

/** Reads outcome records of one environment by occurred_at, newest first (then producer, event_id). */
export function listOutcomes(store: Store, f: RecordFilter): Promise<{ total: number; rows: OutcomeRecordRow[] }> {
  return page(store, 'intake_outcomes', f);
}

/** The members a cost sum needs. */
export type ChargeRow = Pick<OutcomeRecordRow, 'producer_id' | 'occurred_at' | 'service_id' | 'service_url' | 'charge_amount' | 'charge_asset' | 'charge_network'>;
const CHARGE_COLUMNS = ['producer_id', 'occurred_at', 'service_id', 'service_url', 'charge_amount', 'charge_asset', 'charge_network'] as const;

/** The charge members of every outcome in an environment and window, for exact cost sums in code (never SQL SUM). */
export async function outcomeCharges(store: Store, f: Omit<RecordFilter, 'limit' | 'offset'>): Promise<ChargeRow[]> {
  const rows = await inWindow(store, 'intake_outcomes', f).q.select(CHARGE_COLUMNS as unknown as 't'[]).execute();
  return rows as unknown as ChargeRow[];
}
