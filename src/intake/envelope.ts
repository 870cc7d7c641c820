/**
 * Parsing of signed intake bodies, after the signature has been verified on the raw bytes: strict UTF-8, JSON,
 * then the envelope (contract section 6) or the outcome record (docs/intake.md).
 */
import { z } from 'zod';
import { BadRequest } from '../domain/errors.js';
import { isDecimal } from '../domain/money.js';
import { sha256Hex } from '../secrets/index.js';
import { PROTOCOLS, nativeRecordProblem, type Protocol } from './protocols.js';

export const PROTOCOL_SCHEMA = 'paywatch.protocol.v1';
export const OUTCOME_SCHEMA = 'paywatch.outcome.v1';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes the body as strict UTF-8 JSON.
 * @throws BadRequest on invalid UTF-8 or JSON, or when the top level is not an object
 */
export function parseJsonBody(body: Buffer): Record<string, unknown> {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new BadRequest('malformed body: not valid UTF-8');
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new BadRequest(`malformed body: not valid JSON (${(e as Error).message})`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new BadRequest('malformed body: the top level must be a JSON object');
  return v as Record<string, unknown>;
}

/** Printable ASCII identifiers (event ids, task ids): what senders need, nothing that breaks logs or CSV. */
const ident = z.string().regex(/^[\x21-\x7e]{1,200}$/, 'must be 1..200 printable ASCII characters without spaces');
const seconds = z.number().int().min(0).max(253402300799);
const environment = z.enum(['test', 'live']);
const hex64 = z.string().regex(/^[a-f0-9]{64}$/, 'must be 64 lower-case hex characters');

const ProtocolEnvelope = z.strictObject({
  schema: z.literal(PROTOCOL_SCHEMA),
  protocol: z.enum(PROTOCOLS),
  event_id: ident,
  event_type: z.string().min(1).max(200),
  event_time: seconds,
  environment,
  record: z.record(z.string(), z.unknown()),
});
export type ProtocolEnvelope = z.infer<typeof ProtocolEnvelope>;

const Outcome = z.strictObject({
  schema: z.literal(OUTCOME_SCHEMA),
  event_id: ident,
  environment,
  occurred_at: seconds,
  task_id: ident,
  attempt_id: ident,
  service: z
    .strictObject({ service_id: hex64.optional(), url: z.url({ protocol: /^https?$/ }).max(2048).optional() })
    .refine((s) => s.service_id !== undefined || s.url !== undefined, 'needs service_id or url'),
  charge: z.strictObject({
    amount: z.string().max(80).refine((a) => isDecimal(a) && !a.startsWith('-'), 'must be a non-negative exact decimal string such as "0.01"'),
    asset: z.string().min(1).max(200),
    network: z.string().min(1).max(100),
    tx_hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x and 64 hex characters').nullish(),
    protocol: z.string().min(1).max(50).nullish(),
  }),
  result_fingerprint: hex64,
  evaluation: z.strictObject({
    version: z.string().min(1).max(100),
    verdict: z.string().min(1).max(100),
    score: z.number().finite().nullish(),
    criteria: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).nullish(),
  }),
  evidence: z
    .strictObject({
      producer_id: z.string().min(1),
      task_id: ident,
      content_base64: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be standard base64'),
    })
    .optional(),
});
export type OutcomeRecord = z.infer<typeof Outcome>;

/** Turns the first zod issue into one sentence naming the member. */
function describe(err: z.ZodError, what: string): string {
  const i = err.issues[0];
  const path = i.path.join('.');
  return `malformed ${what}: ${path ? `member '${path}' ` : ''}${i.message}`;
}

/**
 * Validates a protocol-event envelope and its native record.
 * @param connectionProtocol the protocol the connection was created for
 * @throws BadRequest naming the member, a protocol that is not the connection's, or the record shape
 */
export function parseProtocolEnvelope(json: unknown, connectionProtocol: string): ProtocolEnvelope {
  const r = ProtocolEnvelope.safeParse(json);
  if (!r.success) throw new BadRequest(describe(r.error, 'envelope'));
  if (r.data.protocol !== connectionProtocol) {
    throw new BadRequest(`malformed envelope: protocol '${r.data.protocol}' is not this connection's protocol '${connectionProtocol}'`);
  }
  const problem = nativeRecordProblem(r.data.protocol as Protocol, r.data.record);
  if (problem) throw new BadRequest(`malformed record: ${problem}`);
  return r.data;
}

/**
 * Validates an outcome record; retained evidence must belong to the signing producer and the record's task
 * and hash to the result fingerprint.
 * @param producerId the authenticated producer
 * @returns the record and the evidence bytes (null when none)
 * @throws BadRequest naming the member or the failed evidence binding
 */
export function parseOutcome(json: unknown, producerId: string): { record: OutcomeRecord; evidence: Buffer | null } {
  const r = Outcome.safeParse(json);
  if (!r.success) throw new BadRequest(describe(r.error, 'outcome record'));
  const ev = r.data.evidence;
  if (!ev) return { record: r.data, evidence: null };
  if (ev.producer_id !== producerId) throw new BadRequest(`malformed outcome record: evidence belongs to producer '${ev.producer_id}', not the signing producer`);
  if (ev.task_id !== r.data.task_id) throw new BadRequest(`malformed outcome record: evidence belongs to task '${ev.task_id}', not this record's task '${r.data.task_id}'`);
  const bytes = Buffer.from(ev.content_base64, 'base64');
  const got = sha256Hex(bytes);
  if (got !== r.data.result_fingerprint) {
    throw new BadRequest(`malformed outcome record: evidence sha256 ${got} does not match result_fingerprint ${r.data.result_fingerprint}`);
  }
  return { record: r.data, evidence: bytes };
}
