import { createServer, type Server } from 'node:http';
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAddress } from '../../src/net/address-policy.js';
import { FetchFailed, FetchRefused, FetchTimeout, FetchTooLarge, safeFetch, type Resolver } from '../../src/net/safe-fetch.js';
import { USER_AGENT } from '../../src/net/user-agent.js';
import { startBadServers, type BadServers } from '../helpers/bad-servers.js';

/** A server that records every request it receives: the "target" that must never be reached. */
async function trap(host = '127.0.0.1'): Promise<{ server: Server; port: number; hits: () => number; userAgents: string[] }> {
  let hits = 0;
  const userAgents: string[] = [];
  const server = createServer((req, res) => {
    hits++;
    userAgents.push(String(req.headers['user-agent']));
    res.end('reached');
  });
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  return { server, port: (server.address() as { port: number }).port, hits: () => hits, userAgents };
}

/** First non-loopback IPv4 address of this machine, if it is a non-public one (private, reserved, CGNAT…). */
function nonPublicInterfaceAddress(): string | null {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.family === 'IPv4' && !a.internal && ipaddr.parse(a.address).range() !== 'unicast') return a.address;
    }
  }
  return null;
}

describe('checkAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['64:ff9b::808:808', 'rfc6052'], // NAT64 of a public address: the gateway decides where it lands
    ['::7f00:1', 'ipv4Compatible'], // what the URL parser makes of [::127.0.0.1]
    ['::a00:5', 'ipv4Compatible'],
    ['::8.8.8.8', 'ipv4Compatible'], // ipaddr.js alone reads this as ::ffff:8.8.8.8 (public)
    ['::808:808', 'ipv4Compatible'],
    ['2002:7f00:1::', '6to4'],
    ['2002:808:808::1', '6to4'],
    ['2001::1', 'teredo'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['not-an-ip', 'invalid'],
  ])('refuses %s (%s)', (ip, range) => {
    const v = checkAddress(ip);
    expect(v.allowed).toBe(false);
    expect(v.range).toBe(range);
  });
  it('allows public unicast, and loopback only when asked', () => {
    expect(checkAddress('8.8.8.8').allowed).toBe(true);
    expect(checkAddress('2606:4700:4700::1111').allowed).toBe(true);
    expect(checkAddress('127.0.0.1', true).allowed).toBe(true);
    expect(checkAddress('::ffff:127.0.0.1', true).allowed).toBe(true);
    expect(checkAddress('::1', true)).toMatchObject({ allowed: true, range: 'loopback' });
    expect(checkAddress('::7f00:1', true).allowed).toBe(false);
    expect(checkAddress('2001:4860:4860::8888').allowed).toBe(true); // public, next to Teredo's 2001::/32
    expect(checkAddress('10.0.0.1', true).allowed).toBe(false);
    expect(checkAddress('169.254.169.254', true).allowed).toBe(false);
  });
});

describe('safeFetch', () => {
  let target: Awaited<ReturnType<typeof trap>>;
  let bad: BadServers;
  beforeAll(async () => {
    target = await trap();
    bad = await startBadServers();
  });
  afterAll(async () => {
    await new Promise((r) => target.server.close(r));
    await bad.stop();
  });

  it.each([
    (p: number) => `http://127.0.0.1:${p}/`,
    (p: number) => `http://2130706433:${p}/`, // decimal form of 127.0.0.1
    (p: number) => `http://0x7f.1:${p}/`, // hex form
    (p: number) => `http://0177.0.0.1:${p}/`, // octal form
    (p: number) => `http://127.1:${p}/`, // short form
    (p: number) => `http://[::ffff:127.0.0.1]:${p}/`, // IPv4-mapped IPv6
    (p: number) => `http://[::ffff:7f00:1]:${p}/`,
    (p: number) => `http://localhost:${p}/`, // a DNS name resolving to loopback
    (p: number) => `http://[::127.0.0.1]:${p}/`, // IPv4-compatible IPv6, written [::7f00:1] by the URL parser
    (p: number) => `http://[64:ff9b::7f00:1]:${p}/`, // NAT64
    (p: number) => `http://[2002:7f00:1::]:${p}/`, // 6to4
    (p: number) => `http://[2001::7f00:1]:${p}/`, // Teredo
  ])('refuses %s without connecting', async (make) => {
    const before = target.hits();
    const err = await safeFetch(make(target.port)).catch((e) => e);
    expect(err).toBeInstanceOf(FetchRefused);
    expect(err.reason).toBe('address');
    expect(target.hits()).toBe(before);
  });

  it('refuses a name that a resolver maps to loopback, and connects only to the checked address', async () => {
    const toLoopback: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const before = target.hits();
    const err = await safeFetch(`http://provider.test:${target.port}/`, { resolve: toLoopback }).catch((e) => e);
    expect(err).toBeInstanceOf(FetchRefused);
    expect(target.hits()).toBe(before);
    // A name with one bad answer among good ones is refused too (every answer is checked).
    const mixed: Resolver = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.1', family: 4 },
    ];
    await expect(safeFetch('http://mixed.test/', { resolve: mixed })).rejects.toBeInstanceOf(FetchRefused);
    // With loopback allowed, the pinned address is used for the connection (the name itself does not resolve).
    const r = await safeFetch(`http://provider.test:${target.port}/`, { resolve: toLoopback, allowLoopback: true });
    expect(Buffer.from(r.body).toString()).toBe('reached');
    expect(target.hits()).toBe(before + 1);
  });

  it('never says what a refused name resolved to (no internal DNS oracle); a literal is named as given', async () => {
    const answers: Record<string, string[]> = {
      'private.test': ['10.0.0.5'],
      'loop.test': ['127.0.0.1'],
      'mixed.test': ['93.184.216.34', '10.0.0.5'],
      'v6.test': ['::7f00:1'],
      'meta.test': ['169.254.169.254'],
    };
    const resolve: Resolver = async (name) => answers[name].map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    for (const [name, addresses] of Object.entries(answers)) {
      const err = await safeFetch(`http://${name}/`, { resolve }).catch((e) => e);
      expect(err, name).toBeInstanceOf(FetchRefused);
      expect(err.message).toBe(`host ${name} resolves to an address that is not allowed (only public unicast addresses are fetched)`);
      for (const a of addresses) expect(err.message).not.toContain(a);
    }
    const literal = await safeFetch('http://10.0.0.5/').catch((e) => e);
    expect(literal.message).toBe('address 10.0.0.5 is not allowed (only public unicast addresses are fetched)');
  });

  it('refuses IPv6 loopback when loopback is not allowed', async () => {
    await expect(safeFetch('http://[::1]/')).rejects.toMatchObject({ name: 'FetchRefused', reason: 'address' });
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/',
    'http://10.0.0.1/',
    'http://0.0.0.0/',
    'http://100.64.1.1/',
  ])('refuses %s', async (url) => {
    await expect(safeFetch(url, { allowLoopback: true })).rejects.toBeInstanceOf(FetchRefused);
  });

  it('refuses non-http schemes and URLs with credentials', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.com/', 'gopher://example.com/', 'data:text/plain,hi']) {
      const err = await safeFetch(url).catch((e) => e);
      expect(err).toBeInstanceOf(FetchRefused);
      expect(err.reason).toBe('scheme');
    }
    await expect(safeFetch('http://user:pw@example.com/')).rejects.toMatchObject({ reason: 'credentials' });
    await expect(safeFetch('not a url')).rejects.toMatchObject({ name: 'FetchFailed', reason: 'bad_url' });
  });

  it('refuses a redirect chain whose last hop is a private address, without reaching it', async () => {
    const host = nonPublicInterfaceAddress();
    // The first hops are on loopback (allowed for this test); the last is this machine's non-public interface
    // address, where a trap server listens. Without such an interface, a private literal stands in (not observable).
    const privateTarget = host ? await trap(host) : null;
    const to = privateTarget ? `http://${host}:${privateTarget.port}/` : 'http://10.255.255.1/';
    const hop2 = `${bad.origin}/redirect?to=${encodeURIComponent(to)}`;
    const err = await safeFetch(`${bad.origin}/redirect?to=${encodeURIComponent(hop2)}`, { allowLoopback: true }).catch((e) => e);
    expect(err).toBeInstanceOf(FetchRefused);
    expect(err.reason).toBe('address');
    if (privateTarget) {
      expect(privateTarget.hits()).toBe(0);
      await new Promise((r) => privateTarget.server.close(r));
    }
  });

  it('refuses a redirect to the cloud metadata address', async () => {
    const err = await safeFetch(`${bad.origin}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`, {
      allowLoopback: true,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(FetchRefused);
  });

  it('follows allowed redirects, sends the User-Agent, and stops redirect loops', async () => {
    const before = target.userAgents.length;
    const r = await safeFetch(`${bad.origin}/redirect?to=${encodeURIComponent(`http://127.0.0.1:${target.port}/x`)}`, {
      allowLoopback: true,
    });
    expect(r.status).toBe(200);
    expect(r.url).toBe(`http://127.0.0.1:${target.port}/x`);
    expect(target.userAgents[before]).toBe(USER_AGENT);
    expect(USER_AGENT).toMatch(/^paywatch\/\d+\.\d+\.\d+/);
    const loop = await safeFetch(`${bad.origin}/redirect-loop`, { allowLoopback: true, maxRedirects: 3 }).catch((e) => e);
    expect(loop).toBeInstanceOf(FetchFailed);
    expect(loop.reason).toBe('too_many_redirects');
    expect(bad.hits.get('/redirect-loop')).toBe(4); // the first request and three redirects, then stop
  });

  it('gives up after the time budget', async () => {
    const err = await safeFetch(`${bad.origin}/slow?ms=3000`, { allowLoopback: true, timeoutMs: 200 }).catch((e) => e);
    expect(err).toBeInstanceOf(FetchTimeout);
    expect(err.reason).toBe('timeout');
  });

  it('caps the body and keeps what arrived', async () => {
    const err = await safeFetch(`${bad.origin}/oversized?bytes=${3 * 1024 * 1024}`, { allowLoopback: true, maxBytes: 100_000 }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(FetchTooLarge);
    expect(err.response.truncated).toBe(true);
    expect(err.response.body.length).toBe(100_000);
    expect(err.response.status).toBe(200);
    const ok = await safeFetch(`${bad.origin}/oversized?bytes=1000`, { allowLoopback: true, maxBytes: 1000 });
    expect(ok.body.length).toBe(1000);
    expect(ok.truncated).toBe(false);
  });

  it('reports an unreachable host as FetchFailed', async () => {
    const closed = await trap();
    const port = closed.port;
    await new Promise((r) => closed.server.close(r));
    const err = await safeFetch(`http://127.0.0.1:${port}/`, { allowLoopback: true }).catch((e) => e);
    expect(err).toBeInstanceOf(FetchFailed);
    expect(err.reason).toBe('connect');
    const dns = await safeFetch('http://nope.invalid/', { resolve: async () => Promise.reject(new Error('ENOTFOUND')) }).catch((e) => e);
    expect(dns).toMatchObject({ name: 'FetchFailed', reason: 'dns' });
  });
});
