/**
 * GET /.well-known/paywatch.json over a real socket: valid against its schema as published in the OpenAPI
 * document it names (ajv, JSON Schema 2020-12), its MCP tool list equal to what a real MCP client lists at the
 * advertised MCP URL (all read-only), its base URLs those the request was addressed to (or the configured ones),
 * its limits taken from the configuration, read-only and enabling nothing (no payment flag, access method or price,
 * even with x402 configured), linked from /api/status. That every URL it names answers in `start` and `demo` is
 * test/e2e/manifest-urls.test.ts.
 */
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLL_INTERVAL_SECONDS } from '../../src/domain/filters.js';
import { apiFixture, dereference, type ApiFixture } from './helpers.js';

describe('the manifest', () => {
  let f: ApiFixture;
  let base: string;
  beforeAll(async () => {
    f = await apiFixture('sqlite', [], {
      rateLimitPerMinute: 321,
      verifyUrl: 'https://check.paywatch.example',
      // x402 per-call payment of the trust check configured: the manifest still says nothing of it.
      x402PayTo: '0x3333333333333333333333333333333333333333',
      x402Asset: '0x20c0000000000000000000000000000000000000',
      x402FacilitatorUrl: 'https://facilitator.example',
    });
    await f.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(f.app.server.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    await f?.close();
  });

  it('is valid against the schema the OpenAPI document publishes, and says what the service does and does not do', async () => {
    const r = await fetch(`${base}/.well-known/paywatch.json`);
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    // Its URLs follow this request's Host: no shared cache may serve it to others.
    expect(r.headers.get('cache-control')).toBe('private, max-age=300');
    const m = await r.json();
    // The base URLs are the address this request was sent to (no public URL is configured here).
    expect(m.api).toMatchObject({
      base_url: base,
      openapi_url: `${base}/api/openapi.json`,
      version: '1.0.0',
      access: 'read-only',
      authentication: 'none',
    });
    const doc = (await fetch(m.api.openapi_url).then((x) => x.json())) as { info: { version: string }; paths: Record<string, any> };
    expect(doc.info.version).toBe(m.api.version);
    const schema = dereference(doc, doc.paths['/.well-known/paywatch.json'].get.responses['200'].content['application/json'].schema);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile(schema);
    expect(validate(m), JSON.stringify(validate.errors)).toBe(true);
    // A broken manifest is caught by the same schema.
    expect(validate({ ...m, enables: { ...m.enables, payments: true } })).toBe(false);

    expect(m.rate_limits.requests_per_minute_per_client).toBe(321);
    expect(m.polling.min_interval_seconds).toBe(POLL_INTERVAL_SECONDS);
    expect(m.enables).toMatchObject({ payments: false, mandates: false, agent_identity: false });
    expect(m.trust_check).toEqual({
      url: 'https://check.paywatch.example/v1/check',
      openapi_url: 'https://check.paywatch.example/v1/openapi.json',
      description: expect.stringMatching(/OpenAPI document.*Nothing in this manifest enables a payment/),
    });
    // Read-only access only: no payment flags, access methods or prices anywhere in it, and its schema forbids them.
    const keys: string[] = [];
    const values: unknown[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) {
          keys.push(k);
          walk(x);
        }
      else values.push(v);
    };
    walk(m);
    expect(keys.filter((k) => /x402|price|pay|enabled$|quota|free_checks/i.test(k))).toEqual(['payments']);
    expect(values.filter((v) => v === 'x402' || v === 'api_key')).toEqual([]);
    expect(m.api.access).toBe('read-only');
    expect(validate({ ...m, trust_check: { ...m.trust_check, x402_enabled: true } })).toBe(false);
    expect(validate({ ...m, trust_check: { ...m.trust_check, access: ['api_key', 'x402'] } })).toBe(false);
    expect(m.data_semantics.join(' ')).toMatch(/not a complete feed/);

    const answer = await fetch(`${base}/api/status`);
    expect(answer.headers.get('cache-control')).toBe('private, max-age=5');
    const status = await answer.json();
    expect(status.manifest).toBe(`${base}/.well-known/paywatch.json`);
    expect((await fetch(status.manifest)).status).toBe(200);
  });

  it('lists the tools a real MCP client finds at its MCP endpoint, all read-only', async () => {
    const m = await fetch(`${base}/.well-known/paywatch.json`).then((r) => r.json());
    expect(m.mcp.url).toBe(`${base}/api/mcp`);
    const client = new Client({ name: 'paywatch-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(m.mcp.url)));
    try {
      const { tools } = await client.listTools();
      expect([...m.mcp.tools].sort()).toEqual(tools.map((t) => t.name).sort());
      expect(m.mcp.tools).toHaveLength(14);
      expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("names the configured public URLs instead of the request's address when they are set", async () => {
    const g = await apiFixture('sqlite', [], { publicUrl: 'https://paywatch.example/', verifyUrl: 'https://check.paywatch.example' });
    try {
      const r = await g.app.inject('/.well-known/paywatch.json');
      expect(r.headers['cache-control']).toBe('public, max-age=300');
      const m = r.json();
      expect(m.api.base_url).toBe('https://paywatch.example');
      expect(m.mcp.url).toBe('https://paywatch.example/api/mcp');
      const status = await g.app.inject('/api/status');
      expect(status.json().manifest).toBe('https://paywatch.example/.well-known/paywatch.json');
      expect(status.headers['cache-control']).toBe('public, max-age=5');
    } finally {
      await g.close();
    }
  });
});
