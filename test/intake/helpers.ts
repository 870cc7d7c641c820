/**
 * Intake test helpers: the real CLI (child process) issuing connections and producers, an in-process app
 * listening on a loopback port, signed deliveries over real HTTP, and one native record per protocol.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/db.js';
import { signDelivery } from '../../src/intake/signature.js';
import { runCli } from '../e2e/cli.js';

/** A fresh master secret for one test file (hex text form). */
export const SECRET = randomBytes(32).toString('hex');

/** Runs `paywatch operator ARGS --db DB --json` and returns its parsed stdout. @throws when it exits non-zero */
export async function operatorCli<T = Record<string, unknown>>(db: string, args: string[], env: Record<string, string> = {}): Promise<T> {
  const r = await runCli(['operator', ...args, '--db', db, '--json'], { PAYWATCH_SECRET: SECRET, ...env });
  if (r.code !== 0) throw new Error(`paywatch operator ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** An app over its own store, listening on 127.0.0.1 at a free port. */
export interface Server {
  url: string;
  store: Store;
  app: FastifyInstance;
  close(): Promise<void>;
}

/**
 * Builds and starts the app in this process on a free loopback port. `env` adds settings (e.g.
 * PAYWATCH_INTAKE_RATE_LIMIT); `logger` gives pino options (e.g. a stream that captures log lines), else silence.
 */
export async function startServer(db: string, env: Record<string, string> = {}, logger: object | false = false): Promise<Server> {
  const config: Config = loadConfig({ db, port: 0, logLevel: 'silent' }, { PAYWATCH_SECRET: SECRET, ...env });
  const store = await openStore(db);
  const app = await buildApp({ store, config, components: new Map() }, { logger });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    store,
    app,
    close: async () => {
      await app.close();
      await store.close();
    },
  };
}

/** Options of one signed delivery; defaults make a valid one. */
export interface Delivery {
  path?: string;
  /** Header naming the sender (X-SVC-Connection or X-SVC-Producer). */
  senderHeader?: string;
  senderId: string;
  key: string;
  body: string | Buffer;
  timestamp?: number;
  /** Sign these bytes instead of the body (to send a body that differs from what was signed). */
  signedBody?: string | Buffer;
  signature?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

/** Current UTC Unix seconds. */
export const now = () => Math.floor(Date.now() / 1000);

/** POSTs a signed delivery; returns status, headers and parsed JSON body. */
export async function deliver(base: string, d: Delivery): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const ts = d.timestamp ?? now();
  const sig = d.signature ?? signDelivery(d.key, ts, d.signedBody ?? d.body);
  const res = await fetch(`${base}${d.path ?? '/api/protocol-events'}`, {
    method: 'POST',
    headers: {
      'content-type': d.contentType ?? 'application/json',
      [d.senderHeader ?? 'x-svc-connection']: d.senderId,
      'x-svc-timestamp': String(ts),
      'x-svc-signature': sig,
      ...d.headers,
    },
    body: typeof d.body === 'string' ? d.body : new Uint8Array(d.body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

/** A minimal valid native record per protocol (discriminators and ids, from docs/intake.md). */
export const RECORDS: Record<string, { event_type: string; record: unknown }> = {
  ap2: {
    event_type: 'cart_mandate',
    record: {
      contents: { id: 'cart-1', payment_request: { method_data: [] }, cart_expiry: '2026-12-01T00:00:00Z', merchant_name: 'M' },
      merchant_authorization: 'eyJ...',
    },
  },
  a2a: {
    event_type: 'status-update',
    record: {
      kind: 'status-update',
      taskId: 't-1',
      contextId: 'c-1',
      status: { state: 'completed', timestamp: '2026-11-21T00:00:00Z' },
      final: true,
    },
  },
  mcp: { event_type: 'tools/call', record: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'search' } } },
  ucp: {
    event_type: 'checkout.updated',
    record: { id: 'chk_1', status: 'completed', currency: 'USD', line_items: [{ id: 'li1' }], totals: [{ type: 'total', amount: 100 }] },
  },
  acp: {
    event_type: 'order_create',
    record: { type: 'order_create', data: { type: 'order', checkout_session_id: 'cs_1', status: 'created' } },
  },
};

/** A protocol-event envelope as JSON text (the exact bytes that get signed). */
export function envelope(
  protocol: string,
  eventId: string,
  environment: 'test' | 'live' = 'test',
  record: unknown = RECORDS[protocol].record,
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    schema: 'paywatch.protocol.v1',
    protocol,
    event_id: eventId,
    event_type: RECORDS[protocol]?.event_type ?? 'x',
    event_time: now() - 60,
    environment,
    record,
    ...extra,
  });
}

export const SERVICE_ID = 'a'.repeat(64);
/** The result bytes whose sha256 is every test outcome's result_fingerprint. */
export const RESULT = Buffer.from('the result the producer bought');

/** An outcome record as JSON text; `patch` replaces top-level members. */
export function outcome(eventId: string, patch: Record<string, unknown> = {}): string {
  return JSON.stringify({
    schema: 'paywatch.outcome.v1',
    event_id: eventId,
    environment: 'test',
    occurred_at: now() - 120,
    task_id: 'task-1',
    attempt_id: 'attempt-1',
    service: { service_id: SERVICE_ID },
    charge: {
      amount: '0.1',
      asset: '0x20c0000000000000000000000000000000000000',
      network: 'eip155:4217',
      tx_hash: `0x${'b'.repeat(64)}`,
      protocol: 'mpp',
    },
    result_fingerprint: createHash('sha256').update(RESULT).digest('hex'),
    evaluation: { version: 'rubric-2', verdict: 'pass', score: 0.9, criteria: { complete: true } },
    ...patch,
  });
}

/** Counts stored protocol events and outcomes (both environments). */
export async function counts(store: Store): Promise<{ events: number; outcomes: number }> {
  const e = await store.db
    .selectFrom('intake_protocol_events')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  const o = await store.db
    .selectFrom('intake_outcomes')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return { events: Number(e.n), outcomes: Number(o.n) };
}

/** Waits until the current second has at least `ms` milliseconds left, so a timestamp computed now is still "now" at the server. */
export async function earlyInSecond(ms = 600): Promise<void> {
  while (1000 - (Date.now() % 1000) < ms) await new Promise((r) => setTimeout(r, 20));
}
