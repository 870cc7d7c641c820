/**
 * Parsing of signed intake bodies, after the signature has been verified on the raw bytes: strict UTF-8, JSON,
 * then the envelope or the outcome record (docs/intake.md).
 */
import { z } from 'zod';
import { InvalidInput } from '../domain/errors.js';
import { isDecimal } from '../domain/money.js';
import { sha256Hex } from '../secrets/index.js';
import { PROTOCOLS } from './protocols.js';
import { MAX_JSON_DEPTH, parseJsonText } from './json-shape.js';

export const PROTOCOL_SCHEMA = 'paywatch.protocol.v1';
export const OUTCOME_SCHEMA = 'paywatch.outcome.v1';

/** Deepest nesting of objects and arrays accepted in a body (the outermost object is level 1). */
export const MAX_DEPTH = MAX_JSON_DEPTH;

/** A body as validated: the parsed object and the exact bytes that were parsed (what gets stored). */
export interface JsonBody {
  json: Record<string, unknown>;
  /** The body without a leading UTF-8 byte-order mark (RFC 8259 section 8.1 lets a parser ignore one); otherwise the body itself. */
  bytes: Buffer;
}

/**
 * Decodes a body as strict UTF-8 JSON, the same way for a delivery and for a stored row read back: one leading
 * byte-order mark is dropped, duplicate member names and nesting deeper than MAX_DEPTH are refused. Messages
 * give character offsets, never the body's content.
 * @throws InvalidInput on invalid UTF-8 or JSON, a top level that is not an object, duplicate names or deep nesting
 */
export function parseJsonBody(body: Buffer): JsonBody {
  const { value: v, bytes } = parseJsonText(body, { maxDepth: MAX_DEPTH });
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new InvalidInput('malformed body: the top level must be a JSON object');
  return { json: v as Record<string, unknown>, bytes };
}

/** Printable ASCII identifiers (event ids, task ids): what senders need, nothing that breaks logs or CSV. */
const ident = z.string().regex(/^[\x21-\x7e]{1,200}$/, 'must be 1..200 printable ASCII characters without spaces');
/**
 * Text kept in a column and shown to operators: no control characters (C0, DEL, C1), which PostgreSQL text
 * refuses (NUL) or terminals interpret (escape sequences).
 */
const NO_CONTROL = [/^\P{Cc}*$/u, 'must not contain control characters'] as const;
const text = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(...NO_CONTROL);
const seconds = z.number().int().min(0).max(253402300799);
const environment = z.enum(['test', 'live']);
const hex64 = z.string().regex(/^[a-f0-9]{64}$/, 'must be 64 lower-case hex characters');

const ProtocolEnvelope = z.strictObject({
  schema: z.literal(PROTOCOL_SCHEMA),
  protocol: z.enum(PROTOCOLS),
  event_id: ident,
  event_type: text(200),
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
    .strictObject({
      service_id: hex64.optional(),
      url: z
        .url({ protocol: /^https?$/ })
        .max(2048)
        .regex(...NO_CONTROL)
        .optional(),
    })
    .refine((s) => s.service_id !== undefined || s.url !== undefined, 'needs service_id or url'),
  charge: z.strictObject({
    amount: z
      .string()
      .max(80)
      .refine((a) => isDecimal(a) && !a.startsWith('-'), 'must be a non-negative exact decimal string such as "0.01"'),
    asset: text(200),
    network: text(100),
    tx_hash: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x and 64 hex characters')
      .nullish(),
    protocol: text(50).nullish(),
  }),
  result_fingerprint: hex64,
  evaluation: z.strictObject({
    version: text(100),
    verdict: text(100),
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
 * Validates a protocol-event envelope: its own members only. The native record must be a JSON object and is
 * otherwise not checked (the envelope verifies sender and bytes, not the record: contract §5); what it is, is
 * annotated when it is read (./protocols.ts annotateRecord).
 * @param connectionProtocol the protocol the connection was created for
 * @throws InvalidInput naming the member, or a protocol that is not the connection's
 */
export function parseProtocolEnvelope(json: unknown, connectionProtocol: string): ProtocolEnvelope {
  const r = ProtocolEnvelope.safeParse(json);
  if (!r.success) throw new InvalidInput(describe(r.error, 'envelope'));
  if (r.data.protocol !== connectionProtocol) {
    throw new InvalidInput(`malformed envelope: protocol '${r.data.protocol}' is not this connection's protocol '${connectionProtocol}'`);
  }
  return r.data;
}

/**
 * Validates an outcome record; retained evidence must belong to the signing producer and the record's task
 * and hash to the result fingerprint.
 * @param producerId the authenticated producer
 * @returns the record and the evidence bytes (null when none)
 * @throws InvalidInput naming the member or the failed evidence binding
 */
export function parseOutcome(json: unknown, producerId: string): { record: OutcomeRecord; evidence: Buffer | null } {
  const r = Outcome.safeParse(json);
  if (!r.success) throw new InvalidInput(describe(r.error, 'outcome record'));
  const ev = r.data.evidence;
  if (!ev) return { record: r.data, evidence: null };
  if (ev.producer_id !== producerId)
    throw new InvalidInput(`malformed outcome record: evidence belongs to producer '${ev.producer_id}', not the signing producer`);
  if (ev.task_id !== r.data.task_id)
    throw new InvalidInput(
      `malformed outcome record: evidence belongs to task '${ev.task_id}', not this record's task '${r.data.task_id}'`,
    );
  const bytes = Buffer.from(ev.content_base64, 'base64');
  const got = sha256Hex(bytes);
  if (got !== r.data.result_fingerprint) {
    throw new InvalidInput(
      `malformed outcome record: evidence sha256 ${got} does not match result_fingerprint ${r.data.result_fingerprint}`,
    );
  }
  return { record: r.data, evidence: bytes };
}
