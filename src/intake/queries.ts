/**
 * The intake's query layer: the operator reads (CLI and HTTP), validated filters in (./schemas.ts), answers out.
 * Stored events and outcomes of one environment, page by page, and exact cost summaries of reported charges.
 * Nothing here is ever published: the routes that call it sit behind an operator token (docs/intake.md).
 */
import type { Store } from '../store/db.js';
import { listOutcomes, listProtocolEvents, outcomeCharges, type RecordFilter } from '../store/intake/records.js';
import { DecimalSum } from '../domain/money.js';
import { parseJsonBody } from './envelope.js';
import { shortMessage } from '../domain/errors.js';
import { annotateRecord, UNRECOGNISED, type RecordIds } from './protocols.js';

export type { RecordFilter };

/**
 * How a stored body is shown. A row whose bytes do not pass the intake's own body check (parseJsonBody: rows
 * stored before that check was strict) is shown as its bytes with the reason, so one such row never breaks a
 * page, and nothing of it reaches a log.
 */
export interface StoredBodyView {
  /** Null when the stored body renders; else why it does not (the message gives offsets, not content). */
  record_error: string | null;
  /** The stored bytes, base64, when record_error is set; else null. */
  stored_body_base64: string | null;
}

/** Parses a stored body as the intake validated it. @returns the object, or null and the flag with the raw bytes */
function renderStored(body: Uint8Array): { json: Record<string, unknown> | null } & StoredBodyView {
  const bytes = Buffer.from(body);
  try {
    return { json: parseJsonBody(bytes).json, record_error: null, stored_body_base64: null };
  } catch (e) {
    return { json: null, record_error: shortMessage(e), stored_body_base64: bytes.toString('base64') };
  }
}

/** A protocol event as operators read it: envelope members, receipt and the native record. */
export interface EventView extends StoredBodyView {
  connection_id: string;
  event_id: string;
  environment: 'test' | 'live';
  protocol: string;
  event_type: string;
  event_time: number;
  received_at: string;
  body_sha256: string;
  /** The native record, parsed from the stored body bytes (whose sha256 is body_sha256); null when record_error is set. */
  record: unknown;
  /**
   * What the record was recognised as (./protocols.ts annotateRecord: `cart_mandate`, `agent_card`, `order`…), or
   * `unrecognised`; computed when read, so it follows the current recognition. Null when record_error is set.
   */
  record_kind: string | null;
  /** The ids the record names (`order_id`, `task_id`…); null when record_error is set. */
  record_ids: RecordIds | null;
}

/** A page of records. */
export interface Page<T> {
  environment: 'test' | 'live';
  total: number;
  limit: number;
  offset: number;
  rows: T[];
}

/** Shapes a page of stored rows for output. */
function pageOf<R, V>(f: RecordFilter, total: number, rows: R[], view: (r: R) => V): Page<V> {
  return { environment: f.environment, total, limit: f.limit, offset: f.offset, rows: rows.map(view) };
}

/** Reads protocol events of one environment (since/until on event_time, UTC Unix seconds). */
export async function readEvents(store: Store, f: RecordFilter): Promise<Page<EventView>> {
  const { total, rows } = await listProtocolEvents(store, f);
  return pageOf(f, total, rows, (r) => {
    const { json, ...stored } = renderStored(r.body);
    const record = json ? (json.record ?? null) : null;
    // Stored envelopes always hold an object record; a row from before that rule may not.
    const annotation =
      record !== null && typeof record === 'object' && !Array.isArray(record)
        ? annotateRecord(r.protocol, record as Record<string, unknown>)
        : null;
    return {
      connection_id: r.connection_id,
      event_id: r.event_id,
      environment: r.environment,
      protocol: r.protocol,
      event_type: r.event_type,
      event_time: Number(r.event_time),
      received_at: r.received_at,
      body_sha256: r.body_sha256,
      record,
      record_kind: json ? (annotation?.record_kind ?? UNRECOGNISED) : null,
      record_ids: json ? (annotation?.record_ids ?? {}) : null,
      ...stored,
    };
  });
}

/** An outcome record as operators read it: the record as sent (evidence content replaced by its size), plus receipt. */
export interface OutcomeView extends StoredBodyView {
  producer_id: string;
  event_id: string;
  environment: 'test' | 'live';
  occurred_at: number;
  received_at: string;
  body_sha256: string;
  /** Byte length of the retained result evidence, or null when none was sent. */
  evidence_bytes: number | null;
  /** The record as sent, without `evidence`; null when record_error is set. */
  record: Record<string, unknown> | null;
}

/** Reads outcome records of one environment (since/until on occurred_at, UTC Unix seconds). */
export async function readOutcomes(store: Store, f: RecordFilter): Promise<Page<OutcomeView>> {
  const { total, rows } = await listOutcomes(store, f);
  return pageOf(f, total, rows, (r) => {
    const { json: record, ...stored } = renderStored(r.body);
    if (record) delete record.evidence;
    return {
      producer_id: r.producer_id,
      event_id: r.event_id,
      environment: r.environment,
      occurred_at: Number(r.occurred_at),
      received_at: r.received_at,
      body_sha256: r.body_sha256,
      evidence_bytes: r.evidence == null ? null : Buffer.from(r.evidence).length,
      record,
      ...stored,
    };
  });
}

/** One exact sum: charges of one group in one asset on one network (different assets are never added). */
export interface CostLine {
  asset: string;
  network: string;
  /** Exact decimal string, the sum of the reported charge amounts. */
  total: string;
  /** Number of outcome records summed. */
  outcomes: number;
}

/** Reported cost summaries: what producers said they paid, not verified charges. */
export interface CostSummary {
  environment: 'test' | 'live';
  since: number | null;
  until: number | null;
  period: 'day' | 'month';
  by_service: (CostLine & { service_id: string | null; service_url: string | null })[];
  by_producer: (CostLine & { producer_id: string })[];
  /** Period start as YYYY-MM-DD (day) or YYYY-MM (month), UTC, of occurred_at. */
  by_period: (CostLine & { period: string })[];
}

/** Groups charges by a key and sums each group exactly with DecimalSum. */
function sumBy<R extends { charge_amount: string; charge_asset: string; charge_network: string }, K extends object>(
  rows: R[],
  key: (r: R) => K,
): (CostLine & K)[] {
  const groups = new Map<string, { k: K; asset: string; network: string; sum: DecimalSum }>();
  for (const r of rows) {
    const k = key(r);
    const id = JSON.stringify([k, r.charge_asset, r.charge_network]);
    let g = groups.get(id);
    if (!g) {
      g = { k, asset: r.charge_asset, network: r.charge_network, sum: new DecimalSum() };
      groups.set(id, g);
    }
    g.sum.add(r.charge_amount);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, g]) => ({ ...g.k, asset: g.asset, network: g.network, total: g.sum.value(), outcomes: g.sum.count }));
}

/**
 * Sums reported charges exactly per service, per producer and per period (UTC day or month of occurred_at),
 * each split by asset and network.
 */
export async function costSummary(store: Store, f: Omit<RecordFilter, 'limit' | 'offset'>, period: 'day' | 'month'): Promise<CostSummary> {
  const rows = await outcomeCharges(store, f);
  const cut = period === 'day' ? 10 : 7;
  return {
    environment: f.environment,
    since: f.since ?? null,
    until: f.until ?? null,
    period,
    by_service: sumBy(rows, (r) => ({ service_id: r.service_id, service_url: r.service_url })),
    by_producer: sumBy(rows, (r) => ({ producer_id: r.producer_id })),
    by_period: sumBy(rows, (r) => ({ period: new Date(Number(r.occurred_at) * 1000).toISOString().slice(0, cut) })),
  };
}
