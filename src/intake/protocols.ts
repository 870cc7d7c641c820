/**
 * What the intake recognises in the native records forwarded in protocol events (docs/intake.md, "Native records").
 * A delivery is stored when its envelope passes (src/intake/envelope.ts); the record itself is never checked
 * against a protocol's shape: the forwarding envelope verifies sender authentication and byte integrity only
 * (contract §5), and protocols add record types faster than any list here. The record is read only to annotate the
 * operator reads with its kind and the ids it names; a record no known shape fits is `unrecognised`, and stored all
 * the same. Shapes are matched on discriminators and ids only, extra members always allowed, from:
 * - ap2: the AP2 v0.1 types (https://github.com/google-agentic-commerce/AP2/blob/main/src/ap2/types/mandate.py, payment_receipt.py) and the
 *   SD-JWT mandates and receipts of its SDK schemas (code/sdk/schemas/ap2/*.json: `vct` mandate.checkout.1,
 *   mandate.payment.1 and their `.open` forms; payment_receipt, checkout_receipt);
 * - a2a: the A2A specification (https://github.com/a2aproject/A2A/blob/main/docs/specification.md): Task, Message, TaskStatusUpdateEvent and
 *   TaskArtifactUpdateEvent as v1.0 objects or stream wrappers (`task`, `message`, `statusUpdate`,
 *   `artifactUpdate`) or with the legacy v0.3 `kind`; the AgentCard (§8.5); JSON-RPC 2.0 messages;
 * - mcp: JSON-RPC 2.0 messages (request, notification, result, error);
 * - ucp: the checkout and the order (Universal-Commerce-Protocol/ucp specification/order: Order and the Order Event
 *   Webhook's `event_id`);
 * - acp: the CheckoutSession, the Order and the order webhook `{type, data: Order}` (agentic-commerce-protocol
 *   spec/2026-04-17/openapi: openapi.agentic_checkout.yaml, openapi.agentic_checkout_webhook.yaml), whatever `type`.
 */

export const PROTOCOLS = ['ap2', 'a2a', 'mcp', 'ucp', 'acp'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** The kind of a record no known shape of its protocol fits (stored all the same). */
export const UNRECOGNISED = 'unrecognised';

/** Longest id value annotated (longer ones are left out of `record_ids`; the record keeps them). */
export const MAX_ID_LENGTH = 200;

/** Ids a record names, by name (`cart_id`, `task_id`, `jsonrpc_id`…): strings, or JSON-RPC integer ids. */
export type RecordIds = Record<string, string | number>;

/** What was recognised in a record. */
export interface RecordAnnotation {
  /** A snake_case kind (`cart_mandate`, `payment_receipt`, `agent_card`, `order`, `jsonrpc_request`…) or `unrecognised`. */
  record_kind: string;
  /** The ids the record names; `{}` when none (always for `unrecognised`). */
  record_ids: RecordIds;
}

type Json = Record<string, unknown>;
/** A recognised shape: its ids, or null when the record is not of this shape. */
type Shape = readonly [kind: string, ids: (r: Json) => Record<string, unknown> | null];

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
/** `v` when it can be an id: a string of 1..MAX_ID_LENGTH characters, or a safe integer (JSON-RPC). */
const idValue = (v: unknown): string | number | undefined =>
  (typeof v === 'string' && v.length > 0 && v.length <= MAX_ID_LENGTH) || Number.isSafeInteger(v) ? (v as string | number) : undefined;

/** JSON-RPC 2.0 (a2a, mcp): request (method and id), notification (method, no id), result or error response. */
const JSON_RPC: Shape[] = [
  [
    'jsonrpc_request',
    (r) => (r.jsonrpc === '2.0' && isText(r.method) && r.id !== undefined ? { jsonrpc_id: r.id, method: r.method } : null),
  ],
  ['jsonrpc_notification', (r) => (r.jsonrpc === '2.0' && isText(r.method) && r.id === undefined ? { method: r.method } : null)],
  ['jsonrpc_result', (r) => (r.jsonrpc === '2.0' && 'id' in r && 'result' in r ? { jsonrpc_id: r.id } : null)],
  ['jsonrpc_error', (r) => (r.jsonrpc === '2.0' && 'id' in r && isObject(r.error) ? { jsonrpc_id: r.id } : null)],
];

/** An SD-JWT mandate of the AP2 SDK by its `vct` claim family (`mandate.payment.1`, `mandate.checkout.open.1`…). */
const vct = (family: string) => (r: Json) => (typeof r.vct === 'string' && r.vct.startsWith(`${family}.`) ? r : null);

const AP2: Shape[] = [
  ['intent_mandate', (r) => (isText(r.natural_language_description) && isText(r.intent_expiry) ? {} : null)],
  [
    'cart_mandate',
    (r) => (isObject(r.contents) && isText(r.contents.id) && isObject(r.contents.payment_request) ? { cart_id: r.contents.id } : null),
  ],
  [
    'payment_mandate',
    (r) =>
      isObject(r.payment_mandate_contents) && isText(r.payment_mandate_contents.payment_mandate_id)
        ? {
            payment_mandate_id: r.payment_mandate_contents.payment_mandate_id,
            payment_details_id: r.payment_mandate_contents.payment_details_id,
          }
        : null,
  ],
  [
    'payment_receipt',
    (r) =>
      isText(r.payment_mandate_id) && isText(r.payment_id) && isObject(r.payment_status)
        ? { payment_id: r.payment_id, payment_mandate_id: r.payment_mandate_id }
        : null,
  ],
  ['open_checkout_mandate', (r) => vct('mandate.checkout.open')(r) && {}],
  ['open_payment_mandate', (r) => vct('mandate.payment.open')(r) && {}],
  ['checkout_mandate', (r) => vct('mandate.checkout')(r) && { checkout_hash: r.checkout_hash }],
  ['payment_mandate', (r) => vct('mandate.payment')(r) && { transaction_id: r.transaction_id }],
  [
    'payment_receipt',
    (r) => (isText(r.status) && isText(r.reference) && isText(r.payment_id) ? { payment_id: r.payment_id, reference: r.reference } : null),
  ],
  [
    'checkout_receipt',
    (r) => (isText(r.status) && isText(r.reference) && isText(r.order_id) ? { order_id: r.order_id, reference: r.reference } : null),
  ],
];

/** A2A objects, as v1.0 stream wrappers, with the legacy (v0.3) `kind`, or bare (v1.0 Task, Message). */
const a2aTask = (t: unknown) =>
  isObject(t) && isText(t.id) && isText(t.contextId) && isObject(t.status) ? { task_id: t.id, context_id: t.contextId } : null;
const a2aMessage = (m: unknown) =>
  isObject(m) && isText(m.messageId) && isText(m.role) && Array.isArray(m.parts)
    ? { message_id: m.messageId, task_id: m.taskId, context_id: m.contextId }
    : null;
const a2aStatusUpdate = (u: unknown) =>
  isObject(u) && isText(u.taskId) && isObject(u.status) ? { task_id: u.taskId, context_id: u.contextId } : null;
const a2aArtifactUpdate = (u: unknown) =>
  isObject(u) && isText(u.taskId) && isObject(u.artifact)
    ? { task_id: u.taskId, context_id: u.contextId, artifact_id: u.artifact.artifactId }
    : null;

const A2A: Shape[] = [
  ['task', (r) => (r.kind === 'task' ? a2aTask(r) : a2aTask(r.task))],
  ['message', (r) => (r.kind === 'message' ? a2aMessage(r) : a2aMessage(r.message))],
  ['status_update', (r) => (r.kind === 'status-update' ? a2aStatusUpdate(r) : a2aStatusUpdate(r.statusUpdate))],
  ['artifact_update', (r) => (r.kind === 'artifact-update' ? a2aArtifactUpdate(r) : a2aArtifactUpdate(r.artifactUpdate))],
  ['task', (r) => (r.kind === undefined && r.jsonrpc === undefined ? a2aTask(r) : null)],
  ['message', (r) => (r.kind === undefined && r.jsonrpc === undefined ? a2aMessage(r) : null)],
  [
    'agent_card',
    (r) => {
      if (!isText(r.name) || !Array.isArray(r.skills)) return null;
      const first = Array.isArray(r.supportedInterfaces) ? r.supportedInterfaces[0] : undefined;
      const url = isObject(first) ? first.url : r.url;
      return isText(url) ? { agent_url: url } : null;
    },
  ],
  ...JSON_RPC,
];

const UCP_CHECKOUT_STATUS = ['incomplete', 'requires_escalation', 'ready_for_complete', 'complete_in_progress', 'completed', 'canceled'];

const UCP: Shape[] = [
  [
    'checkout',
    (r) =>
      isText(r.id) && UCP_CHECKOUT_STATUS.includes(r.status as string) && isText(r.currency) && Array.isArray(r.line_items)
        ? { checkout_id: r.id }
        : null,
  ],
  [
    'order_event',
    (r) =>
      isText(r.event_id) && isText(r.id) && isText(r.checkout_id) && Array.isArray(r.line_items)
        ? { event_id: r.event_id, order_id: r.id, checkout_id: r.checkout_id }
        : null,
  ],
  [
    'order',
    (r) => (isText(r.id) && isText(r.checkout_id) && Array.isArray(r.line_items) ? { order_id: r.id, checkout_id: r.checkout_id } : null),
  ],
];

/** An ACP Order: an order of a checkout session (openapi.agentic_checkout.yaml Order; `type: "order"` in webhooks). */
const acpOrder = (o: unknown) =>
  isObject(o) && isText(o.checkout_session_id) && (o.type === undefined || o.type === 'order')
    ? { order_id: o.id, checkout_session_id: o.checkout_session_id }
    : null;

const ACP: Shape[] = [
  // Any webhook `type`: the 2026-04-17 enum has order_create and order_update; senders forward others too (order_canceled).
  ['order_event', (r) => (isText(r.type) && r.type !== 'order' ? acpOrder(r.data) : null)],
  ['order', acpOrder],
  [
    'checkout_session',
    (r) => (isText(r.id) && isText(r.status) && isText(r.currency) && Array.isArray(r.line_items) ? { checkout_session_id: r.id } : null),
  ],
];

const SHAPES: Record<Protocol, readonly Shape[]> = { ap2: AP2, a2a: A2A, mcp: JSON_RPC, ucp: UCP, acp: ACP };

/**
 * Annotates a forwarded native record: the kind of the first known shape of its protocol it fits, and the ids it
 * names (ids longer than MAX_ID_LENGTH, or not strings or integers, are left out). Never throws, never refuses:
 * a record of an unknown protocol or of no known shape is `{record_kind: "unrecognised", record_ids: {}}`.
 * @param protocol the envelope's protocol (ap2, a2a, mcp, ucp, acp)
 * @param record the envelope's `record` (a JSON object)
 * @example annotateRecord('ucp', {id: 'order_1', checkout_id: 'chk_1', line_items: [], fulfillment: {}, totals: []})
 *   // {record_kind: 'order', record_ids: {order_id: 'order_1', checkout_id: 'chk_1'}}
 */
export function annotateRecord(protocol: string, record: Record<string, unknown>): RecordAnnotation {
  for (const [kind, ids] of SHAPES[protocol as Protocol] ?? []) {
    const found = ids(record);
    if (!found) continue;
    const record_ids: RecordIds = {};
    for (const [name, v] of Object.entries(found)) {
      const id = idValue(v);
      if (id !== undefined) record_ids[name] = id;
    }
    return { record_kind: kind, record_ids };
  }
  return { record_kind: UNRECOGNISED, record_ids: {} };
}
