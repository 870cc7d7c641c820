/**
 * Native records of the five protocols as applications forward them, each following a published example, SDK type
 * or specification section (cited beside it; values shortened, ids changed), with the kind and ids the intake
 * annotates it with (src/intake/protocols.ts). The intake stores every one of them: the envelope decides, never the
 * record's shape.
 */
import type { RecordIds } from '../../src/intake/protocols.js';

export interface NativeRecord {
  protocol: 'ap2' | 'a2a' | 'mcp' | 'ucp' | 'acp';
  /** What it is, in the protocol's words. */
  name: string;
  /** Where its shape comes from. */
  source: string;
  event_type: string;
  record: Record<string, unknown>;
  kind: string;
  ids: RecordIds;
}

export const NATIVE_RECORDS: NativeRecord[] = [
  // ---- ap2 -------------------------------------------------------------------------------------------------------
  {
    protocol: 'ap2',
    name: 'IntentMandate (v0.1)',
    source: 'google-agentic-commerce/AP2 src/ap2/types/mandate.py IntentMandate',
    event_type: 'ap2.mandates.IntentMandate',
    record: {
      user_cart_confirmation_required: true,
      natural_language_description: 'High top, old school, red basketball shoes',
      merchants: null,
      skus: null,
      requires_refundability: false,
      intent_expiry: '2026-12-01T00:00:00Z',
    },
    kind: 'intent_mandate',
    ids: {},
  },
  {
    protocol: 'ap2',
    name: 'CartMandate (v0.1)',
    source: 'google-agentic-commerce/AP2 src/ap2/types/mandate.py CartMandate, CartContents (W3C PaymentRequest inside)',
    event_type: 'ap2.mandates.CartMandate',
    record: {
      contents: {
        id: 'cart_shoes_123',
        user_cart_confirmation_required: false,
        payment_request: {
          method_data: [{ supported_methods: 'CARD', data: { network: ['visa'] } }],
          details: { id: 'order_shoes_123', total: { label: 'Total', amount: { currency: 'USD', value: 120 } } },
        },
        cart_expiry: '2026-12-01T00:15:00Z',
        merchant_name: 'Shoe Shop',
      },
      merchant_authorization: 'eyJhbGciOiJSUzI1NiIsImtpZCI6IjIwMjQwOTA',
    },
    kind: 'cart_mandate',
    ids: { cart_id: 'cart_shoes_123' },
  },
  {
    protocol: 'ap2',
    name: 'PaymentMandate (v0.1)',
    source: 'google-agentic-commerce/AP2 src/ap2/types/mandate.py PaymentMandate, PaymentMandateContents',
    event_type: 'ap2.mandates.PaymentMandate',
    record: {
      payment_mandate_contents: {
        payment_mandate_id: 'pm_7f3a',
        payment_details_id: 'order_shoes_123',
        payment_details_total: { label: 'Total', amount: { currency: 'USD', value: 120 } },
        payment_response: { request_id: 'order_shoes_123', method_name: 'CARD', details: { token: 'tok_1' } },
        merchant_agent: 'shoe-shop-agent',
        timestamp: '2026-11-26T10:00:00Z',
      },
      user_authorization: 'eyJhbGciOiJFUzI1NksiLCJraWQiOiJkaWQ6ZXhhbXBsZ',
    },
    kind: 'payment_mandate',
    ids: { payment_mandate_id: 'pm_7f3a', payment_details_id: 'order_shoes_123' },
  },
  {
    protocol: 'ap2',
    name: 'PaymentReceipt (v0.1)',
    source: 'google-agentic-commerce/AP2 src/ap2/types/payment_receipt.py PaymentReceipt (payment_status: Success)',
    event_type: 'ap2.PaymentReceipt',
    record: {
      payment_mandate_id: 'pm_7f3a',
      timestamp: '2026-11-26T10:00:05Z',
      payment_id: 'pay_91c2',
      amount: { currency: 'USD', value: 120 },
      payment_status: { merchant_confirmation_id: 'conf_5521', psp_confirmation_id: 'psp_88', network_confirmation_id: null },
      payment_method_details: { network: 'visa' },
    },
    kind: 'payment_receipt',
    ids: { payment_id: 'pay_91c2', payment_mandate_id: 'pm_7f3a' },
  },
  {
    protocol: 'ap2',
    name: 'Payment Receipt (SDK schema)',
    source: 'google-agentic-commerce/AP2 code/sdk/schemas/ap2/payment_receipt.json (status Success)',
    event_type: 'payment_receipt',
    record: {
      status: 'Success',
      iss: 'examplepay.example',
      iat: 1764151205,
      reference: 'c2hhMjU2LW9mLXRoZS1jbG9zZWQtbWFuZGF0ZQ',
      payment_id: 'pid_123',
      psp_confirmation_id: 'pid_123',
      network_confirmation_id: 'net_456',
    },
    kind: 'payment_receipt',
    ids: { payment_id: 'pid_123', reference: 'c2hhMjU2LW9mLXRoZS1jbG9zZWQtbWFuZGF0ZQ' },
  },
  {
    protocol: 'ap2',
    name: 'Payment Mandate (SDK schema, SD-JWT claims)',
    source: 'google-agentic-commerce/AP2 code/sdk/schemas/ap2/payment_mandate.json (vct mandate.payment.1)',
    event_type: 'mandate.payment',
    record: {
      vct: 'mandate.payment.1',
      transaction_id: 'dHhfcmVjZWlwdA',
      payee: { id: 'm-1', name: 'Shop' },
      payment_amount: { amount: 27999, currency: 'USD' },
      payment_instrument: { id: 'pi-1', type: 'credit' },
    },
    kind: 'payment_mandate',
    ids: { transaction_id: 'dHhfcmVjZWlwdA' },
  },
  // ---- a2a -------------------------------------------------------------------------------------------------------
  {
    protocol: 'a2a',
    name: 'AgentCard (v1.0)',
    source: 'a2aproject/A2A docs/specification.md §8.5 Sample Agent Card',
    event_type: 'agent-card',
    record: {
      name: 'GeoSpatial Route Planner Agent',
      description: 'Route planning, traffic analysis and custom maps.',
      supportedInterfaces: [
        { url: 'https://georoute-agent.example.com/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'https://georoute-agent.example.com/a2a/json', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ],
      provider: { organization: 'Example Geo Services Inc.', url: 'https://www.examplegeoservices.com' },
      version: '1.2.0',
      capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
      defaultInputModes: ['application/json', 'text/plain'],
      defaultOutputModes: ['application/json', 'image/png'],
      skills: [{ id: 'route-optimizer-traffic', name: 'Traffic-Aware Route Optimizer', description: 'Optimal routes.', tags: ['maps'] }],
      signatures: [{ protected: 'eyJhbGciOiJFUzI1NiJ9', signature: 'QFdkNLNszlGj3z3u0YQGt' }],
    },
    kind: 'agent_card',
    ids: { agent_url: 'https://georoute-agent.example.com/a2a/v1' },
  },
  {
    protocol: 'a2a',
    name: 'TaskStatusUpdateEvent push notification (v1.0 statusUpdate)',
    source: 'a2aproject/A2A docs/specification.md §6.6 push notification to the webhook',
    event_type: 'statusUpdate',
    record: {
      statusUpdate: {
        taskId: '43667960-d455-4453-b0cf-1bae4955270d',
        contextId: 'c295ea44-7543-4f78-b524-7a38915ad6e4',
        status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-11-26T18:30:00Z' },
      },
    },
    kind: 'status_update',
    ids: { task_id: '43667960-d455-4453-b0cf-1bae4955270d', context_id: 'c295ea44-7543-4f78-b524-7a38915ad6e4' },
  },
  {
    protocol: 'a2a',
    name: 'Task (v0.3, kind "task")',
    source: 'a2aproject/A2A docs/specification.md appendix A legacy `kind` discriminators',
    event_type: 'task',
    record: { kind: 'task', id: 't-9', contextId: 'ctx-9', status: { state: 'working' } },
    kind: 'task',
    ids: { task_id: 't-9', context_id: 'ctx-9' },
  },
  // ---- mcp -------------------------------------------------------------------------------------------------------
  {
    protocol: 'mcp',
    name: 'tools/call request',
    source: 'MCP specification 2025-06-18, server/tools "Calling Tools" (JSON-RPC 2.0 request)',
    event_type: 'tools/call',
    record: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_weather', arguments: { location: 'New York' } } },
    kind: 'jsonrpc_request',
    ids: { jsonrpc_id: 2, method: 'tools/call' },
  },
  {
    protocol: 'mcp',
    name: 'tools/call result',
    source: 'MCP specification 2025-06-18, server/tools "Calling Tools" (JSON-RPC 2.0 response)',
    event_type: 'tools/call',
    record: { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '72°F, partly cloudy' }], isError: false } },
    kind: 'jsonrpc_result',
    ids: { jsonrpc_id: 2 },
  },
  {
    protocol: 'mcp',
    name: 'progress notification',
    source: 'MCP specification 2025-06-18, basic/utilities/progress (JSON-RPC 2.0 notification)',
    event_type: 'notifications/progress',
    record: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'abc123', progress: 50, total: 100 } },
    kind: 'jsonrpc_notification',
    ids: { method: 'notifications/progress' },
  },
  // ---- ucp -------------------------------------------------------------------------------------------------------
  {
    protocol: 'ucp',
    name: 'Order',
    source: 'Universal-Commerce-Protocol/ucp 2026-01-23/specification/order "Example"',
    event_type: 'order',
    record: {
      ucp: { version: '2026-01-23', capabilities: { 'dev.ucp.shopping.order': [{ version: '2026-01-23' }] } },
      id: 'order_abc123',
      checkout_id: 'checkout_xyz789',
      permalink_url: 'https://business.example/orders/abc123',
      line_items: [
        {
          id: 'li_shoes',
          item: { id: 'prod_shoes', title: 'Running Shoes', price: 3000 },
          quantity: { total: 3, fulfilled: 3 },
          totals: [{ type: 'total', amount: 9000 }],
          status: 'fulfilled',
        },
      ],
      fulfillment: {
        expectations: [{ id: 'exp_1', line_items: [{ id: 'li_shoes', quantity: 3 }], method_type: 'shipping', destination: {} }],
        events: [{ id: 'evt_1', occurred_at: '2026-01-08T10:30:00Z', type: 'delivered', line_items: [{ id: 'li_shoes', quantity: 3 }] }],
      },
      adjustments: [{ id: 'adj_1', type: 'refund', occurred_at: '2026-01-10T14:30:00Z', status: 'completed', amount: 3000 }],
      totals: [
        { type: 'subtotal', amount: 9000 },
        { type: 'total', amount: 9000 },
      ],
    },
    kind: 'order',
    ids: { order_id: 'order_abc123', checkout_id: 'checkout_xyz789' },
  },
  {
    protocol: 'ucp',
    name: 'Order Event Webhook body',
    source: 'Universal-Commerce-Protocol/ucp 2026-01-23/specification/order "Order Event Webhook" (order + event_id, created_time)',
    event_type: 'order.updated',
    record: {
      ucp: { version: '2026-01-23' },
      id: 'order_abc123',
      checkout_id: 'checkout_xyz789',
      permalink_url: 'https://business.example/orders/abc123',
      line_items: [],
      fulfillment: { expectations: [], events: [] },
      totals: [{ type: 'total', amount: 0 }],
      event_id: 'evt_order_77',
      created_time: '2026-11-26T09:00:00Z',
    },
    kind: 'order_event',
    ids: { event_id: 'evt_order_77', order_id: 'order_abc123', checkout_id: 'checkout_xyz789' },
  },
  {
    protocol: 'ucp',
    name: 'Checkout',
    source: 'Universal-Commerce-Protocol/ucp specification/checkout (id, status, currency, line_items, totals)',
    event_type: 'checkout.completed',
    record: { id: 'chk_1', status: 'completed', currency: 'USD', line_items: [{ id: 'li1' }], totals: [{ type: 'total', amount: 100 }] },
    kind: 'checkout',
    ids: { checkout_id: 'chk_1' },
  },
  // ---- acp -------------------------------------------------------------------------------------------------------
  {
    protocol: 'acp',
    name: 'order_canceled webhook (a type outside the 2026-04-17 enum)',
    source:
      'written by hand after agentic-commerce-protocol spec/2026-04-17/openapi/openapi.agentic_checkout_webhook.yaml WebhookEvent {type, data: EventDataOrder}, Order.status "canceled"',
    event_type: 'order_canceled',
    record: {
      type: 'order_canceled',
      data: {
        type: 'order',
        id: 'ord_123',
        checkout_session_id: 'checkout_session_123',
        permalink_url: 'https://example.com/orders/123',
        status: 'canceled',
      },
    },
    kind: 'order_event',
    ids: { order_id: 'ord_123', checkout_session_id: 'checkout_session_123' },
  },
  {
    protocol: 'acp',
    name: 'order_update webhook with a canceled order',
    source:
      'agentic-commerce-protocol spec/2026-04-17/openapi/openapi.agentic_checkout_webhook.yaml example order_shipped, status canceled',
    event_type: 'order_update',
    record: {
      type: 'order_update',
      data: {
        type: 'order',
        id: 'ord_456',
        checkout_session_id: 'checkout_session_456',
        permalink_url: 'https://example.com/orders/456',
        status: 'canceled',
        adjustments: [{ id: 'adj_1', type: 'refund', occurred_at: '2026-02-10T14:30:00Z', status: 'completed', amount: 10760 }],
      },
    },
    kind: 'order_event',
    ids: { order_id: 'ord_456', checkout_session_id: 'checkout_session_456' },
  },
  {
    protocol: 'acp',
    name: 'Order',
    source: 'agentic-commerce-protocol examples/2026-04-17/orders/shipped-order.json',
    event_type: 'order',
    record: {
      id: 'ord_shipped_456',
      checkout_session_id: 'cs_def123',
      permalink_url: 'https://merchant.example.com/orders/ord_shipped_456',
      status: 'completed',
      line_items: [{ id: 'li_case', title: 'Laptop Sleeve', quantity: { ordered: 1, current: 1, fulfilled: 1 }, unit_price: 4900 }],
    },
    kind: 'order',
    ids: { order_id: 'ord_shipped_456', checkout_session_id: 'cs_def123' },
  },
  {
    protocol: 'acp',
    name: 'CheckoutSession',
    source: 'agentic-commerce-protocol examples/2026-04-17/examples.agentic_checkout.json create_checkout_session_response',
    event_type: 'checkout_session.created',
    record: {
      id: 'checkout_session_123',
      protocol: { version: '2026-04-17' },
      status: 'ready_for_payment',
      currency: 'usd',
      line_items: [{ id: 'line_item_123', item: { id: 'item_123', quantity: 1 }, base_amount: 300, total: 330 }],
      totals: [{ type: 'total', display_text: 'Total', amount: 330 }],
    },
    kind: 'checkout_session',
    ids: { checkout_session_id: 'checkout_session_123' },
  },
];

/** Records of each protocol that no known shape fits: stored all the same, as `unrecognised`. */
export const UNRECOGNISED_RECORDS: { protocol: NativeRecord['protocol']; record: Record<string, unknown> }[] = [
  { protocol: 'ap2', record: { contents: { payment_request: {} } } },
  { protocol: 'a2a', record: { hello: 'world' } },
  { protocol: 'mcp', record: { jsonrpc: '1.0', method: 'x' } },
  { protocol: 'ucp', record: { id: 'chk_1', status: 'paid', currency: 'USD' } },
  { protocol: 'acp', record: { type: 'order_delete', data: {} } },
];
