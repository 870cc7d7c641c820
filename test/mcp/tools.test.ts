/**
 * /api/mcp as a client sees it: the official SDK client over a real listener, and raw JSON-RPC checked against the
 * SDK's own zod schemas (@modelcontextprotocol/sdk/types.js), since src/mcp/jsonrpc.ts answers the protocol itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { Ajv } from 'ajv';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  InitializeResultSchema,
  JSONRPCErrorResponseSchema,
  JSONRPCResultResponseSchema,
  ListToolsResultSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config.js';
import { clientKey } from '../../src/limits/client-key.js';
import { heavyReadBudget } from '../../src/limits/heavy-budget.js';
import { MCP_TOOLS } from '../../src/mcp/tools.js';
import { openStore, type Store } from '../../src/store/db.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { seed, SID_A, SID_C } from '../intel/store-fixtures.js';
import type { Config } from '../../src/config.js';

/** Removes the request-time member, which differs between two calls. */
const stable = (body: Record<string, unknown>) => ({ ...body, as_of: 'x' });

/**
 * A JSON-RPC error whose request id could not be read: JSON-RPC 2.0 section 5 (and the SDK's own transport) answer
 * `id: null`, which the SDK's schema (MCP 2025-11-25: id optional) spells as absent.
 */
const rpcFailure = (body: { id?: unknown }) => JSONRPCErrorResponseSchema.parse({ ...body, id: body.id ?? undefined });

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

describe('/api/mcp (official SDK client, SDK schemas)', () => {
  let t: TestDb;
  let store: Store;
  let app: FastifyInstance;
  let config: Config;
  let base: string;
  let client: Client;
  let tools: Tool[];
  beforeAll(async () => {
    t = await createTestDb('sqlite');
    store = await openStore(t.url);
    await seed(store);
    config = loadConfig({ db: t.url }, {});
    app = await buildApp({ store, config, components: new Map() }, { logger: false });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    client = new Client({ name: 'paywatch-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`)));
    // Listing first makes the SDK client check every later structuredContent against the tool's outputSchema.
    tools = (await client.listTools()).tools;
  });
  afterAll(async () => {
    await client?.close();
    await app?.close();
    await store?.close();
    await t?.drop();
  });

  const http = async (path: string) => (await fetch(`${base}${path}`)).json() as Promise<Record<string, unknown>>;
  const post = (body: unknown, headers: Record<string, string> = MCP_HEADERS) =>
    fetch(`${base}/api/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });

  it('lists every tool with title, read-only annotations and input and output schemas', () => {
    expect(tools.map((x) => x.name)).toEqual(Object.keys(MCP_TOOLS));
    expect(tools).toHaveLength(14);
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.annotations).toEqual({ title: tool.title, readOnlyHint: true, openWorldHint: false });
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.description).toContain(MCP_TOOLS[tool.name as keyof typeof MCP_TOOLS]);
    }
    const search = tools.find((x) => x.name === 'search_providers')!;
    expect(Object.keys(search.inputSchema.properties ?? {}).sort()).toEqual([
      'check',
      'include_stale',
      'limit',
      'network',
      'offset',
      'pay_to',
      'q',
    ]);
    const txs = tools.find((x) => x.name === 'search_transactions')!;
    expect(Object.keys(txs.inputSchema.properties ?? {}).sort()).toEqual([
      'asset',
      'category',
      'exchange',
      'execution',
      'limit',
      'offset',
      'payer',
      'protocol',
      'provider',
      'q',
      'recipient',
      'service_id',
      'since',
      'until',
    ]);
  });

  it('initialize answers the SDK schema, the asked protocol version and no listChanged', async () => {
    const res = await post({
      jsonrpc: '2.0',
      id: 7,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    expect(res.status).toBe(200);
    const msg = JSONRPCResultResponseSchema.parse(await res.json());
    expect(msg.id).toBe(7);
    const init = InitializeResultSchema.parse(msg.result);
    expect(init.protocolVersion).toBe('2025-06-18');
    expect(init.capabilities).toEqual({ tools: {} });
    expect(init.serverInfo.name).toBe('paywatch');
    expect(init.instructions).toMatch(/not a complete feed/);
    expect(client.getServerCapabilities()?.tools?.listChanged).toBeUndefined();
  });

  it('tools/list and tools/call answer the SDK schemas; every structuredContent matches its outputSchema', async () => {
    const list = JSONRPCResultResponseSchema.parse(await (await post({ jsonrpc: '2.0', id: 'a', method: 'tools/list' })).json());
    expect(ListToolsResultSchema.parse(list.result).tools).toHaveLength(14);
    const ajv = new Ajv({ strict: false });
    for (const tool of tools) {
      const args =
        tool.name === 'get_provider'
          ? { domain: 'api.alpha.example' }
          : tool.name === 'get_service_history'
            ? { service_id: SID_C }
            : tool.name === 'get_rankings'
              ? { kind: 'services' }
              : tool.name === 'get_service_payments'
                ? { provider: 'api.alpha.example' }
                : {};
      if (tool.name === 'get_transaction') continue; // no transaction in this store: test/mcp/twins.test.ts covers it
      const raw = JSONRPCResultResponseSchema.parse(
        await (await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool.name, arguments: args } })).json(),
      );
      const r = CallToolResultSchema.parse(raw.result);
      expect(r.isError, `${tool.name}: ${JSON.stringify(r.content)}`).toBeFalsy();
      expect(ajv.validate(tool.outputSchema!, r.structuredContent), `${tool.name}: ${ajv.errorsText()}`).toBe(true);
      expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual(r.structuredContent);
    }
  });

  it.each([
    ['search_providers', { q: 'example', limit: 5 }, '/api/providers?q=example&limit=5'],
    ['search_providers', { include_stale: true }, '/api/providers?include_stale=true'],
    ['get_provider', { domain: 'gone.example' }, '/api/providers/gone.example'],
    ['get_intelligence_status', {}, '/api/intelligence/status'],
    ['get_service_offers', { service_id: SID_A }, `/api/intelligence/offers?service_id=${SID_A}`],
    ['get_service_changes', { domain: 'api.alpha.example', since: 0 }, '/api/intelligence/changes?domain=api.alpha.example&since=0'],
    ['get_service_history', { service_id: SID_C, limit: 2, offset: 1 }, `/api/intelligence/history?service_id=${SID_C}&limit=2&offset=1`],
    ['get_coverage', {}, '/api/coverage'],
  ])('%s %j answers what its HTTP twin answers (SDK client)', async (name, args, path) => {
    const r = await client.callTool({ name, arguments: args });
    expect(r.isError).toBeFalsy();
    const twin = await http(path);
    expect(stable(r.structuredContent as Record<string, unknown>)).toEqual(stable(twin));
    expect(stable(JSON.parse((r.content as { text: string }[])[0].text))).toEqual(stable(twin));
  });

  it.each([
    ['search_providers', { limit: 0 }, '/api/providers?limit=0'],
    ['search_providers', { offset: 20_001 }, '/api/providers?offset=20001'],
    ['search_providers', { q: '<b>' }, '/api/providers?q=%3Cb%3E'],
    ['search_providers', { pay_to: '0xabc' }, '/api/providers?pay_to=0xabc'],
    ['get_provider', { domain: 'nobody.example' }, '/api/providers/nobody.example'],
    ['get_provider', { domain: 'api.alpha.example', pay_to: '0xabc' }, '/api/providers/api.alpha.example?pay_to=0xabc'],
    ['get_intelligence_status', { pay_to: '0xabc' }, '/api/intelligence/status?pay_to=0xabc'],
    ['get_service_offers', { service_id: 'xyz' }, '/api/intelligence/offers?service_id=xyz'],
    ['get_service_history', {}, '/api/intelligence/history'],
    ['get_service_changes', { since: 10, until: 5 }, '/api/intelligence/changes?since=10&until=5'],
    ['search_transactions', { limit: 0 }, '/api/transactions?limit=0'],
    ['search_transactions', { execution: 'maybe' }, '/api/transactions?execution=maybe'],
    ['get_transaction', { hash: '0x00' }, '/api/transactions/0x00'],
    ['get_transaction', { hash: `0x${'ab'.repeat(32)}` }, `/api/transactions/0x${'ab'.repeat(32)}`],
    ['get_metrics_series', { bucket: 'week' }, '/api/metrics/series?bucket=week'],
    ['get_status', { x: 1 }, '/api/status?x=1'],
  ])('%s %j is a tool error with the sentence of its HTTP twin', async (name, args, path) => {
    const r = await client.callTool({ name, arguments: args });
    expect(r.isError).toBe(true);
    const res = await fetch(`${base}${path}`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(JSON.parse((r.content as { text: string }[])[0].text)).toEqual(await res.json());
  });

  it.each([
    ['params missing', -32602, { jsonrpc: '2.0', id: 1, method: 'tools/call' }],
    ['a name that is not a string', -32602, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 42 } }],
    [
      'arguments that are not an object',
      -32602,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_status', arguments: [1] } },
    ],
    ['an unknown tool', -32602, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'drop_tables' } }],
    ['an unknown method', -32601, { jsonrpc: '2.0', id: 1, method: 'resources/list' }],
    ['no jsonrpc member', -32600, { id: 1, method: 'ping' }],
  ])('%s is JSON-RPC error %d', async (_what, code, body) => {
    const res = await post(body);
    const msg = JSONRPCErrorResponseSchema.parse(await res.json());
    expect(msg.error.code).toBe(code);
    expect(msg.id).toBe(1);
  });

  it('an empty batch is -32600; a batch is answered in order; notifications alone are 202 without a body', async () => {
    const empty = await post([]);
    expect(empty.status).toBe(400);
    expect(rpcFailure(await empty.json()).error.code).toBe(-32600);

    const batch = await post([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_coverage', arguments: {} } },
    ]);
    expect(batch.status).toBe(200);
    const answers = (await batch.json()) as unknown[];
    expect(answers.map((a) => JSONRPCResultResponseSchema.parse(a).id)).toEqual([1, 2]);

    const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(note.status).toBe(202);
    expect(await note.text()).toBe('');
  });

  it('requires Accept: application/json, text/event-stream and a supported protocol version', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    expect((await post(body, { 'content-type': 'application/json', accept: 'application/json' })).status).toBe(406);
    expect((await post(body, { ...MCP_HEADERS, 'mcp-protocol-version': '1999-01-01' })).status).toBe(400);
    const good = await post(body, { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18' });
    expect(good.status).toBe(200);
    expect((await good.json()).result.tools).toHaveLength(14);
  });

  it('refuses GET on the stateless endpoint with 405 {error}', async () => {
    const r = await fetch(`${base}/api/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(r.status).toBe(405);
    expect((await r.json()).error).toMatch(/stateless/);
  });

  it('a heavy tool call takes a unit of the same per-client budget as its HTTP twin', async () => {
    const budget = heavyReadBudget(config);
    const me = { ip: '127.0.0.1' } as never;
    const held = Array.from({ length: config.heavyPerClient }, () => budget.acquire(me));
    try {
      expect(budget.held(clientKey('127.0.0.1'))).toBe(config.heavyPerClient);
      const r = await client.callTool({ name: 'get_metrics', arguments: {} });
      expect(r.isError).toBe(true);
      const twin = await fetch(`${base}/api/metrics`);
      expect(twin.status).toBe(429);
      expect(JSON.parse((r.content as { text: string }[])[0].text)).toEqual(await twin.json());
      // A default transactions page is not heavy (rank arithmetic only), on either face.
      expect((await client.callTool({ name: 'search_transactions', arguments: {} })).isError).toBeFalsy();
    } finally {
      for (const release of held) release();
    }
    expect((await client.callTool({ name: 'get_metrics', arguments: {} })).isError).toBeFalsy();
  });

  it('names the tools in the OpenAPI document', async () => {
    const doc = await http('/api/openapi.json');
    const text = JSON.stringify((doc.paths as Record<string, unknown>)['/api/mcp']);
    for (const tool of Object.keys(MCP_TOOLS)) expect(text).toContain(tool);
  });

  it('serves /llms.txt naming both MCP endpoints, every tool and the OpenAPI documents', async () => {
    const res = await fetch(`${base}/llms.txt`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/^# paywatch\n\n> /);
    for (const tool of [...Object.keys(MCP_TOOLS), 'check_url']) expect(text).toContain(tool);
    expect(text).toContain(`${base}/api/mcp`);
    expect(text).toContain('/v1/mcp');
    expect(text).toContain(`${base}/api/openapi.json`);
    expect(text).toMatch(/not a complete feed/);
    expect(text).toMatch(/null means unknown/);
  });
});

describe('/api/mcp batches and the request limit', () => {
  let t: TestDb;
  let store: Store;
  let app: FastifyInstance;
  let base: string;
  beforeAll(async () => {
    t = await createTestDb('sqlite');
    store = await openStore(t.url);
    app = await buildApp(
      { store, config: loadConfig({ db: t.url }, { PAYWATCH_RATE_LIMIT: '40' }), components: new Map() },
      { logger: false },
    );
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await t?.drop();
  });

  const post = (body: unknown) => fetch(`${base}/api/mcp`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(body) });
  const pings = (n: number) => Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'ping' }));

  it('counts every message of a batch as one request, and refuses a batch over 100 messages', async () => {
    const big = await post(pings(101));
    expect(big.status).toBe(400);
    expect(rpcFailure(await big.json()).error.code).toBe(-32600);
    const first = await post(pings(30));
    expect(first.status).toBe(200);
    expect((await first.json()) as unknown[]).toHaveLength(30);
    const second = await post(pings(30));
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await second.json()).error).toMatch(/^rate limited: at most 40 requests per minute per client/);
    // The allowance is spent for every route, not only for MCP.
    expect((await fetch(`${base}/api/coverage`)).status).toBe(429);
  });
});
