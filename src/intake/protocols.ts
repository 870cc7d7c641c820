/**
 * Minimal shape checks of the native records forwarded in protocol events: discriminators and ids only
 * (docs/intake.md; shapes from /work/shared/domain-notes.md "Agent commerce protocols"). The record itself is
 * never rewritten: the stored body is the exact bytes received. Extra members are always allowed.
 */
import { z } from 'zod';

export const PROTOCOLS = ['ap2', 'a2a', 'mcp', 'ucp', 'acp'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

const id = z.string().min(1);
const idOrNumber = z.union([z.string(), z.number().int()]);
const obj = z.looseObject;

/** AP2 mandates: IntentMandate, CartMandate (contents.id), PaymentMandate (payment_mandate_contents.payment_mandate_id). */
const ap2 = z.union([
  obj({ contents: obj({ id, payment_request: obj({}) }), merchant_authorization: z.string().nullish() }),
  obj({ payment_mandate_contents: obj({ payment_mandate_id: id }) }),
  obj({ natural_language_description: z.string(), intent_expiry: z.string() }),
]);

/** JSON-RPC 2.0 message: request/notification (method), result or error response (id). Used by a2a and mcp. */
const jsonRpc = z.union([
  obj({ jsonrpc: z.literal('2.0'), method: z.string().min(1), id: idOrNumber.optional() }),
  obj({ jsonrpc: z.literal('2.0'), id: idOrNumber.nullable(), result: z.unknown().refine((v) => v !== undefined, 'result is required') }),
  obj({ jsonrpc: z.literal('2.0'), id: idOrNumber.nullable(), error: obj({ code: z.number().int(), message: z.string() }) }),
]);

/** A2A objects by `kind` (task, message, status-update, artifact-update), or the JSON-RPC message carrying one. */
const a2a = z.union([
  obj({ kind: z.literal('task'), id, contextId: id, status: obj({ state: z.string() }) }),
  obj({ kind: z.literal('message'), messageId: id, role: z.string(), parts: z.array(z.unknown()) }),
  obj({ kind: z.literal('status-update'), taskId: id, contextId: id, status: obj({ state: z.string() }), final: z.boolean() }),
  obj({ kind: z.literal('artifact-update'), taskId: id, contextId: id, artifact: obj({ artifactId: id }) }),
  jsonRpc,
]);

const UCP_STATUS = ['incomplete', 'requires_escalation', 'ready_for_complete', 'complete_in_progress', 'completed', 'canceled'] as const;

/** UCP checkout object. */
const ucp = obj({
  id,
  status: z.enum(UCP_STATUS),
  currency: z.string().min(1),
  line_items: z.array(z.unknown()),
  totals: z.array(z.unknown()),
});

/** ACP CheckoutSession, or an order webhook `{type: order_create|order_update, data}`. */
const acp = z.union([
  obj({ id, status: z.string().min(1), currency: z.string().min(1), line_items: z.array(z.unknown()), totals: z.array(z.unknown()) }),
  obj({ type: z.enum(['order_create', 'order_update']), data: obj({}) }),
]);

const SHAPES: Record<Protocol, z.ZodType> = { ap2, a2a, mcp: jsonRpc, ucp, acp };

const DESCRIPTIONS: Record<Protocol, string> = {
  ap2: 'an AP2 IntentMandate (natural_language_description, intent_expiry), CartMandate (contents.id, contents.payment_request) or PaymentMandate (payment_mandate_contents.payment_mandate_id)',
  a2a: 'an A2A task, message, status-update or artifact-update (by kind, with its ids) or a JSON-RPC 2.0 message',
  mcp: 'an MCP JSON-RPC 2.0 message (jsonrpc "2.0" with method, result or error, and id)',
  ucp: `a UCP checkout (id, status one of ${UCP_STATUS.join('|')}, currency, line_items[], totals[])`,
  acp: 'an ACP CheckoutSession (id, status, currency, line_items[], totals[]) or an order webhook (type order_create|order_update, data)',
};

/**
 * Checks a forwarded record's minimal native shape.
 * @returns null when it fits, else a message naming what the protocol's record needs
 */
export function nativeRecordProblem(protocol: Protocol, record: unknown): string | null {
  return SHAPES[protocol].safeParse(record).success ? null : `record is not ${DESCRIPTIONS[protocol]}`;
}
