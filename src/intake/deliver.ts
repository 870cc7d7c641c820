/**
 * Accepting one signed delivery: authenticate on the raw bytes, then parse, then store idempotently.
 * Order matters: nothing is parsed before the signature verifies, and nothing is stored unless every check passed.
 */
import type { Store } from '../store/db.js';
import type { Environment, SenderKind } from '../store/intake/senders.js';
import { insertOrRead, type InsertResult } from '../store/intake/records.js';
import { Forbidden, Conflict } from '../domain/errors.js';
import { sha256Hex } from '../secrets/index.js';
import type { KeyCache } from './key-cache.js';
import { Unauthorized, checkTimestamp, signatureMatches } from './signature.js';
import { parseJsonBody, parseOutcome, parseProtocolEnvelope } from './envelope.js';

/** The signed parts of a request: the sender header, X-SVC-Timestamp, X-SVC-Signature and the exact body. */
export interface SignedDelivery {
  senderId: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
  body: Buffer;
}

/** An authenticated sender. */
export interface Sender {
  id: string;
  kind: SenderKind;
  /** The connection's protocol; null for producers. */
  protocol: string | null;
  /** The environment its credentials were issued for: it may deliver records of this environment only. */
  environment: Environment;
}

/** The receipt of a stored delivery; a byte-identical retry gets the same one. */
export interface Receipt {
  event_id: string;
  /** ISO 8601 date-time of the first delivery. */
  received_at: string;
  /** Lower-case hex SHA-256 of the exact body bytes. */
  body_sha256: string;
}

/** The HTTP answer to a delivery: 201 first time, 200 for a byte-identical retry. */
export interface Accepted {
  status: 200 | 201;
  receipt: Receipt;
}

const HEADER = { connection: 'X-SVC-Connection', producer: 'X-SVC-Producer' } as const;
/** The shape of issued ids (src/secrets/tokens.ts newId): anything else is unknown without a store lookup. */
const SENDER_ID = { connection: /^conn_[0-9a-f]{16}$/, producer: /^prod_[0-9a-f]{16}$/ } as const;

/**
 * Verifies who sent a delivery, on the exact body bytes. An unknown, revoked or wrong-kind sender gets one
 * message for all three, so the answer does not tell an outsider which ids exist. Keys come from `keys`
 * (reused for up to a second; see ./key-cache.ts).
 * @param now UTC Unix seconds
 * @throws Unauthorized (401) for a missing header, stale timestamp, unknown or revoked sender, or bad signature
 */
export async function authenticate(keys: KeyCache, kind: SenderKind, d: SignedDelivery, now: number): Promise<Sender> {
  if (!d.senderId) throw new Unauthorized(`missing ${HEADER[kind]} header`);
  checkTimestamp(d.timestamp, now);
  const unknown = `unknown or revoked ${kind} in ${HEADER[kind]}`;
  if (!SENDER_ID[kind].test(d.senderId)) throw new Unauthorized(unknown);
  let found = await keys.get(kind, d.senderId, now);
  if (!found) throw new Unauthorized(unknown);
  let ok = signatureMatches(found.keys, d.timestamp!, d.body, d.signature);
  if (!ok) {
    // The cached keys may predate a rotation: check once more against the store.
    found = await keys.get(kind, d.senderId, now, true);
    if (!found) throw new Unauthorized(unknown);
    ok = signatureMatches(found.keys, d.timestamp!, d.body, d.signature);
  }
  if (!ok)
    throw new Unauthorized(`bad signature: X-SVC-Signature is not HMAC-SHA256(key, "<X-SVC-Timestamp>.<body bytes>") for this ${kind}`);
  return found.sender;
}

/** Maps an idempotent insert to the answer, or 409 when the event_id was stored with another body. */
function answer(eventId: string, r: InsertResult): Accepted {
  const receipt = { event_id: eventId, ...r.receipt };
  if (r.status === 'conflict') {
    throw new Conflict(
      `event_id '${eventId}' was already received with a different body (sha256 ${r.receipt.body_sha256}); a retry must resend the identical bytes`,
    );
  }
  return { status: r.status === 'created' ? 201 : 200, receipt };
}

/**
 * Refuses a record of the other environment than the sender's credentials (as payment APIs keep test and live
 * keys apart): a test key can never write live records, nor a live key test ones.
 * @throws Forbidden (403)
 */
function checkEnvironment(sender: Sender, environment: Environment, member: string): void {
  if (environment !== sender.environment) {
    throw new Forbidden(
      `environment mismatch: ${member} is '${environment}' but this ${sender.kind} was issued for '${sender.environment}'; use a ${sender.kind} created with --env ${environment}`,
    );
  }
}

/**
 * Stores a protocol event from an authenticated connection (body verified, not yet parsed). What is stored is
 * the body as validated (parseJsonBody: without a leading byte-order mark); the receipt's sha256 is of those bytes.
 * @param receivedAt the receipt time to record for a first delivery
 * @throws InvalidInput (400) for a malformed body or envelope (never for the native record's shape); Forbidden (403)
 *   for the other environment; Conflict (409) for a changed body
 */
export async function acceptProtocolEvent(store: Store, conn: Sender, raw: Buffer, receivedAt: Date): Promise<Accepted> {
  const { json, bytes: body } = parseJsonBody(raw);
  const env = parseProtocolEnvelope(json, conn.protocol ?? '');
  checkEnvironment(conn, env.environment, "the envelope's environment");
  const r = await insertOrRead(store, 'intake_protocol_events', {
    connection_id: conn.id,
    event_id: env.event_id,
    environment: env.environment,
    protocol: env.protocol,
    event_type: env.event_type,
    event_time: env.event_time,
    body,
    body_sha256: sha256Hex(body),
    received_at: receivedAt.toISOString(),
  });
  return answer(env.event_id, r);
}

/**
 * Stores an outcome record from an authenticated producer (body verified, not yet parsed), as validated (see
 * acceptProtocolEvent).
 * @throws InvalidInput (400) for a malformed record or evidence that does not bind; Forbidden (403) for the other
 *   environment; Conflict (409) for a changed body
 */
export async function acceptOutcome(store: Store, producer: Sender, raw: Buffer, receivedAt: Date): Promise<Accepted> {
  const { json, bytes: body } = parseJsonBody(raw);
  const { record: o, evidence } = parseOutcome(json, producer.id);
  checkEnvironment(producer, o.environment, "the record's environment");
  const r = await insertOrRead(store, 'intake_outcomes', {
    producer_id: producer.id,
    event_id: o.event_id,
    environment: o.environment,
    occurred_at: o.occurred_at,
    task_id: o.task_id,
    attempt_id: o.attempt_id,
    service_id: o.service.service_id ?? null,
    service_url: o.service.url ?? null,
    charge_amount: o.charge.amount,
    charge_asset: o.charge.asset,
    charge_network: o.charge.network,
    charge_tx_hash: o.charge.tx_hash?.toLowerCase() ?? null,
    charge_protocol: o.charge.protocol ?? null,
    result_fingerprint: o.result_fingerprint,
    evaluation_version: o.evaluation.version,
    verdict: o.evaluation.verdict,
    score: o.evaluation.score ?? null,
    evidence,
    body,
    body_sha256: sha256Hex(body),
    received_at: receivedAt.toISOString(),
  });
  return answer(o.event_id, r);
}
