/**
 * SSRF: the trust check refuses private, loopback, link-local and metadata addresses in every spelling, a DNS
 * name resolving to loopback, and a redirect chain ending at a refused address — without ever connecting to
 * them. Counting TCP listeners stand where a wrongly allowed connection would land.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:net';
import { lookup } from 'node:dns/promises';
import { startBadServers, type BadServers } from '../helpers/bad-servers.js';
import { codes, post, startVerify, type VerifyHarness } from './helpers.js';
import { issueApiKey } from '../../src/trust/keys.js';

/** A TCP listener that only counts connections. */
async function counter(host: string): Promise<{ server: Server; port: number; connections: () => number }> {
  let n = 0;
  const server = createServer((s) => {
    n++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  return { server, port: (server.address() as { port: number }).port, connections: () => n };
}

let strict: VerifyHarness; // loopback refused (production setting)
let lenient: VerifyHarness; // loopback allowed (so a loopback target can redirect)
let bad: BadServers;
let loop: Awaited<ReturnType<typeof counter>>;
let any: Awaited<ReturnType<typeof counter>>;
let strictKey: string;
let lenientKey: string;

beforeAll(async () => {
  loop = await counter('127.0.0.1');
  any = await counter('0.0.0.0');
  bad = await startBadServers();
  strict = await startVerify(
    'sqlite',
    { verifyAllowLoopback: '0' },
    { resolve: async (name) => (name === 'evil.test' ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.1.2.3', family: 4 }]) },
  );
  // internal.test stands for a name of the operator's internal DNS; every other name resolves as usual.
  lenient = await startVerify(
    'sqlite',
    {},
    { resolve: async (name) => (name === 'internal.test' ? [{ address: '10.9.8.7', family: 4 }] : lookup(name, { all: true })) },
  );
  strictKey = (await issueApiKey(strict.store, 'free', 'operator')).key;
  lenientKey = (await issueApiKey(lenient.store, 'free', 'operator')).key;
}, 30_000);

afterAll(async () => {
  await strict?.close();
  await lenient?.close();
  await bad?.stop();
  loop?.server.close();
  any?.server.close();
});

describe('SSRF refusals', () => {
  it('literal private, loopback, link-local and metadata addresses, decimal, hex and IPv6-mapped spellings, and a name resolving to loopback: 400, no connection', async () => {
    const p = loop.port;
    const urls = [
      `http://127.0.0.1:${p}/paid`,
      `http://2130706433:${p}/paid`,
      `http://0x7f.1:${p}/paid`,
      `http://0177.0.0.1:${p}/paid`,
      `http://[::ffff:127.0.0.1]:${p}/paid`,
      `http://[::ffff:7f00:1]:${p}/paid`,
      `http://[::1]:${p}/paid`,
      `http://evil.test:${p}/paid`, // resolves (by the test resolver) to 127.0.0.1
      `http://0.0.0.0:${any.port}/paid`,
      `http://0:${any.port}/paid`,
      'http://10.0.0.1/paid',
      'http://192.168.1.1/paid',
      'http://172.16.0.1/paid',
      'http://100.64.0.1/paid',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00::1]/paid',
      'http://[fe80::1]/paid',
      'http://[::ffff:169.254.169.254]/latest/meta-data/',
      'https://internal.example/paid', // resolves (by the test resolver) to 10.1.2.3
      `http://[::127.0.0.1]:${p}/paid`, // IPv4-compatible, [::7f00:1]
      `http://[::ffff:0:7f00:1]:${p}/paid`, // SIIT (RFC 6145)
      `http://[64:ff9b::7f00:1]:${p}/paid`, // NAT64
      `http://[2002:7f00:1::]:${p}/paid`, // 6to4
      `http://[2001::7f00:1]:${p}/paid`, // Teredo
    ];
    for (const url of urls) {
      const r = await post(strict.url, '/v1/check', { url }, { authorization: `Bearer ${strictKey}` });
      expect(r.status, url).toBe(400);
      expect(r.json.error, url).toMatch(/refused url/);
      // What a name resolved to is never told (an internal DNS oracle), nor its kind of range.
      expect(r.json.error, url).not.toMatch(/10\.1\.2\.3|private|loopback|unicast\)|ipv4|rfc|teredo|6to4/);
    }
    for (const name of ['evil.test', 'internal.example']) {
      const r = await post(strict.url, '/v1/check', { url: `https://${name}/paid` }, { authorization: `Bearer ${strictKey}` });
      expect(r.json).toEqual({
        error: `refused url: host ${name} resolves to an address that is not allowed (only public unicast addresses are fetched)`,
      });
    }
    expect(loop.connections()).toBe(0);
    expect(any.connections()).toBe(0);
  });

  it('a redirect chain ending at a refused address is not followed: do_not_pay with redirect_refused, no connection', async () => {
    const last = `http://0.0.0.0:${any.port}/paid`;
    const hop2 = `${bad.origin}/redirect?to=${encodeURIComponent(last)}`;
    const hop1 = `${bad.origin}/redirect?to=${encodeURIComponent(hop2)}`;
    const r = await post(lenient.url, '/v1/check', { url: hop1 }, { authorization: `Bearer ${lenientKey}` });
    expect(r.status).toBe(200);
    expect(r.json.verdict).toBe('do_not_pay');
    expect(codes(r.json, 'critical')).toEqual(['redirect_refused']);
    const named = await post(
      lenient.url,
      '/v1/check',
      { url: `${bad.origin}/redirect?to=${encodeURIComponent('http://internal.test/paid')}` },
      { authorization: `Bearer ${lenientKey}` },
    );
    expect(codes(named.json, 'critical')).toEqual(['redirect_refused']);
    expect(named.json.reasons[0].evidence.error).toBe(
      'host internal.test resolves to an address that is not allowed (only public unicast addresses are fetched)',
    );
    expect(JSON.stringify(named.json)).not.toContain('10.9.8.7');
    const mapped = await post(
      lenient.url,
      '/v1/check',
      { url: `${bad.origin}/redirect?to=${encodeURIComponent('http://[::ffff:a9fe:a9fe]/latest/meta-data/')}` },
      { authorization: `Bearer ${lenientKey}` },
    );
    expect(codes(mapped.json, 'critical')).toEqual(['redirect_refused']);
    expect(any.connections()).toBe(0);
  });
});
