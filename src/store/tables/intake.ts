/**
 * Tables of the intake area (private: never read by public routes). Times are UTC Unix seconds unless named
 * `*_at` with an ISO string noted. Migrations: ../migrations/intake.ts.
 */
import type { ColumnType, Insertable, Selectable } from 'kysely';

/** PostgreSQL returns bigint columns as strings; callers convert with Number(). */
type BigInt64 = ColumnType<number | string, number, number>;

/** A connection (an application forwarding protocol events) or a producer (signing outcome records). */
export interface IntakeSenderRow {
  /** "conn_…" or "prod_…". */
  id: string;
  kind: 'connection' | 'producer';
  name: string;
  /** ap2 | a2a | mcp | ucp | acp for a connection; null for a producer. */
  protocol: string | null;
  /** The only environment whose records the sender may deliver (intake_0002; senders issued earlier are 'test'). */
  environment: ColumnType<'test' | 'live', 'test' | 'live', never>;
  created_at: BigInt64;
  /** Set once revoked: every key of the sender stops verifying at once. */
  revoked_at: BigInt64 | null;
}

/** One HMAC key of a sender, AES-256-GCM sealed under the master secret (associated data: the key id). */
export interface IntakeKeyRow {
  id: string;
  sender_id: string;
  sealed: string;
  created_at: BigInt64;
  /** Null while current; set by rotation to rotation time + grace period (the key verifies until then, exclusive). */
  expires_at: BigInt64 | null;
}

/** An operator token for the HTTP operator reads, stored as the SHA-256 of the token (src/secrets/tokens.ts). */
export interface IntakeOperatorTokenRow {
  id: string;
  name: string;
  token_sha256: string;
  created_at: BigInt64;
  revoked_at: BigInt64 | null;
}

/** A stored protocol event: the exact request body bytes and the envelope members used for filtering. */
export interface IntakeProtocolEventRow {
  connection_id: string;
  event_id: string;
  environment: 'test' | 'live';
  protocol: string;
  event_type: string;
  event_time: BigInt64;
  body: Buffer;
  body_sha256: string;
  /** ISO 8601 date-time with milliseconds, the receipt's `received_at`. */
  received_at: string;
}

/** A stored outcome record: the exact body bytes plus its bound members, flattened for reads and cost sums. */
export interface IntakeOutcomeRow {
  producer_id: string;
  event_id: string;
  environment: 'test' | 'live';
  occurred_at: BigInt64;
  task_id: string;
  attempt_id: string;
  service_id: string | null;
  service_url: string | null;
  /** Exact decimal string (src/domain/money.ts), summed with DecimalSum, never in SQL. */
  charge_amount: string;
  charge_asset: string;
  charge_network: string;
  charge_tx_hash: string | null;
  charge_protocol: string | null;
  result_fingerprint: string;
  evaluation_version: string;
  verdict: string;
  score: number | null;
  /** The retained result evidence bytes (their sha256 equals result_fingerprint), or null. */
  evidence: Buffer | null;
  body: Buffer;
  body_sha256: string;
  received_at: string;
}

export interface IntakeTables {
  intake_senders: IntakeSenderRow;
  intake_keys: IntakeKeyRow;
  intake_operator_tokens: IntakeOperatorTokenRow;
  intake_protocol_events: IntakeProtocolEventRow;
  intake_outcomes: IntakeOutcomeRow;
}

/** Row types as read and as written (bigint columns read as number or string, written as number). */
export type ProtocolEventRecord = Selectable<IntakeProtocolEventRow>;
export type NewProtocolEvent = Insertable<IntakeProtocolEventRow>;
export type OutcomeRecordRow = Selectable<IntakeOutcomeRow>;
export type NewOutcome = Insertable<IntakeOutcomeRow>;
