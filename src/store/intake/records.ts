/**
 * Stored intake records (protocol events, outcome records): idempotent insert and operator reads.
 * Idempotency rests on the primary key (sender, event_id): the insert is `ON CONFLICT DO NOTHING … RETURNING`,
 * so of any number of concurrent first deliveries exactly one row is written, and the others read it back.
 * Concurrent inserts are grouped into one statement (group commit; see insertOrRead).
 */
import { PaywatchError } from '../../domain/errors.js';
import type { Store } from '../db.js';
import { executePrepared } from '../prepared.js';
import { CompiledQuery, type Kysely } from 'kysely';
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
 * instead of per delivery. A group starts on the event loop's next turn (setImmediate), so the deliveries that
 * arrived together are written together even when the driver is synchronous (SQLite); an idle store writes a
 * lone row at once.
 * Race-free: the unique key decides, and rows that lost read the winner back.
 * @throws the store's error (every row of the failed group gets it; nothing of that group is stored)
 */
export function insertOrRead<T extends RecordTable>(store: Store, table: T, row: RecordRow<T>): Promise<InsertResult> {
  let byTable = queues.get(store);
  if (!byTable) {
    byTable = new Map();
    queues.set(store, byTable);
  }
  let q = byTable.get(table);
  if (!q) {
    q = { pending: [], running: false };
    byTable.set(table, q);
  }
  const queue = q;
  return new Promise((resolve, reject) => {
    queue.pending.push({ row: row as unknown as Pending['row'], resolve, reject });
    if (!queue.running) {
      // Start after every request that arrived in this turn of the event loop has queued its row: on SQLite,
      // whose statements run synchronously, starting at once would write every row alone.
      queue.running = true;
      setImmediate(() => void drain(store, table, queue));
    }
  });
}

/** Writes queued rows group by group until the queue is empty (`q.running` is set by the caller). */
async function drain(store: Store, table: RecordTable, q: Queue): Promise<void> {
  try {
    while (q.pending.length) {
      const group = q.pending.splice(0, MAX_BATCH);
      try {
        const results = await insertMany(
          store,
          table,
          group.map((p) => p.row),
        );
        for (const [i, p] of group.entries()) p.resolve(results[i]);
      } catch (e) {
        for (const p of group) p.reject(e);
      }
    }
  } finally {
    q.running = false;
  }
}

const PROTOCOL_EVENT_COLUMNS = [
  'connection_id',
  'event_id',
  'environment',
  'protocol',
  'event_type',
  'event_time',
  'body',
  'body_sha256',
  'received_at',
] as const;
const OUTCOME_COLUMNS = [
  'producer_id',
  'event_id',
  'environment',
  'occurred_at',
  'task_id',
  'attempt_id',
  'service_id',
  'service_url',
  'charge_amount',
  'charge_asset',
  'charge_network',
  'charge_tx_hash',
  'charge_protocol',
  'result_fingerprint',
  'evaluation_version',
  'verdict',
  'score',
  'evidence',
  'body',
  'body_sha256',
  'received_at',
] as const;
/** Every column of each record table, in the order the insert lists them. */
const COLUMNS: { [T in RecordTable]: readonly (keyof RecordRow<T> & string)[] } = {
  intake_protocol_events: PROTOCOL_EVENT_COLUMNS,
  intake_outcomes: OUTCOME_COLUMNS,
};
/** Does not compile when a column of a record table's row type is missing from its list above. */
type Unlisted =
  | Exclude<keyof NewProtocolEvent, (typeof PROTOCOL_EVENT_COLUMNS)[number]>
  | Exclude<keyof NewOutcome, (typeof OUTCOME_COLUMNS)[number]>;
const _everyColumnListed: [Unlisted] extends [never] ? true : Unlisted = true;

/** The intake tables as Kysely sees them here (it cannot type a table chosen at run time). */
type RecordDb = Kysely<
  Record<RecordTable, { connection_id: string; producer_id: string; event_id: string; received_at: string; body_sha256: string }>
>;

/** SQL text of the group insert by dialect, table and row count (at most 2 × 2 × MAX_BATCH entries). */
const insertSql = new Map<string, string>();

/**
 * The SQL of `INSERT INTO table (COLUMNS) VALUES (…) × rows ON CONFLICT (sender, event_id) DO NOTHING RETURNING
 * sender, event_id, received_at, body_sha256`, built by Kysely once per dialect, table and row count: building
 * the query anew for every group cost more than running it on SQLite. Parameters go row by row in COLUMNS order.
 * It runs as a prepared statement (executePrepared, ../prepared.ts): at most 2 × MAX_BATCH names per PostgreSQL connection.
 */
function groupInsertSql(store: Store, table: RecordTable, rows: number): string {
  const k = `${store.dialect}:${table}:${rows}`;
  let text = insertSql.get(k);
  if (text === undefined) {
    const senderCol = SENDER_COLUMN[table];
    const placeholder = Object.fromEntries(COLUMNS[table].map((c) => [c, '']));
    const q = (store.db as unknown as RecordDb)
      .insertInto(table)
      .values(Array.from({ length: rows }, () => placeholder) as never)
      .onConflict((oc) => oc.columns([senderCol, 'event_id']).doNothing())
      .returning([senderCol, 'event_id', 'received_at', 'body_sha256'])
      .compile();
    // Each value must be one parameter, in row-then-column order, for the flattened rows to line up.
    if (q.parameters.length !== rows * COLUMNS[table].length)
      throw new PaywatchError(`group insert into ${table}: ${q.parameters.length} parameters for ${rows} rows`, { code: 'internal' });
    text = q.sql;
    insertSql.set(k, text);
  }
  return text;
}

/** One `INSERT … ON CONFLICT DO NOTHING RETURNING` for `rows`, then a read-back of the keys that were not inserted. */
async function insertMany(store: Store, table: RecordTable, rows: Pending['row'][]): Promise<InsertResult[]> {
  const senderCol: 'connection_id' | 'producer_id' = SENDER_COLUMN[table];
  const db = store.db as unknown as RecordDb;
  const key = (sender: unknown, eventId: string) => JSON.stringify([sender, eventId]);
  const columns = COLUMNS[table] as readonly string[];
  const parameters: unknown[] = [];
  // A nullable member left out of a row is NULL (no column has a default).
  for (const r of rows) for (const c of columns) parameters.push(r[c] ?? null);
  const query = CompiledQuery.raw(groupInsertSql(store, table, rows.length), parameters) as CompiledQuery<{ [c: string]: string }>;
  const inserted = await executePrepared(store, query);
  const stored = new Map<string, StoredReceipt>(
    inserted.map((r) => [key(r[senderCol], r.event_id), { received_at: r.received_at, body_sha256: r.body_sha256 }]),
  );
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
  let q = (store.db as unknown as Kysely<Record<RecordTable, { environment: string; t: number }>>)
    .selectFrom(table as RecordTable)
    .where('environment', '=', f.environment);
  if (f.since !== undefined) q = q.where(time as 't', '>=', f.since);
  if (f.until !== undefined) q = q.where(time as 't', '<', f.until);
  return { q, time: time as 't' };
}

/** One page of a record table, newest own time first (then sender, event_id), with the total count. */
async function page<T extends RecordTable>(
  store: Store,
  table: T,
  f: RecordFilter,
): Promise<{ total: number; rows: (T extends 'intake_protocol_events' ? ProtocolEventRecord : OutcomeRecordRow)[] }> {
  const { q, time } = inWindow(store, table, f);
  const [{ n }] = await q.select((eb) => eb.fn.countAll<string | number>().as('n')).execute();
  const rows = await q
    .selectAll()
    .orderBy(time, 'desc')
    .orderBy(SENDER_COLUMN[table] as 't')
    .orderBy('event_id' as 't')
    .limit(f.limit)
    .offset(f.offset)
    .execute();
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
export type ChargeRow = Pick<
  OutcomeRecordRow,
  'producer_id' | 'occurred_at' | 'service_id' | 'service_url' | 'charge_amount' | 'charge_asset' | 'charge_network'
>;
const CHARGE_COLUMNS = [
  'producer_id',
  'occurred_at',
  'service_id',
  'service_url',
  'charge_amount',
  'charge_asset',
  'charge_network',
] as const;

/** The charge members of every outcome in an environment and window, for exact cost sums in code (never SQL SUM). */
export async function outcomeCharges(store: Store, f: Omit<RecordFilter, 'limit' | 'offset'>): Promise<ChargeRow[]> {
  const rows = await inWindow(store, 'intake_outcomes', f)
    .q.select(CHARGE_COLUMNS as unknown as 't'[])
    .execute();
  return rows as unknown as ChargeRow[];
}
