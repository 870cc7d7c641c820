import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { archiveEvidence, readEvidence, verifyEvidence } from '../../src/intel/evidence.js';
import { canonicalService, normaliseUrl, providerDomain, serviceId } from '../../src/intel/service-id.js';
import { uuidv7 } from '../../src/intel/probe/snapshot-id.js';
import type { RawResponse } from '../../src/domain/intel.js';

describe('service ids', () => {
  it('normalises URLs to the documented canonical form', () => {
    expect(normaliseUrl('HTTPS://Api.Example.COM:443/Path/x?b=2&a=1&a=0#frag')).toBe('https://api.example.com/Path/x?a=0&a=1&b=2');
    expect(normaliseUrl('http://example.com:80')).toBe('http://example.com/');
    expect(normaliseUrl('http://example.com.:8080/x?')).toBe('http://example.com:8080/x');
    expect(normaliseUrl('https://bücher.example/x')).toBe('https://xn--bcher-kva.example/x');
  });
  it('is the sha256 of METHOD, space, normalised URL, and the tool on its own line', () => {
    expect(canonicalService('get', 'https://Api.example.com/x?b=1&a=2')).toBe('GET https://api.example.com/x?a=2&b=1');
    expect(canonicalService('post', 'https://mcp.example.com/mcp', 'search')).toBe('POST https://mcp.example.com/mcp\nsearch');
    expect(serviceId('get', 'https://api.example.com/x')).toBe(createHash('sha256').update('GET https://api.example.com/x').digest('hex'));
    expect(serviceId('GET', 'https://API.example.com:443/x#y')).toBe(serviceId('get', 'https://api.example.com/x'));
    expect(serviceId('GET', 'https://api.example.com/x')).not.toBe(serviceId('POST', 'https://api.example.com/x'));
    expect(serviceId('POST', 'https://m.example/mcp', 'a')).not.toBe(serviceId('POST', 'https://m.example/mcp', 'b'));
    expect(serviceId('GET', 'https://api.example.com/x')).toMatch(/^[a-f0-9]{64}$/);
    expect(() => serviceId('GET', 'not a url')).toThrow(TypeError);
  });
  it('names the provider by lower-case host, keeping only a non-default port', () => {
    expect(providerDomain('https://API.Example.com:443/x')).toBe('api.example.com');
    expect(providerDomain('http://api.example.com:8080/x')).toBe('api.example.com:8080');
    expect(providerDomain('http://127.0.0.1:4021/x')).toBe('127.0.0.1:4021');
  });
});

describe('evidence archive', () => {
  const raw: RawResponse = {
    status: 402,
    headers: { 'Payment-Required': 'eyJ4IjoxfQ==', 'content-type': 'application/json' },
    body: new TextEncoder().encode('{"x402Version":1}'),
    truncated: false,
    url: 'https://api.example.com/x',
  };
  it('is deterministic, verifiable and restorable', () => {
    const a = archiveEvidence(raw);
    const b = archiveEvidence({ ...raw, headers: { 'content-type': 'application/json', 'payment-required': 'eyJ4IjoxfQ==' } });
    expect(a.sha256).toBe(b.sha256);
    expect(a.sha256).toBe(createHash('sha256').update(a.bytes).digest('hex'));
    expect(verifyEvidence(a.bytes, a.sha256)).toBe(true);
    expect(verifyEvidence(a.bytes, a.sha256.toUpperCase())).toBe(true);
    const back = readEvidence(a.bytes);
    expect(back).toEqual({ ...raw, headers: { 'content-type': 'application/json', 'payment-required': 'eyJ4IjoxfQ==' } });
  });
  it('detects any change to the stored bytes', () => {
    const a = archiveEvidence(raw);
    const other = archiveEvidence({ ...raw, status: 404 });
    expect(verifyEvidence(other.bytes, a.sha256)).toBe(false);
    const cut = a.bytes.subarray(0, a.bytes.length - 1);
    expect(verifyEvidence(cut, a.sha256)).toBe(false);
  });
});

describe('snapshot ids', () => {
  it('are UUID v7 that sort by time', () => {
    const a = uuidv7(1_700_000_000_000);
    const b = uuidv7(1_700_000_000_001);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a < b).toBe(true);
    expect(a.slice(0, 13).replace('-', '')).toBe((1_700_000_000_000).toString(16).padStart(12, '0'));
    expect(uuidv7(5)).not.toBe(uuidv7(5));
  });
});
