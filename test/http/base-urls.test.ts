/**
 * The advertised base URLs (src/http/base-urls.ts): configured URLs first, else the request's scheme and host
 * (a verify URL on the same host with the verify port), else the bound address; a Host value that is not a plain
 * host is never echoed.
 */
import { describe, expect, it } from 'vitest';
import { cacheScope, configuredBaseUrls, publicBaseUrl, verifyBaseUrl } from '../../src/http/base-urls.js';

const bound = { publicUrl: null, verifyUrl: null, host: '0.0.0.0', port: 8080, verifyPort: 8081 };

describe('advertised base URLs', () => {
  it('prefer the configured URLs, without a trailing slash', () => {
    const c = { ...bound, publicUrl: 'https://paywatch.example/', verifyUrl: 'https://check.paywatch.example/' };
    expect(publicBaseUrl(c, { protocol: 'http', host: 'other.example' })).toBe('https://paywatch.example');
    expect(verifyBaseUrl(c, { protocol: 'http', host: 'other.example' })).toBe('https://check.paywatch.example');
    expect(configuredBaseUrls(c)).toEqual({ api: 'https://paywatch.example', verify: 'https://check.paywatch.example' });
    expect(configuredBaseUrls(bound)).toEqual({ api: null, verify: null });
    expect(cacheScope(c.publicUrl, c.verifyUrl)).toBe('public');
    expect(cacheScope(c.publicUrl, null)).toBe('private');
  });

  it('else follow the address the request was sent to', () => {
    expect(publicBaseUrl(bound, { protocol: 'https', host: 'api.example:8443' })).toBe('https://api.example:8443');
    expect(verifyBaseUrl(bound, { protocol: 'https', host: 'api.example:8443' })).toBe('https://api.example:8081');
    expect(publicBaseUrl(bound, { protocol: 'http', host: '[::1]:8080' })).toBe('http://[::1]:8080');
    expect(verifyBaseUrl(bound, { protocol: 'http', host: '[::1]:8080' })).toBe('http://[::1]:8081');
  });

  it('never echo a Host that is not a plain host, and fall back to the bound address', () => {
    for (const host of ['evil.example/path', 'a b', 'x@evil.example', '', `${'a'.repeat(300)}.example`, 'evil.example:80:80']) {
      expect(publicBaseUrl(bound, { protocol: 'http', host }), host).toBe('http://0.0.0.0:8080');
    }
    expect(publicBaseUrl(bound, { protocol: 'javascript', host: 'a.example' })).toBe('http://0.0.0.0:8080');
    expect(verifyBaseUrl({ ...bound, host: '::1' })).toBe('http://[::1]:8081');
  });
});
