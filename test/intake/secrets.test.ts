/**
 * Unit tests of the secrets module and the signature rules: AES-256-GCM sealing bound to its row, master-secret
 * parsing, token hashing, constant-time comparison, the ±300 s window, and the signing format.
 */
import { describe, expect, it } from 'vitest';
import { createHmac, randomBytes } from 'node:crypto';
import { MasterSecret, constantTimeEqual, newToken, open, seal, sha256Hex } from '../../src/secrets/index.js';
import { KeyVault } from '../../src/intake/keys.js';
import { checkTimestamp, signDelivery, signatureMatches } from '../../src/intake/signature.js';
import { annotateRecord, MAX_ID_LENGTH, PROTOCOLS, UNRECOGNISED } from '../../src/intake/protocols.js';
import { NATIVE_RECORDS, UNRECOGNISED_RECORDS } from './native-records.js';
import { RECORDS } from './helpers.js';

const master = MasterSecret.parse(randomBytes(32).toString('hex'));

describe('secrets', () => {
  it('opens a sealed value only with the same key and associated data', () => {
    const key = master.deriveKey('t');
    const s = seal(key, Buffer.from('hello'), 'row-1');
    expect(s).toMatch(/^v1\./);
    expect(s).not.toContain(Buffer.from('hello').toString('base64url'));
    expect(open(key, s, 'row-1').toString()).toBe('hello');
    expect(() => open(key, s, 'row-2')).toThrow(/cannot decrypt/);
    expect(() => open(master.deriveKey('other'), s, 'row-1')).toThrow(/cannot decrypt/);
    const tampered = s.slice(0, -2) + (s.endsWith('A') ? 'BB' : 'AA');
    expect(() => open(key, tampered, 'row-1')).toThrow(/cannot decrypt/);
  });

  it('derives different sub-keys per purpose and refuses a malformed master secret without echoing it', () => {
    expect(master.deriveKey('a').equals(master.deriveKey('b'))).toBe(false);
    expect(master.deriveKey('a').equals(master.deriveKey('a'))).toBe(true);
    expect(() => MasterSecret.parse('secret-value-123')).toThrow(/64 hex characters/);
    try {
      MasterSecret.parse('secret-value-123');
    } catch (e) {
      expect((e as Error).message).not.toContain('secret-value-123');
    }
    expect(JSON.stringify({ master })).toBe('{"master":"[secret]"}');
  });

  it('makes 256-bit tokens, hashes them and compares in constant time', () => {
    const t = newToken('pwop');
    expect(t).toMatch(/^pwop_[A-Za-z0-9_-]{43}$/);
    expect(newToken('pwop')).not.toBe(t);
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
  });

  it('seals an intake key so only the vault of the same master secret opens it', () => {
    const vault = new KeyVault(master);
    const { key, sealed } = vault.issue();
    expect(sealed.sealed).not.toContain(key);
    expect(vault.open(sealed).toString('ascii')).toBe(key);
    expect(() => new KeyVault(MasterSecret.parse(randomBytes(32).toString('hex'))).open(sealed)).toThrow(/cannot decrypt/);
  });
});

describe('signature rules', () => {
  it('signs HMAC-SHA256 over "<timestamp>.<body>" in lower-case hex (the documented format)', () => {
    const expected = createHmac('sha256', 'k').update('1700000000.{"a":1}').digest('hex');
    expect(signDelivery('k', 1700000000, '{"a":1}')).toBe(expected);
    expect(signatureMatches([Buffer.from('k')], '1700000000', Buffer.from('{"a":1}'), expected)).toBe(true);
    expect(signatureMatches([Buffer.from('x'), Buffer.from('k')], '1700000000', Buffer.from('{"a":1}'), expected)).toBe(true);
    expect(signatureMatches([Buffer.from('k')], '1700000001', Buffer.from('{"a":1}'), expected)).toBe(false);
    expect(() => signatureMatches([Buffer.from('k')], '1', Buffer.from(''), expected.toUpperCase())).toThrow(/lower-case hex/);
  });

  it('accepts timestamps up to 300 s away either way and rejects 301 s', () => {
    const now = 1_800_000_000;
    for (const d of [0, 299, -299, 300, -300]) expect(checkTimestamp(String(now + d), now)).toBe(now + d);
    for (const d of [301, -301]) expect(() => checkTimestamp(String(now + d), now)).toThrow(/stale timestamp/);
    for (const bad of ['', '-5', '1.5', '0x10', ' 1']) expect(() => checkTimestamp(bad, now)).toThrow(/Unix seconds/);
    expect(() => checkTimestamp(undefined, now)).toThrow(/missing X-SVC-Timestamp/);
  });

  it('annotates native records of all five protocols with their kind and ids, and the rest as unrecognised', () => {
    for (const n of NATIVE_RECORDS)
      expect(annotateRecord(n.protocol, n.record), `${n.protocol} ${n.name}`).toEqual({ record_kind: n.kind, record_ids: n.ids });
    expect(new Set(NATIVE_RECORDS.map((n) => n.protocol))).toEqual(new Set(PROTOCOLS));
    for (const [p, { record }] of Object.entries(RECORDS))
      expect(annotateRecord(p, record as Record<string, unknown>).record_kind, p).not.toBe(UNRECOGNISED);
    for (const u of UNRECOGNISED_RECORDS)
      expect(annotateRecord(u.protocol, u.record), u.protocol).toEqual({ record_kind: UNRECOGNISED, record_ids: {} });
    expect(annotateRecord('other', { jsonrpc: '2.0', method: 'x' })).toEqual({ record_kind: UNRECOGNISED, record_ids: {} });
    // Ids too long to be ids, or of another type, are left out; the kind stays.
    expect(annotateRecord('acp', { id: 'x'.repeat(MAX_ID_LENGTH + 1), status: 's', currency: 'usd', line_items: [] })).toEqual({
      record_kind: 'checkout_session',
      record_ids: {},
    });
    expect(annotateRecord('mcp', { jsonrpc: '2.0', id: { nested: 1 }, method: 'm' }).record_ids).toEqual({ method: 'm' });
  });
});
