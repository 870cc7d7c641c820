/**
 * Stored intake records (protocol events, outcome records): idempotent insert and operator reads.
 * Idempotency rests on the primary key (sender, event_id): the insert is `ON CONFLICT DO NOTHING … RETURNING`,
 * so of any number of concurrent first deliveries exactly one row is written, and the others read it back.
 * Concurrent inserts are grouped into one statement (group commit; see insertOrRead).
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

/** Rows written in one statement at most (bounds statement size: 9..21 parameters per row). */
const MAX_BATCH = 200;

interface Pending {
  row: Record<string, unknown> & { event_id: string; body_sha256: string; received_at: string };
  resolve: (r: InsertResult) => void;
  reject: (e: unknown) => void;
}
interface Queue {
  pending: Pending[];
  running: boolean;
}
const queues = new WeakMap<Store, Map<RecordTable, Queue>>();

/**
 * Inserts `row` unless (sender, event_id) exists; otherwise compares body hashes. Resolves only after the row
 * is committed. Concurrent calls are grouped (group commit): while one statement is in flight, arriving rows
 * queue and go together in the next one, so a busy store pays one round trip and one WAL flush per group
 * instead of per delivery; an idle store writes a lone row at once.
 * Race-free: the unique key decides, and rows that lost read the winner back.
 * @throws the store's error (every row of the failed group gets it; nothing of that group is stored)
 */
export function insertOrRead<T extends RecordTable>(store: Store, table: T, row: RecordRow<T>): Promise<InsertResult> {
  let byTable = queues.get(store);
  if (!byTable) queues.set(store, (byTable = new Map()));
  let q = byTable.get(table);
  if (!q) byTable.set(table, (q = { pending: [], running: false }));
  const queue = q;
  return new Promise((resolve, reject) => {
    queue.pending.push({ row: row as unknown as Pending['row'], resolve, reject });
    if (!queue.running) void drain(store, table, queue);
  });
}

/** Writes queued rows group by group until the queue is empty. */
async function drain(store: Store, table: RecordTable, q: Queue): Promise<void> {
  q.running = true;
  try {
    while (q.pending.length) {
      const group = q.pending.splice(0, MAX_BATCH);
      try {
        const results = await insertMany(store, table, group.map((p) => p.row));
        group.forEach((p, i) => p.resolve(results[i]));
      } catch (e) {
        for (const p of group) p.reject(e);
      }
    }
  } finally {
    q.running = false;
  }
}

/** One `INSERT … ON CONFLICT DO NOTHING RETURNING` for `rows`, then a read-back of the keys that were not inserted. */
async function insertMany(store: Store, table: RecordTable, rows: Pending['row'][]): Promise<InsertResult[]> {
  const senderCol: 'connection_id' | 'producer_id' = SENDER_COLUMN[table];
  // Kysely cannot type a table chosen at run time; the RecordRow type of insertOrRead keeps rows honest.
  const db = store.db as unknown as Kysely<Record<RecordTable, { connection_id: string; producer_id: string; event_id: string; received_at: string; body_sha256: string }>>;
  const key = (sender: unknown, eventId: string) => JSON.stringify([sender, eventId]);
  const inserted = await db
    .insertInto(table)
    .values(rows as never)
    .onConflict((oc) => oc.columns([senderCol, 'event_id']).doNothing())
    .returning([senderCol, 'event_id', 'received_at', 'body_sha256'])
    .execute();
  const stored = new Map<string, StoredReceipt>(inserted.map((r) => [key(r[senderCol], r.event_id), { received_at: r.received_at, body_sha256: r.body_sha256 }]));
  const created = new Set(stored.keys());
  const missing = rows.filter((r) => !stored.has(key(r[senderCol], r.event_id)));
  if (missing.length) {
    const found = await db
      .selectFrom(table)
      .select([senderCol, 'event_id', 'received_at', 'body_sha256'])
      .where((eb) => eb.or(missing.map((r) => eb.and([eb(senderCol, '=', r[senderCol] as string), eb('event_id', '=', r.event_id)]))))
      .execute();
    for (const r of found) stored.set(key(r[senderCol], r.event_id), { received_at: r.received_at, body_sha256: r.body_sha256 });
  }
  return rows.map((r) => {
    const k = key(r[senderCol], r.event_id);
    const receipt = stored.get(k)!;
    // Of several rows with one key in a group, exactly one (the one whose values were stored) is the creator.
    if (created.has(k) && receipt.body_sha256 === r.body_sha256 && receipt.received_at === r.received_at) {
      created.delete(k);
      return { status: 'created', receipt };
    }
    return { status: receipt.body_sha256 === r.body_sha256 ? 'duplicate' : 'conflict', receipt };
  });
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
