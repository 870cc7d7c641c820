import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/db.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { seed, SID_A, SID_C } from '../intel/store-fixtures.js';

/** Removes the request-time member, which differs between two calls. */
const stable = (body: Record<string, unknown>) => ({ ...body, as_of: 'x' });

describe('MCP tools over real HTTP (official SDK client)', () => {
  let t: TestDb;
  let store: Store;
  let app: FastifyInstance;
  let base: string;
  let client: Client;
  beforeAll(async () => {
    t = await createTestDb('sqlite');
    store = await openStore(t.url);
    await seed(store);
    app = await buildApp({ store, config: loadConfig({ db: t.url }, {}), components: new Map() }, { logger: false });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    client = new Client({ name: 'paywatch-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`)));
  });
  afterAll(async () => {
    await client?.close();
    await app?.close();
    await store?.close();
    await t?.drop();
  });

  const http = async (path: string) => (await fetch(`${base}${path}`)).json() as Promise<Record<string, unknown>>;

  it('lists the six read-only tools with input and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual([
      'get_intelligence_status',
      'get_provider',
      'get_service_changes',
      'get_service_history',
      'get_service_offers',
      'search_providers',
    ]);
    const search = tools.find((x) => x.name === 'search_providers')!;
    expect(Object.keys(search.inputSchema.properties ?? {}).sort()).toEqual(['check', 'include_stale', 'limit', 'network', 'offset', 'q']);
    expect(search.outputSchema?.properties).toHaveProperty('providers');
    expect(search.annotations?.readOnlyHint).toBe(true);
  });

  it.each([
    ['search_providers', { q: 'example', limit: 5 }, '/api/providers?q=example&limit=5'],
    ['search_providers', { include_stale: true }, '/api/providers?include_stale=true'],
    ['get_provider', { domain: 'gone.example' }, '/api/providers/gone.example'],
    ['get_intelligence_status', {}, '/api/intelligence/status'],
    ['get_service_offers', { service_id: SID_A }, `/api/intelligence/offers?service_id=${SID_A}`],
    ['get_service_changes', { domain: 'api.alpha.example', since: 0 }, '/api/intelligence/changes?domain=api.alpha.example&since=0'],
    ['get_service_history', { service_id: SID_C, limit: 2, offset: 1 }, `/api/intelligence/history?service_id=${SID_C}&limit=2&offset=1`],
  ])('%s %j answers what its HTTP twin answers', async (name, args, path) => {
    const r = await client.callTool({ name, arguments: args });
    expect(r.isError).toBeFalsy();
    const twin = await http(path);
    expect(stable(r.structuredContent as Record<string, unknown>)).toEqual(stable(twin));
    expect(stable(JSON.parse((r.content as { text: string }[])[0].text))).toEqual(stable(twin));
  });

  it.each([
    ['search_providers', { limit: 0 }, /limit/],
    ['search_providers', { offset: 20_001 }, /offset/],
    ['search_providers', { q: '<b>' }, /q/],
    ['get_service_offers', { service_id: 'xyz' }, /service_id/],
    ['get_service_history', {}, /'domain'/],
    ['get_service_changes', { since: 10, until: 5 }, /'since': must be less than until/],
    ['get_provider', { domain: 'nobody.example' }, /not listed/],
  ])('%s %j is a tool error naming the problem', async (name, args, message) => {
    const r = await client.callTool({ name, arguments: args });
    expect(r.isError).toBe(true);
    expect((r.content as { text: string }[])[0].text).toMatch(message);
  });

  it.each([
    ['search_providers', { pay_to: '0xabc' }],
    ['get_provider', { domain: 'api.alpha.example', pay_to: '0xabc' }],
    ['get_intelligence_status', { pay_to: '0xabc' }],
    ['get_service_offers', { service_id: SID_A, pay_to: '0xabc' }],
    ['get_service_changes', { pay_to: '0xabc' }],
    ['get_service_history', { domain: 'api.alpha.example', pay_to: '0xabc' }],
  ])('%s %j is a tool error naming the unknown argument', async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    expect(r.isError).toBe(true);
    expect((r.content as { text: string }[])[0].text).toMatch(/unknown argument 'pay_to'$/);
  });

  it('requires Accept: application/json, text/event-stream on POST', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const bad = await fetch(`${base}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body,
    });
    expect(bad.status).toBe(406);
    const good = await fetch(`${base}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
    });
    expect(good.status).toBe(200);
    expect((await good.json()).result.tools).toHaveLength(6);
  });

  it('refuses GET on the stateless endpoint with 405 {error}', async () => {
    const r = await fetch(`${base}/api/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(r.status).toBe(405);
    expect((await r.json()).error).toMatch(/stateless/);
  });

  it('names the tools in the OpenAPI document', async () => {
    const doc = await http('/api/openapi.json');
    const text = JSON.stringify((doc.paths as Record<string, unknown>)['/api/mcp']);
    for (const tool of [
      'search_providers',
      'get_provider',
      'get_intelligence_status',
      'get_service_offers',
      'get_service_changes',
      'get_service_history',
    ])
      expect(text).toContain(tool);
  });
});
