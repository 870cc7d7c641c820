import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS } from '../../src/chain/anvil.js';
import { loadConfig } from '../../src/config.js';
import { startPaidServices, type PaidServices, PATH_USD } from '../../src/demo/paid-services/index.js';
import { startBadServers, type BadServers } from '../helpers/bad-servers.js';
import { serviceId } from '../../src/intel/service-id.js';
import { probeService } from '../../src/intel/probe/index.js';
import {
  bazaarItem,
  collectSource,
  DEFAULT_SOURCES,
  DEFAULT_SOURCES_SPEC,
  mppRegistryServices,
  parseSources,
  type SourceConfig,
} from '../../src/intel/sources/index.js';

describe('source collectors against the local directory and real paid services', () => {
  let ps: PaidServices;
  let bad: BadServers;
  const opts = { allowLoopback: true };
  const svc = (name: string) => ps.services.find((s) => s.name === name)!;
  beforeAll(async () => {
    ps = await startPaidServices();
    bad = await startBadServers();
  });
  afterAll(async () => {
    await ps?.stop();
    await bad?.stop();
  });

  it('reads every Bazaar page (mixed v1/v2 items) and records freshness', async () => {
    const src: SourceConfig = { name: 'local-bazaar', kind: 'bazaar', url: ps.directoryUrl };
    const r = await collectSource(src, null, { ...opts, pageSize: 1 });
    expect(r.freshness).toMatchObject({ name: 'local-bazaar', kind: 'bazaar', last_error: null, item_count: 2 });
    expect(r.freshness.last_attempt_at).not.toBeNull();
    expect(r.freshness.last_success_at).not.toBeNull();
    expect(r.services.map((s) => [s.method, s.url, s.source])).toEqual([
      ['GET', svc('x402-v2-weather').url, 'local-bazaar'],
      ['GET', svc('x402-v1-joke').url, 'local-bazaar'],
    ]);
    const [v2, v1] = r.services;
    expect(v2.offers.map((o) => [o.x402_version, o.network, o.asset, o.amount_atomic, o.source])).toEqual([
      [2, 'eip155:4217', PATH_USD, '10000', 'directory'],
      [2, 'eip155:4217', '0x20c0000000000000000000000000000000000001', '10000', 'directory'],
    ]);
    expect(v1.offers.map((o) => [o.x402_version, o.network, o.amount_atomic, o.amount])).toEqual([[1, 'eip155:84532', '2000', '0.002']]);
    expect(v1.description).toBe('A joke (x402 v1 demo)');
  });

  it('lists a lagging price when the demo is told to (directory drift), while the endpoint answers the live one', async () => {
    ps.setDirectoryPrice('x402-v1-joke', '1500');
    try {
      const r = await collectSource({ name: 'lag', kind: 'bazaar', url: ps.directoryUrl }, null, opts);
      expect(r.services.find((s) => s.url === svc('x402-v1-joke').url)!.offers[0].amount_atomic).toBe('1500');
      const live = await probeService(svc('x402-v1-joke'), opts);
      expect(live.snapshot.offers[0].amount_atomic).toBe('2000');
    } finally {
      ps.setDirectoryPrice('x402-v1-joke', null);
    }
  });

  it('reads the MPP registry format', async () => {
    const r = await collectSource({ name: 'local-mpp', kind: 'mpp-registry', url: `${ps.directoryUrl}/api/services` }, null, opts);
    expect(r.freshness.item_count).toBe(1);
    expect(r.services).toHaveLength(1);
    expect(r.services[0]).toMatchObject({ method: 'GET', url: svc('mpp-search').url, tool: null, source: 'local-mpp' });
    expect(r.services[0].offers[0]).toMatchObject({
      protocol: 'mpp',
      scheme: 'charge',
      method: 'tempo',
      asset: PATH_USD,
      amount_atomic: '10000',
      amount: '0.01',
      decimals: 6,
    });
  });

  it("reads origins' /.well-known/x402 and /openapi.json, and one endpoint gets one id across sources", async () => {
    const wk = await collectSource({ name: 'wk', kind: 'well-known', url: svc('x402-v2-weather').origin }, null, opts);
    expect(wk.services.map((s) => s.url)).toEqual([svc('x402-v2-weather').url]);
    const oa = await collectSource({ name: 'oa', kind: 'openapi', url: svc('mpp-search').origin }, null, opts);
    expect(oa.services).toHaveLength(1);
    expect(oa.services[0].offers[0]).toMatchObject({
      source: 'openapi',
      amount_atomic: '10000',
      pay_to: privateKeyToAccount(ANVIL_KEYS[3]).address.toLowerCase(),
    });
    const bz = await collectSource({ name: 'bz', kind: 'bazaar', url: ps.directoryUrl }, null, opts);
    const idOf = (s: { method: string; url: string; tool: string | null }) => serviceId(s.method, s.url, s.tool);
    expect(idOf(wk.services[0])).toBe(idOf(bz.services[0]));
    const reg = await collectSource({ name: 'reg', kind: 'mpp-registry', url: `${ps.directoryUrl}/api/services` }, null, opts);
    expect(idOf(oa.services[0])).toBe(idOf(reg.services[0]));
  });

  it('keeps the last success when a later collection fails, and never throws', async () => {
    const src: SourceConfig = { name: 'flaky', kind: 'bazaar', url: ps.directoryUrl };
    const ok = await collectSource(src, null, opts);
    const failedRefused = await collectSource(src, ok.freshness); // loopback not allowed now: refused
    expect(failedRefused.services).toEqual([]);
    expect(failedRefused.freshness.last_error).toMatch(/is not allowed \(only public unicast addresses are fetched\)/);
    expect(failedRefused.freshness.last_success_at).toBe(ok.freshness.last_success_at);
    expect(failedRefused.freshness.item_count).toBe(2);
    const notJson = await collectSource({ name: 'x', kind: 'bazaar', url: `${bad.origin}/oversized?bytes=10&` }, null, opts);
    expect(notJson.freshness.last_error).toBeTruthy();
    expect(notJson.freshness.last_success_at).toBeNull();
    const notFound = await collectSource(
      { name: 'y', kind: 'mpp-registry', url: `${svc('x402-v1-joke').origin}/api/services` },
      null,
      opts,
    );
    expect(notFound.freshness.last_error).toMatch(/HTTP 404/);
    const slow = await collectSource({ name: 'z', kind: 'mpp-registry', url: `${bad.origin}/slow?ms=2000` }, null, {
      ...opts,
      timeoutMs: 200,
    });
    expect(slow.freshness.last_error).toMatch(/within 200 ms/);
  });
});

describe('Bazaar item reader', () => {
  it('skips items without a usable http(s) resource, with a warning', () => {
    const warnings: string[] = [];
    expect(bazaarItem({ resource: 'http://[bad', accepts: [] }, 'b', warnings)).toBeNull();
    expect(bazaarItem({ resource: 'ftp://x.example/', accepts: [] }, 'b', warnings)).toBeNull();
    expect(bazaarItem('junk', 'b', warnings)).toBeNull();
    expect(warnings).toHaveLength(3);
    const mcp = bazaarItem(
      { resource: 'https://m.example/mcp', type: 'mcp', metadata: { toolName: 'search' }, accepts: [] },
      'b',
      warnings,
    );
    expect(mcp).toMatchObject({ method: 'POST', tool: 'search', offers: [] });
  });
});

describe('MPP registry reader', () => {
  it('tolerates a bare array, base paths and odd entries', () => {
    const warnings: string[] = [];
    const services = mppRegistryServices(
      [
        {
          id: 'a',
          serviceUrl: 'https://api.a.example/v1',
          endpoints: [
            {
              method: 'post',
              path: '/chat',
              payment: { intent: 'charge', method: 'tempo', currency: PATH_USD, decimals: 6, amount: '1500000' },
            },
            { path: '/x' },
          ],
        },
        { id: 'b', url: 'ftp://nope' },
        {
          id: 'c',
          url: 'https://c.example',
          endpoints: [
            { method: 'GET', path: '/free' },
            { method: 'GET', path: '/var', payment: { intent: 'session', amount: null } },
          ],
        },
      ],
      'reg',
      warnings,
    );
    expect(services.map((s) => [s.method, s.url, s.offers.length])).toEqual([
      ['POST', 'https://api.a.example/v1/chat', 1],
      ['GET', 'https://c.example/free', 0],
      ['GET', 'https://c.example/var', 1],
    ]);
    expect(services[0].offers[0]).toMatchObject({ amount_atomic: '1500000', amount: '1.5', decimals: 6 });
    expect(services[2].offers[0]).toMatchObject({ scheme: 'session', amount_atomic: null, amount: null });
    expect(warnings).toEqual(['service a: endpoint without method or path', 'service b: no http(s) serviceUrl']);
    expect(() => mppRegistryServices({ nope: true }, 'reg', [])).toThrow(/no services array/);
  });
});

describe('sources setting', () => {
  it('has real public defaults', () => {
    expect(parseSources(DEFAULT_SOURCES_SPEC)).toEqual(DEFAULT_SOURCES);
    expect(loadConfig({}, {}).sources).toBe(DEFAULT_SOURCES_SPEC);
  });
  it('reads name=kind:url lists and JSON files', () => {
    expect(parseSources('a=bazaar:https://f.example/x402, mpp-registry:https://r.example/api/services')).toEqual([
      { name: 'a', kind: 'bazaar', url: 'https://f.example/x402' },
      { name: 'mpp-registry@r.example', kind: 'mpp-registry', url: 'https://r.example/api/services' },
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'paywatch-sources-'));
    const file = join(dir, 'sources.json');
    writeFileSync(file, JSON.stringify([{ name: 'o', kind: 'openapi', url: 'https://o.example' }]));
    expect(parseSources(`@${file}`)).toEqual([{ name: 'o', kind: 'openapi', url: 'https://o.example' }]);
    expect(loadConfig({}, { PAYWATCH_SOURCES: `@${file}` }).sources).toBe(`@${file}`);
  });
  it('rejects bad entries with a message naming them', () => {
    expect(() => parseSources('nonsense')).toThrow(/is not \[name=\]kind:url/);
    expect(() => parseSources('gopher:https://x.example')).toThrow(/kind must be one of/);
    expect(() => parseSources('bazaar:file:///etc')).toThrow(/url must be an http\(s\) URL/);
    expect(() => parseSources('a=bazaar:https://x.example,a=openapi:https://y.example')).toThrow(/used twice/);
    expect(() => parseSources('@/nonexistent/file.json')).toThrow(/cannot be read/);
    expect(() => loadConfig({}, { PAYWATCH_SOURCES: 'nonsense' })).toThrow(
      /^invalid PAYWATCH_SOURCES: source entry "nonsense" is not \[name=\]kind:url/,
    );
  });
});
