/**
 * GET /.well-known/paywatch.json over a real socket: valid against its schema as published in the OpenAPI
 * document (ajv, JSON Schema 2020-12), its MCP tool list equal to what a real MCP client lists at the advertised
 * MCP URL, its URLs and limits taken from the configuration, read-only and enabling nothing, linked from
 * /api/status.
 */
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from './helpers.js';

describe('the manifest', () => {
  let f: ApiFixture;
  let base: string;
  beforeAll(async () => {
    f = await apiFixture('sqlite', [], { rateLimitPerMinute: 321, verifyUrl: 'https://check.paywatch.example' });
    await f.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(f.app.server.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    await f?.close();
  });

  it('is valid against the schema the OpenAPI document publishes, and says what the service does and does not do', async () => {
    const doc = (await fetch(`${base}/api/openapi.json`).then((r) => r.json())) as { paths: Record<string, any> };
    const schema = doc.paths['/.well-known/paywatch.json'].get.responses['200'].content['application/json'].schema;
    const r = await fetch(`${base}/.well-known/paywatch.json`);
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    const m = await r.json();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile(schema);
    expect(validate(m), JSON.stringify(validate.errors)).toBe(true);
    // A broken manifest is caught by the same schema.
    expect(validate({ ...m, enables: { ...m.enables, payments: true } })).toBe(false);

    // The listener here is bound to 127.0.0.1:8080 by configuration (the fixture listens on a free port).
    expect(m.api).toMatchObject({ base_url: 'http://127.0.0.1:8080', openapi_url: 'http://127.0.0.1:8080/api/openapi.json', version: '1.0.0', access: 'read-only', authentication: 'none' });
    expect(m.rate_limits.requests_per_minute_per_client).toBe(321);
    expect(m.enables).toMatchObject({ payments: false, mandates: false, agent_identity: false });
    expect(m.trust_check).toMatchObject({ url: 'https://check.paywatch.example/v1/check', access: ['api_key'], free_checks_per_month: 1000, x402_enabled: false });
    expect(m.data_semantics.join(' ')).toMatch(/not a complete feed/);

    const status = await fetch(`${base}/api/status`).then((x) => x.json());
    expect(status.manifest).toBe('http://127.0.0.1:8080/.well-known/paywatch.json');
  });

  it('lists the tools a real MCP client finds at its MCP endpoint', async () => {
    const m = await fetch(`${base}/.well-known/paywatch.json`).then((r) => r.json());
    expect(m.mcp.url).toBe('http://127.0.0.1:8080/api/mcp');
    const client = new Client({ name: 'paywatch-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`)));
    try {
      const { tools } = await client.listTools();
      expect([...m.mcp.tools].sort()).toEqual(tools.map((t) => t.name).sort());
      expect(m.mcp.tools).toHaveLength(6);
    } finally {
      await client.close();
    }
  });
});
