/**
 * The bounded readers of directory and provider text (src/intel/read-bounds.ts) against their table
 * (src/intel/limits.ts): each bound at its value passes, one beyond it is cut, unknown or refused as the table says;
 * and the prober's method plan (src/intel/probe/method-policy.ts).
 */
import { describe, expect, it } from 'vitest';
import type { DiscoveredService, Offer } from '../../src/domain/intel.js';
import { INTEL_LIMITS } from '../../src/intel/limits.js';
import { planProbe } from '../../src/intel/probe/method-policy.js';
import { boundOffer, boundService, capText, readMethod } from '../../src/intel/read-bounds.js';

const v = (name: keyof typeof INTEL_LIMITS) => INTEL_LIMITS[name].value;
const offer = (o: Partial<Offer> = {}): Offer => ({
  protocol: 'x402',
  x402_version: 2,
  scheme: 'exact',
  method: null,
  network: 'eip155:4217',
  asset: '0x20c0000000000000000000000000000000000000',
  amount_atomic: '1000',
  amount: '0.001',
  decimals: 6,
  pay_to: '0x1111111111111111111111111111111111111111',
  max_timeout_seconds: 60,
  expires: null,
  description: 'weather',
  resource: 'https://api.example/w',
  extra: { name: 'pathUSD', version: '1' },
  source: 'header',
  ...o,
});
const service = (d: Partial<DiscoveredService> = {}): DiscoveredService => ({
  method: 'GET',
  url: 'https://api.example/w',
  tool: null,
  source: 's',
  description: 'weather',
  offers: [],
  ...d,
});

describe('bounded readers', () => {
  it('keeps an offer within its bounds as it is, and makes each member beyond its bound unknown or cut', () => {
    expect(boundOffer(offer())).toEqual(offer());
    const long = 'a'.repeat(v('address_chars') + 1);
    const b = boundOffer(
      offer({
        asset: long,
        pay_to: long,
        scheme: 's'.repeat(v('offer_text_chars') + 1),
        network: 'n'.repeat(v('offer_text_chars') + 1),
        resource: `https://x.example/${'p'.repeat(v('url_chars'))}`,
        extra: { blob: 'x'.repeat(v('extra_bytes')) },
        description: 'd'.repeat(200 * 1024),
      }),
    );
    expect(b).toMatchObject({ asset: null, pay_to: null, scheme: null, network: null, resource: null, extra: null });
    expect(b.description).toHaveLength(v('description_chars'));
    expect(boundOffer(offer({ pay_to: 'a'.repeat(v('address_chars')) })).pay_to).toHaveLength(v('address_chars'));
    expect(boundOffer(offer({ pay_to: '0x\ud800' })).pay_to).toBeNull();
  });

  it('cuts text at its bound, never inside a surrogate pair, and replaces lone surrogates', () => {
    expect(capText('abc', 3)).toBe('abc');
    expect(capText('abcd', 3)).toBe('ab…');
    expect(capText(`a${'\u{1f600}'.repeat(3)}`, 3)).toBe('a…');
    expect(capText('a\ud800b', 10)).toBe('a\ufffdb');
    expect(capText(null, 3)).toBeNull();
  });

  it('reads only known methods that are RFC 9110 tokens', () => {
    expect(['get', ' Post ', 'DELETE', 'patch'].map(readMethod)).toEqual(['GET', 'POST', 'DELETE', 'PATCH']);
    expect(['<svg/onload=alert(1)> X', 'GE T', 'FOO', '', 'GET\r\nX: y'].map(readMethod)).toEqual([null, null, null, null, null]);
  });

  it('refuses an entry with an unknown method, an oversized URL or tool name, with an escaped note', () => {
    expect(boundService(service())).toEqual({ service: service() });
    const bad = boundService(service({ method: '\u202eTEG' }));
    expect(bad).toEqual({
      note: { kind: 'directory_entry_invalid', detail: 'method "\\u202eTEG" is not a known HTTP method', url: 'https://api.example/w' },
    });
    expect('note' in boundService(service({ url: `https://x.example/${'p'.repeat(v('url_chars'))}` }))).toBe(true);
    expect('note' in boundService(service({ tool: 't'.repeat(v('tool_chars') + 1) }))).toBe(true);
    expect('service' in boundService(service({ tool: 't'.repeat(v('tool_chars')) }))).toBe(true);
  });
});

describe('the prober sends only requests that cannot change state', () => {
  it.each([
    ['GET', false, 'GET'],
    ['head', false, 'HEAD'],
    ['POST', true, 'POST'],
    ['POST', false, null],
    ['PUT', true, null],
    ['PATCH', true, null],
    ['DELETE', true, null],
    ['OPTIONS', true, null],
  ] as const)('%s (directory declares a payment: %s) → %s', (method, paid, sent) => {
    const plan = planProbe(method, paid);
    expect('method' in plan ? plan.method : null).toBe(sent);
  });
});
