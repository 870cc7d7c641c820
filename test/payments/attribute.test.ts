/**
 * The payment matcher (src/payments/attribute.ts) over an intel index built from offer rows as intel_offers holds
 * them (src/store/payments/intel-index.ts): memo and payTo together, either alone, a forged memo, ambiguity, the
 * time rule and the x402 pay_to rule.
 */
import { describe, expect, it } from 'vitest';
import { attributeLeg, attributeTransaction } from '../../src/payments/attribute.js';
import { PaymentIntelIndex } from '../../src/store/payments/intel-index.js';
import { mppFingerprint } from '../../src/chain/decode/attribution.js';
import type { Leg } from '../../src/domain/observation.js';

const PAY_A = `0x${'a1'.repeat(20)}`;
const PAY_B = `0x${'b2'.repeat(20)}`;
const UNRELATED = `0x${'c3'.repeat(20)}`;
const PAYER = `0x${'d4'.repeat(20)}`;
const T0 = 1_790_000_000;
const iso = (t: number) => new Date(t * 1000).toISOString();

/** The bytes32 memo an mppx client writes for `realm` (layout: src/chain/decode/attribution.ts). */
function memoFor(realm: string, client: string | null = null): string {
  const fp = (s: string) => mppFingerprint(s).slice(2);
  return `0xef1ed71201${fp(realm)}${client ? fp(client) : '0'.repeat(20)}${'07'.repeat(7)}`;
}

function intel(): PaymentIntelIndex {
  const i = new PaymentIntelIndex();
  const offer = (
    service_id: string,
    domain: string,
    protocol: string,
    pay_to: string | null,
    at: number,
    extra: unknown = null,
    network = 'eip155:4217',
  ) => i.add({ service_id, domain, protocol, network, pay_to, extra: extra === null ? null : JSON.stringify(extra), observed_at: iso(at) });
  offer('svc-search', 'search.example', 'mpp', PAY_A, T0, { realm: 'search.example' });
  // Two services of one provider behind one realm and one payTo: ambiguous.
  offer('svc-img-1', 'img.example', 'mpp', PAY_B, T0, { realm: 'img.example' });
  offer('svc-img-2', 'img.example', 'mpp', PAY_B, T0 + 100, { realm: 'img.example' });
  // An x402 payTo on Tempo, and one on another network.
  offer('svc-check', 'check.example', 'x402', PAY_A.replace('a1', 'e5'), T0, null);
  offer('svc-base', 'base.example', 'x402', UNRELATED.replace('c3', 'f6'), T0, null, 'eip155:8453');
  // Hostile rows are skipped, never thrown.
  offer('svc-bad', 'bad.example', 'mpp', 'not an address', T0, { realm: 7 });
  i.add({ service_id: 'x', domain: 'x', protocol: 'mpp', network: null, pay_to: PAY_A, extra: '{not json', observed_at: 'yesterday' });
  return i;
}

const leg = (to: string, memo: string | null, amount = '1000', log_index = 0, more: Partial<Leg> = {}): Leg => ({
  from: PAYER,
  to,
  asset_contract: `0x20c0${'0'.repeat(36)}`,
  amount: '0.001',
  amount_atomic: amount,
  log_index,
  memo,
  payer: PAYER,
  settlement: null,
  x402_proxy: null,
  ...more,
});

describe('attributeLeg', () => {
  const i = intel();

  it('memo and payTo of the same service: memo_and_pay_to', () => {
    const a = attributeLeg(leg(PAY_A, memoFor('search.example', 'agent-7')), T0 + 10, i);
    expect(a).toMatchObject({
      method: 'memo_and_pay_to',
      candidates: ['svc-search'],
      server_fingerprint: mppFingerprint('search.example'),
      client_fingerprint: mppFingerprint('agent-7'),
      nonce: `0x${'07'.repeat(7)}`,
    });
  });

  it('a forged memo to an unrelated recipient is memo at best, never memo_and_pay_to', () => {
    const a = attributeLeg(leg(UNRELATED, memoFor('search.example')), T0 + 10, i);
    expect(a.method).toBe('memo');
    expect(a.candidates).toEqual(['svc-search']);
    expect(a.client_fingerprint).toBeNull();
  });

  it('a payTo without memo: pay_to; a memo naming another service does not outweigh where the money went', () => {
    expect(attributeLeg(leg(PAY_A, null), T0 + 10, i)).toMatchObject({ method: 'pay_to', candidates: ['svc-search'] });
    expect(attributeLeg(leg(PAY_A, memoFor('img.example')), T0 + 10, i)).toMatchObject({ method: 'pay_to', candidates: ['svc-search'] });
  });

  it('a payTo counts only from the time it was first seen advertised', () => {
    expect(attributeLeg(leg(PAY_A, memoFor('search.example')), T0 - 1, i)).toMatchObject({ method: 'memo', candidates: ['svc-search'] });
    expect(attributeLeg(leg(PAY_A, null), T0 - 1, i).method).toBeNull();
  });

  it('several services on the same evidence: every candidate, sorted', () => {
    expect(attributeLeg(leg(PAY_B, memoFor('img.example')), T0 + 50, i)).toMatchObject({
      method: 'memo_and_pay_to',
      candidates: ['svc-img-1'],
    });
    expect(attributeLeg(leg(PAY_B, memoFor('img.example')), T0 + 200, i)).toMatchObject({
      method: 'memo_and_pay_to',
      candidates: ['svc-img-1', 'svc-img-2'],
    });
  });

  it('an unknown realm or a memo that is not an attribution: nothing', () => {
    expect(attributeLeg(leg(UNRELATED, memoFor('nobody.example')), T0 + 10, i)).toMatchObject({ method: null, candidates: [] });
    expect(attributeLeg(leg(UNRELATED, `0x${'11'.repeat(32)}`), T0 + 10, i)).toMatchObject({ method: null, server_fingerprint: null });
  });
});

describe('attributeTransaction', () => {
  const i = intel();

  it('carries the largest attributed leg and lists every leg with a memo or a candidate', () => {
    const a = attributeTransaction(
      [
        leg(PAY_A, null, '5', 1),
        leg(PAY_B, memoFor('img.example'), '900', 2),
        leg(UNRELATED, null, '10000', 3),
        leg(UNRELATED, memoFor('nobody'), '1', 4),
      ],
      T0 + 200,
      i,
    );
    expect(a).toMatchObject({ service_id: 'svc-img-1', provider: 'img.example', method: 'memo_and_pay_to', ambiguous: true, x402: null });
    expect(a.legs.map((l) => [l.log_index, l.method])).toEqual([
      [1, 'pay_to'],
      [2, 'memo_and_pay_to'],
      [4, null],
    ]);
  });

  it('nothing attributed: nulls, not zero or false', () => {
    expect(attributeTransaction([leg(UNRELATED, null)], T0, i)).toEqual({
      service_id: null,
      provider: null,
      method: null,
      ambiguous: null,
      x402: null,
      log_index: null,
      legs: [],
    });
    expect(attributeTransaction(null, T0, i).method).toBeNull();
  });

  it('an EIP-3009 settlement is x402 only when its recipient is a payTo of an x402 offer on eip155:4217 seen by then', () => {
    const checkPayTo = PAY_A.replace('a1', 'e5');
    const settled = (to: string) => [leg(to, null, '10000', 0, { settlement: 'eip3009' })];
    expect(attributeTransaction(settled(checkPayTo), T0 + 1, i)).toMatchObject({ x402: 'x402', method: 'pay_to', service_id: 'svc-check' });
    expect(attributeTransaction(settled(checkPayTo), T0 - 1, i).x402).toBeNull();
    // Named by an x402 offer on another network only: attributed by payTo, but not recognised as x402 on Tempo.
    expect(attributeTransaction(settled(UNRELATED.replace('c3', 'f6')), T0 + 1, i)).toMatchObject({ x402: null, method: 'pay_to' });
    expect(attributeTransaction(settled(UNRELATED), T0 + 1, i)).toMatchObject({ x402: null, method: null });
    // Through x402's own Permit2 proxy: x402 whatever the recipient.
    expect(attributeTransaction([leg(UNRELATED, null, '1', 0, { settlement: 'permit2', x402_proxy: 'exact' })], T0, i).x402).toBe('x402');
  });
});
