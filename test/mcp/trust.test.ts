/**
 * The trust check as an MCP tool (POST /v1/mcp on the trust-check listener, src/trust/mcp.ts), through the
 * official SDK client: the same verdict as POST /v1/check, the same key, metered and limited the same way, and the
 * errors of /v1/check word for word; a keyless call names the free key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { setUsage, usageCounter } from '../../src/store/trust/index.js';
import { issueApiKey } from '../../src/trust/keys.js';
import { utcMonth } from '../../src/trust/metering.js';
import { missingKeyMessage } from '../../src/trust/mcp.js';
import { startBadServers, type BadServers } from '../helpers/bad-servers.js';
import { post, startVerify, type VerifyHarness } from '../trust/helpers.js';

/** Members that differ between two checks of the same URL (the time of the check, and what is computed from it or the fetched bytes' archive). */
const stable = (a: Record<string, unknown>) => {
  const signals = a.signals as { recent_changes?: Record<string, unknown> };
  return {
    ...a,
    checked_at: 'x',
    snapshot_id: 'x',
    evidence_hash: typeof a.evidence_hash,
    signals: { ...signals, recent_changes: { ...signals.recent_changes, since: 'x' } },
  };
};

describe('/v1/mcp check_url (official SDK client)', () => {
  let bad: BadServers;
  let h: VerifyHarness;
  const clients: Client[] = [];
  const connect = async (authorization?: string) => {
    const c = new Client({ name: 'paywatch-test', version: '1.0.0' });
    const headers: Record<string, string> = authorization ? { authorization } : {};
    await c.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/v1/mcp`), { requestInit: { headers } }));
    clients.push(c);
    return c;
  };
  beforeAll(async () => {
    bad = await startBadServers();
    h = await startVerify('sqlite');
  }, 30_000);
  afterAll(async () => {
    for (const c of clients) await c.close();
    await h?.close();
    await bad?.stop();
  });

  it('lists check_url with url in, the verdict object out, read-only annotations; no key needed to list', async () => {
    const c = await connect();
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual(['check_url', 'check_pay_to']);
    const [tool, payTo] = tools;
    expect(Object.keys(tool.inputSchema.properties ?? {})).toEqual(['url', 'policy']);
    expect(Object.keys(payTo.inputSchema.properties ?? {})).toEqual(['pay_to', 'network']);
    expect(payTo.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(Object.keys(tool.outputSchema?.properties ?? {})).toEqual(
      expect.arrayContaining(['verdict', 'reasons', 'signals', 'snapshot_id']),
    );
    expect(tool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(c.getServerCapabilities()).toEqual({ tools: {} });
  });

  it('with a key: the verdict /v1/check answers, metered once per successful check like /v1/check', async () => {
    const { key, row } = await issueApiKey(h.store, 'free', 'operator');
    const auth = `Bearer ${key}`;
    const c = await connect(auth);
    await c.listTools(); // so the client checks structuredContent against the outputSchema
    const url = `${bad.origin}/free`;
    const r = await c.callTool({ name: 'check_url', arguments: { url } });
    expect(r.isError).toBeFalsy();
    const answer = r.structuredContent as Record<string, unknown>;
    expect(JSON.parse((r.content as { text: string }[])[0].text)).toEqual(answer);
    expect(await usageCounter(h.store, row.id, utcMonth())).toMatchObject({ used: 1, reserved: 0 });
    const twin = await post(h.url, '/v1/check', { url }, { authorization: auth });
    expect(twin.status).toBe(200);
    expect(stable(answer)).toEqual(stable(twin.json));
    expect(await usageCounter(h.store, row.id, utcMonth())).toMatchObject({ used: 2, reserved: 0 });
  });

  it('check_pay_to: the answer of POST /v1/check/pay-to, metered; bad arguments are its 400s; no key names both ways', async () => {
    const { key, row } = await issueApiKey(h.store, 'free', 'operator');
    const auth = `Bearer ${key}`;
    const c = await connect(auth);
    await c.listTools();
    const args = { pay_to: `0x${'ab'.repeat(20)}` };
    const r = await c.callTool({ name: 'check_pay_to', arguments: args });
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    const answer = r.structuredContent as Record<string, unknown>;
    expect(answer).toMatchObject({ pay_to: args.pay_to, network: 'eip155:4217', verdict: 'caution' });
    const twin = await post(h.url, '/v1/check/pay-to', args, { authorization: auth });
    expect(stable(answer)).toEqual(stable(twin.json));
    expect(await usageCounter(h.store, row.id, utcMonth())).toMatchObject({ used: 2, reserved: 0 });
    for (const bad of [{ pay_to: '0x1' }, { pay_to: args.pay_to, url: 'https://example.com' }]) {
      const e = await c.callTool({ name: 'check_pay_to', arguments: bad });
      const t = await post(h.url, '/v1/check/pay-to', bad, { authorization: auth });
      expect(t.status).toBe(400);
      expect(e.isError).toBe(true);
      expect(JSON.parse((e.content as { text: string }[])[0].text)).toEqual(t.json);
    }
    const keyless = await (await connect()).callTool({ name: 'check_pay_to', arguments: args });
    expect(JSON.parse((keyless.content as { text: string }[])[0].text)).toEqual({ error: missingKeyMessage(false) });
  });

  it('bad arguments, a refused address, a bad key and a spent quota are the errors of /v1/check, never metered', async () => {
    const { key, row } = await issueApiKey(h.store, 'free', 'operator');
    const auth = `Bearer ${key}`;
    const c = await connect(auth);
    const cases: [Record<string, unknown>, unknown][] = [
      [{ url: 'ftp://example.com/x' }, { url: 'ftp://example.com/x' }],
      [{}, {}],
      [
        { url: 'https://example.com', extra: 1 },
        { url: 'https://example.com', extra: 1 },
      ],
      [{ url: 'http://10.0.0.1/' }, { url: 'http://10.0.0.1/' }],
    ];
    for (const [args, body] of cases) {
      const r = await c.callTool({ name: 'check_url', arguments: args });
      const twin = await post(h.url, '/v1/check', body, { authorization: auth });
      expect(twin.status, JSON.stringify(args)).toBe(400);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(JSON.parse((r.content as { text: string }[])[0].text), JSON.stringify(args)).toEqual(twin.json);
    }
    const used = await usageCounter(h.store, row.id, utcMonth());
    expect(used === null || (used.used === 0 && used.reserved === 0)).toBe(true);

    await setUsage(h.store, row.id, utcMonth(), 1000);
    const spent = await c.callTool({ name: 'check_url', arguments: { url: `${bad.origin}/free` } });
    const spentTwin = await post(h.url, '/v1/check', { url: `${bad.origin}/free` }, { authorization: auth });
    expect(spentTwin.status).toBe(429);
    expect(spent.isError).toBe(true);
    expect(JSON.parse((spent.content as { text: string }[])[0].text)).toEqual(spentTwin.json);

    const wrong = await connect(`Bearer pw_${'A'.repeat(43)}`);
    const r = await wrong.callTool({ name: 'check_url', arguments: { url: `${bad.origin}/free` } });
    expect(r.isError).toBe(true);
    expect(JSON.parse((r.content as { text: string }[])[0].text)).toEqual({ error: 'invalid or revoked API key' });
  });

  it('without a key: a tool error naming the free key (and x402 on /v1/check when it is offered)', async () => {
    const c = await connect();
    const r = await c.callTool({ name: 'check_url', arguments: { url: `${bad.origin}/free` } });
    expect(r.isError).toBe(true);
    const { error } = JSON.parse((r.content as { text: string }[])[0].text);
    expect(error).toBe(missingKeyMessage(false));
    expect(error).toMatch(/Authorization: Bearer <API_KEY>.*POST \/v1\/keys/);
    expect(missingKeyMessage(true)).toMatch(/POST \/v1\/keys.*x402 on POST \/v1\/check.*x402 inside MCP is not offered/);
  });

  it("the trust check's OpenAPI document describes /v1/mcp", async () => {
    const doc = (await (await fetch(`${h.url}/v1/openapi.json`)).json()) as { paths: Record<string, { post?: { description?: string } }> };
    expect(doc.paths['/v1/mcp']?.post?.description).toMatch(/check_url/);
    expect(doc.paths['/v1/mcp']?.post?.description).toMatch(/x402 payment inside MCP is not offered/);
  });
});
